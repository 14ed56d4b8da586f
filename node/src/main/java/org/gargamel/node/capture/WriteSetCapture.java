package org.gargamel.node.capture;

import static org.gargamel.common.jdbc.Identifiers.quote;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.WriteSet;

/**
 * Generic, column-granular write-set capture (DESIGN.md §5; docs/node.md). A row trigger on every table of the schema
 * appends to the transaction-local setting {@code gargamel.changes} (so it vanishes at commit or rollback, with no
 * table to truncate and no plan to invalidate): for an INSERT the new row, for an UPDATE the primary key plus only the
 * columns whose value changed, for a DELETE the primary key, as JSON ({@code to_json} of each value), so numeric
 * scale, timestamps, text, arrays and NULL survive exactly. The trigger does nothing unless the session turned capture
 * on ({@link #enableForSession}), so other users of the database are unaffected, and it stays quiet while a node
 * applies write-sets ({@code session_replication_role = replica}). The setting is kept short: every
 * {@link #CHUNK_BYTES} it moves to a numbered setting of its own ({@code gargamel.chunk_1}, ...), and once
 * {@link #CHUNK_SLOTS} are full they go, in order, to a session-local temporary table: appending copies the setting
 * several times over, so capture stays linear in the changes, and cheap for a transaction of a few kB.
 *
 * <p>Each table gets its own trigger function, generated from the catalog when capture is installed: it compares the
 * columns one by one ({@code NEW.c IS DISTINCT FROM OLD.c}, or their text where equality would hide a difference,
 * such as numeric {@code 1.0} and {@code 1.00}) with plain PL/pgSQL expressions. A generic function that diffs
 * {@code to_jsonb(NEW)} against {@code to_jsonb(OLD)} in a query costs a New-Order more than its own work. The price:
 * after a column is added or dropped, capture must be installed again (every node start does; docs/node.md).
 *
 * <p>A table without a primary key gets insert-only capture (TPC-C's history); an UPDATE or DELETE of it while
 * capture is on fails with SQLSTATE 0A000, because no replica could find the row. An UPDATE that changes a primary
 * key is recorded as a DELETE of the old key and an INSERT of the new row. TRUNCATE is not captured.
 *
 * <p>Increments (issue 18): for the columns installed as increment columns, an update also records the exact delta,
 * {@code "+column": new - old}, after the new value when both are non-NULL; {@link Increments} decides per call what
 * travels (docs/node.md, Increments).
 */
public final class WriteSetCapture {
    public static final String SCHEMA = "gargamel";
    public static final String TRIGGER = "gargamel_capture";

    /**
     * Reads every change the current transaction recorded: the spilled chunks, in order, then the chunks in numbered
     * settings, then the setting. Chunks are read only when there are some, so a small transaction costs a few
     * {@code current_setting}.
     */
    public static final String READ_CHANGES = "SELECT CASE WHEN current_setting('gargamel.capture', true) IS DISTINCT "
            + "FROM 'on' OR current_setting('session_replication_role') <> 'origin' THEN " + SCHEMA
            + ".capture_disarmed() WHEN current_setting('gargamel.spilled', true) = 'on' THEN " + SCHEMA
            + ".spilled_changes() ELSE '' END || CASE WHEN coalesce(current_setting('gargamel.chunks', true), '') "
            + "NOT IN ('', '0') THEN " + slots()
            + " ELSE '' END || coalesce(current_setting('gargamel.changes', true), '')";

    /**
     * The SQLSTATE of a call whose changes were not captured: its session had capture off, or triggers quiet
     * ({@code session_replication_role} not {@code origin}), when it read its changes, so its write-set would miss what
     * it wrote and the other replicas would silently differ. {@link #READ_CHANGES} raises it, in the call's pipeline
     * before its commit, so such a call fails instead of committing; the worker then arms its connection again
     * ({@code WorkerConnection}; {@code CallAsRoleTest}).
     */
    public static final String CAPTURE_DISARMED = "ZG002";

    /**
     * Once the setting holds this many bytes, the trigger moves them to the next numbered setting (or, with
     * {@link #CHUNK_SLOTS} full, to the temporary table) and starts the setting afresh. Appending an entry to the setting
     * copies all it holds some eight times (read, concatenate, set, and the copy {@code set_config} returns), so a
     * transaction of n changes would copy n² bytes; with chunks of at most this size each change copies at most eight
     * of them: linear. With 16 kB, as before, a TPC-C delivery copied 0.5 MB (docs/costs.md, Third round).
     */
    static final int CHUNK_BYTES = 2_048;

    /**
     * Numbered settings a transaction fills ({@code gargamel.chunk_1} to {@code gargamel.chunk_8}, counted in
     * {@code gargamel.chunks}) before they and the setting go to the temporary table: TPC-C's transactions (up to some
     * 12 kB) never reach it, and a session keeps no more than this many settings of its own.
     */
    static final int CHUNK_SLOTS = 8;

    /** Session-local, emptied at every commit: chunks of the current transaction's recorded changes, in order. */
    private static final String SPILL_TABLE = "pg_temp.gargamel_spilled_changes";

    /** Types whose equality is identity of the stored value; other columns are compared as text. */
    private static final Set<String> EXACT_EQUALITY = Set.of(
            "int2",
            "int4",
            "int8",
            "bool",
            "text",
            "varchar",
            "bpchar",
            "date",
            "timestamp",
            "timestamptz",
            "uuid",
            "bytea",
            "oid",
            "char",
            "name");

    private WriteSetCapture() {}

    /**
     * Installs capture on every table of {@code schema}; idempotent (re-running regenerates the functions and the
     * triggers, and covers tables and columns created since). The caller commits, so other sessions see the old
     * triggers or the new ones, never none.
     */
    public static CaptureInstallation install(Connection connection, String schema) throws SQLException {
        return install(connection, schema, Map.of());
    }

    /**
     * As {@link #install(Connection, String)}, and for the columns of {@code increments} (table to columns: those some
     * procedure declares {@code add:}, issue 18) an update also records the exact delta, {@code "+column": new - old},
     * when both values are non-NULL. Such a column must be {@code smallint}, {@code integer}, {@code bigint} or
     * {@code numeric}; another type, or a column or table that does not exist, is an error naming it.
     */
    public static CaptureInstallation install(
            Connection connection, String schema, Map<String, ? extends Set<String>> increments) throws SQLException {
        Map<String, List<String>> tables = tables(connection, schema);
        for (String table : increments.keySet()) {
            if (!tables.containsKey(table)) {
                throw new SQLException(
                        "cannot capture increments of table " + table + ": no such table in schema " + schema);
            }
        }
        List<String> keyed = new ArrayList<>();
        List<String> insertOnly = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            for (Map.Entry<String, List<String>> table : tables.entrySet()) {
                String qualified = quote(schema) + "." + quote(table.getKey());
                String function = SCHEMA + ".capture_" + tableOid(connection, qualified);
                List<Column> columns = columns(connection, qualified);
                Set<String> added = increments.containsKey(table.getKey()) ? increments.get(table.getKey()) : Set.of();
                checkIncrementColumns(table.getKey(), columns, added);
                statement.execute(triggerFunction(function, table.getKey(), columns, table.getValue(), added));
                statement.execute("DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + qualified);
                statement.execute("CREATE TRIGGER " + TRIGGER + " AFTER INSERT OR UPDATE OR DELETE ON " + qualified
                        + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
                (table.getValue().isEmpty() ? insertOnly : keyed).add(table.getKey());
            }
            statement.execute(SPILL_FUNCTION);
            statement.execute(SPILLED_CHANGES_FUNCTION);
            statement.execute(CAPTURE_DISARMED_FUNCTION);
            // The generic functions of earlier versions, no longer used by any trigger.
            statement.execute("DROP FUNCTION IF EXISTS " + SCHEMA + ".capture()");
            statement.execute("DROP FUNCTION IF EXISTS " + SCHEMA + ".record(text, text, jsonb)");
        }
        return new CaptureInstallation(keyed, insertOnly);
    }

    /** The session's spill table: chunks of the current transaction's changes, in order, deleted at commit. */
    private static final String SPILL_TABLE_DDL = "CREATE TEMP TABLE gargamel_spilled_changes "
            + "(seq bigint GENERATED ALWAYS AS IDENTITY, chunk text NOT NULL) ON COMMIT DELETE ROWS";

    /**
     * The numbered settings' chunks, concatenated in order: every one, since a slot is either filled in this
     * transaction, in order, or empty (never set, emptied when the slots went to the table, or reset by the end of an
     * earlier transaction or by a rollback to a savepoint).
     */
    private static String slots() {
        List<String> slots = new ArrayList<>();
        for (int slot = 1; slot <= CHUNK_SLOTS; slot++) {
            slots.add("coalesce(current_setting('gargamel.chunk_" + slot + "', true), '')");
        }
        return String.join(" || ", slots);
    }

    /**
     * Moves a full chunk of the setting to the next numbered setting, or, with {@link #CHUNK_SLOTS} full, the numbered
     * settings and the chunk, in order, to the session's spill table (made by {@link #enableForSession} on a worker's
     * session, else on first use, in the session's temporary schema, rows deleted at commit), emptying the slots;
     * returns the setting's new start. Every setting is transaction-local, so a rollback (or a rollback to a savepoint)
     * takes the chunks and their count back with the rest, as it does the table's rows. Assignments rather than
     * PERFORM: PL/pgSQL evaluates them as simple expressions, without the executor.
     */
    private static final String SPILL_FUNCTION =
            "CREATE OR REPLACE FUNCTION " + SCHEMA + """
            .spill(chunk text) RETURNS text LANGUAGE plpgsql AS $spill$
            DECLARE
                slots integer := coalesce(nullif(current_setting('gargamel.chunks', true), ''), '0')::integer;
                ignored text;
            BEGIN
                IF slots < %3$s THEN
                    ignored := set_config('gargamel.chunk_' || (slots + 1), spill.chunk, true);
                    ignored := set_config('gargamel.chunks', (slots + 1)::text, true);
                    RETURN '';
                END IF;
                IF to_regclass('%1$s') IS NULL THEN
                    %2$s;
                    GRANT INSERT, SELECT ON %1$s TO PUBLIC;
                END IF;
                INSERT INTO %1$s (chunk) VALUES (%4$s || spill.chunk);
                FOR slot IN 1..%3$s LOOP
                    ignored := set_config('gargamel.chunk_' || slot, '', true);
                END LOOP;
                ignored := set_config('gargamel.chunks', '0', true);
                ignored := set_config('gargamel.spilled', 'on', true);
                RETURN '';
            END
            $spill$""".formatted(SPILL_TABLE, SPILL_TABLE_DDL, CHUNK_SLOTS, slots());

    /** The chunks spilled by the current transaction, concatenated in order. */
    private static final String SPILLED_CHANGES_FUNCTION =
            "CREATE OR REPLACE FUNCTION " + SCHEMA + """
            .spilled_changes() RETURNS text LANGUAGE plpgsql AS $spilled$
            BEGIN
                RETURN (SELECT coalesce(string_agg(chunk, '' ORDER BY seq), '') FROM %s);
            END
            $spilled$""".formatted(SPILL_TABLE);

    private static final String CAPTURE_DISARMED_FUNCTION =
            "CREATE OR REPLACE FUNCTION " + SCHEMA + """
            .capture_disarmed() RETURNS text LANGUAGE plpgsql VOLATILE AS $disarmed$
            BEGIN
                RAISE EXCEPTION 'write-set capture is not armed on this connection (gargamel.capture = %%, session_replication_role = %%): the call''s changes would not reach the other replicas, so it is rolled back',
                        coalesce(current_setting('gargamel.capture', true), 'unset'),
                        current_setting('session_replication_role')
                    USING ERRCODE = '%s';
            END
            $disarmed$""".formatted(CAPTURE_DISARMED);

    /** Arms capture on a session again: triggers fire, the capture trigger records. */
    public static final String ARM = "SET session_replication_role = origin; SET gargamel.capture = 'on'";

    /** A column of a captured table, with the name of its type. */
    record Column(String name, String type) {}

    /**
     * The delta of an increment column as PL/pgSQL, exact and unable to overflow: {@code smallint} and {@code integer}
     * subtract as {@code bigint}, {@code bigint} as {@code numeric}; null for a type that does not add exactly.
     */
    private static String deltaExpression(Column column) {
        String newValue = "NEW." + quote(column.name());
        String oldValue = "OLD." + quote(column.name());
        return switch (column.type()) {
            case "int2", "int4" -> newValue + "::int8 - " + oldValue + "::int8";
            case "int8" -> newValue + "::numeric - " + oldValue + "::numeric";
            case "numeric" -> newValue + " - " + oldValue;
            default -> null;
        };
    }

    private static void checkIncrementColumns(String table, List<Column> columns, Set<String> added)
            throws SQLException {
        for (String name : added) {
            Column column = columns.stream()
                    .filter(candidate -> candidate.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new SQLException(
                            "cannot capture increments of " + table + "." + name + ": no such column"));
            if (deltaExpression(column) == null) {
                throw new SQLException("cannot capture increments of " + table + "." + name + ": its type is "
                        + column.type() + ", and only smallint, integer, bigint and numeric add exactly");
            }
        }
    }

    /** The PL/pgSQL trigger function capturing {@code table}'s changes (see the class comment). */
    static String triggerFunction(String function, String table, List<Column> columns, List<String> key) {
        return triggerFunction(function, table, columns, key, Set.of());
    }

    /**
     * As above; for an update of a column of {@code increments} whose old and new values are both non-NULL, the entry
     * also carries {@code "+column": delta} right after the new value (issue 18). Other columns cost what they did.
     */
    static String triggerFunction(
            String function, String table, List<Column> columns, List<String> key, Set<String> increments) {
        String name = literal(table);
        StringBuilder body = new StringBuilder();
        body.append("DECLARE\n    entry text;\n    changes text;\nBEGIN\n")
                .append(
                        "    IF coalesce(current_setting('gargamel.capture', true), '') <> 'on' THEN\n        RETURN NULL;\n    END IF;\n")
                .append("    IF TG_OP = 'INSERT' THEN\n")
                .append("        entry := ")
                .append(name)
                .append(" || chr(31) || 'I' || chr(31) || row_to_json(NEW)::text;\n");
        if (key.isEmpty()) {
            body.append(
                    "    ELSE\n        RAISE EXCEPTION 'gargamel: % of a row of table % cannot be replicated: the table has no primary key "
                            + "(only inserts are replicated)', TG_OP, TG_TABLE_NAME USING ERRCODE = '0A000';\n");
        } else {
            String oldKey = "json_build_object("
                    + String.join(
                            ", ",
                            key.stream()
                                    .map(column -> literal(column) + ", OLD." + quote(column))
                                    .toList()) + ")::text";
            body.append("    ELSIF TG_OP = 'DELETE' THEN\n")
                    .append("        entry := ")
                    .append(name)
                    .append(" || chr(31) || 'D' || chr(31) || ")
                    .append(oldKey)
                    .append(";\n")
                    .append("    ELSIF ")
                    .append(String.join(
                            " OR ",
                            key.stream()
                                    .map(column -> "NEW." + quote(column) + " IS DISTINCT FROM OLD." + quote(column))
                                    .toList()))
                    .append(" THEN\n")
                    .append("        entry := ")
                    .append(name)
                    .append(" || chr(31) || 'D' || chr(31) || ")
                    .append(oldKey)
                    .append(" || chr(30) || ")
                    .append(name)
                    .append(" || chr(31) || 'I' || chr(31) || row_to_json(NEW)::text;\n")
                    .append("    ELSE\n        entry := '';\n");
            for (Column column : columns) {
                if (key.contains(column.name())) {
                    continue;
                }
                String newValue = "NEW." + quote(column.name());
                String oldValue = "OLD." + quote(column.name());
                String changed = EXACT_EQUALITY.contains(column.type())
                        ? newValue + " IS DISTINCT FROM " + oldValue
                        : newValue + "::text IS DISTINCT FROM " + oldValue + "::text";
                body.append("        IF ")
                        .append(changed)
                        .append(" THEN\n            entry := entry || ")
                        .append(literal(", " + jsonString(column.name()) + ": "))
                        .append(" || coalesce(to_json(")
                        .append(newValue)
                        .append(")::text, 'null');\n");
                if (increments.contains(column.name())) {
                    body.append("            IF ")
                            .append(newValue)
                            .append(" IS NOT NULL AND ")
                            .append(oldValue)
                            .append(" IS NOT NULL THEN\n                entry := entry || ")
                            .append(literal(", " + jsonString("+" + column.name()) + ": "))
                            .append(" || to_json(")
                            .append(deltaExpression(column))
                            .append(")::text;\n            END IF;\n");
                }
                body.append("        END IF;\n");
            }
            String newKey = String.join(
                    " || ', ' || ",
                    key.stream()
                            .map(column ->
                                    literal(jsonString(column) + ": ") + " || to_json(NEW." + quote(column) + ")::text")
                            .toList());
            body.append("        IF entry = '' THEN\n            RETURN NULL;\n        END IF;\n")
                    .append("        entry := ")
                    .append(name)
                    .append(" || chr(31) || 'U' || chr(31) || '{' || ")
                    .append(newKey)
                    .append(" || entry || '}';\n");
        }
        body.append("    END IF;\n")
                .append("    changes := coalesce(current_setting('gargamel.changes', true), '');\n")
                .append("    IF octet_length(changes) >= ")
                .append(CHUNK_BYTES)
                .append(" THEN\n")
                .append("        changes := ")
                .append(SCHEMA)
                .append(".spill(changes);\n")
                .append("    END IF;\n")
                // An assignment, not PERFORM: PL/pgSQL evaluates it as a simple expression, without the executor. The
                // entry and its separator are joined first, so the setting's text is copied once, not twice.
                .append("    entry := set_config('gargamel.changes', changes || (entry || chr(30)), true);\n")
                .append("    RETURN NULL;\nEND\n");
        String tag = "$capture$";
        for (int i = 0; body.indexOf(tag) >= 0; i++) {
            tag = "$capture" + i + "$";
        }
        return "CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS " + tag + "\n" + body
                + tag;
    }

    private static long tableOid(Connection connection, String qualified) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT ?::regclass::oid")) {
            query.setString(1, qualified);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static List<Column> columns(Connection connection, String qualified) throws SQLException {
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                 WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""")) {
            query.setString(1, qualified);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    columns.add(new Column(rows.getString(1), rows.getString(2)));
                }
            }
        }
        return columns;
    }

    /** {@code text} as a JSON string, quotes included. */
    static String jsonString(String text) {
        StringBuilder json = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }

    /** {@code text} as an SQL string literal. */
    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** Removes the triggers, the function and the schema; idempotent. The caller commits. */
    public static void uninstall(Connection connection) throws SQLException {
        List<String> triggered = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT n.nspname, c.relname FROM pg_trigger t
                  JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE t.tgname = ?""")) {
            query.setString(1, TRIGGER);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    triggered.add(quote(rows.getString(1)) + "." + quote(rows.getString(2)));
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String table : triggered) {
                statement.execute("DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + table);
            }
            statement.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        }
    }

    /**
     * Turns capture on for this session, and creates its spill table as the session's own login, writable by every
     * role: a call that names a role runs its trigger as that role, and a table created on first use by one role would
     * refuse another's chunks on the same worker (CallAsRoleTest). Commits.
     */
    public static void enableForSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET gargamel.capture = 'on'");
            statement.execute(SPILL_TABLE_DDL.replace("CREATE TEMP TABLE", "CREATE TEMP TABLE IF NOT EXISTS"));
            statement.execute("GRANT INSERT, SELECT ON " + SPILL_TABLE + " TO PUBLIC");
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    /** The changes of the current transaction so far, in the order they happened. Call just before commit. */
    public static List<WriteSet.RowChange> read(Connection connection) throws SQLException {
        String recorded;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(READ_CHANGES)) {
            rows.next();
            recorded = rows.getString(1);
        }
        return parse(recorded);
    }

    /**
     * Splits what the trigger recorded: entries end with the record separator (U+001E), fields are split by the unit
     * separator (U+001F). JSON text never holds a raw control character (they are escaped), so the split is exact.
     */
    public static List<WriteSet.RowChange> parse(String recorded) throws SQLException {
        List<WriteSet.RowChange> changes = new ArrayList<>();
        if (recorded == null || recorded.isEmpty()) {
            return changes;
        }
        int start = 0;
        while (start < recorded.length()) {
            int end = recorded.indexOf('\u001e', start);
            int first = recorded.indexOf('\u001f', start);
            int second = first < 0 ? -1 : recorded.indexOf('\u001f', first + 1);
            if (end < 0 || first < 0 || second < 0 || second > end) {
                throw new SQLException("malformed captured change at offset " + start + ": "
                        + recorded.substring(start, Math.min(recorded.length(), start + 80)));
            }
            String operation = recorded.substring(first + 1, second);
            WriteSet.Operation kind = switch (operation) {
                case "I" -> WriteSet.Operation.INSERT;
                case "U" -> WriteSet.Operation.UPDATE;
                case "D" -> WriteSet.Operation.DELETE;
                default -> throw new SQLException("unknown captured operation '" + operation + "'");
            };
            changes.add(new WriteSet.RowChange(
                    recorded.substring(start, first), kind, recorded.substring(second + 1, end)));
            start = end + 1;
        }
        return changes;
    }

    /** Ordinary tables of {@code schema} with their primary-key columns in key order (empty: no key). */
    public static Map<String, List<String>> tables(Connection connection, String schema) throws SQLException {
        Map<String, List<String>> tables = new LinkedHashMap<>();
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname""")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    tables.put(rows.getString(1), new ArrayList<>());
                }
            }
        }
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT c.relname, a.attname
                  FROM pg_index i
                  JOIN pg_class c ON c.oid = i.indrelid
                  JOIN pg_namespace n ON n.oid = c.relnamespace
                  JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
                  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                 WHERE i.indisprimary AND n.nspname = ?
                 ORDER BY c.relname, k.position""")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    List<String> key = tables.get(rows.getString(1));
                    if (key != null) {
                        key.add(rows.getString(2));
                    }
                }
            }
        }
        return tables;
    }
}
