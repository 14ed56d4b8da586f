package org.gargamel.node.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.common.wire.WriteSet;

/**
 * Generic, column-granular write-set capture (DESIGN.md §5; docs/node.md). One plpgsql row trigger on every table of
 * the schema appends to the transaction-local setting {@code gargamel.changes} (so it vanishes at commit or
 * rollback, with no table to truncate and no plan to invalidate): for an INSERT the new row, for an
 * UPDATE the primary key plus only the columns whose value changed, for a DELETE the primary key — as {@code to_jsonb}
 * writes them, so numeric scale, timestamps, text, arrays and NULL survive exactly. The trigger does nothing unless
 * the session turned capture on ({@link #enableForSession}), so other users of the database are unaffected, and it
 * stays quiet while a node applies write-sets ({@code session_replication_role = replica}).
 *
 * <p>A table without a primary key gets insert-only capture (TPC-C's history); an UPDATE or DELETE of it while
 * capture is on fails with SQLSTATE 0A000, because no replica could find the row. An UPDATE that changes a primary
 * key is recorded as a DELETE of the old key and an INSERT of the new row. TRUNCATE is not captured.
 */
public final class WriteSetCapture {
    public static final String SCHEMA = "gargamel";
    public static final String TRIGGER = "gargamel_capture";

    private static final String FUNCTION = """
            CREATE OR REPLACE FUNCTION gargamel.record(tbl text, op text, row_data jsonb) RETURNS void LANGUAGE plpgsql AS $record$
            BEGIN
                PERFORM set_config('gargamel.changes',
                    coalesce(current_setting('gargamel.changes', true), '') || tbl || chr(31) || op || chr(31) || row_data::text || chr(30),
                    true);
            END
            $record$;
            CREATE OR REPLACE FUNCTION gargamel.capture() RETURNS trigger LANGUAGE plpgsql AS $function$
            DECLARE
                new_row jsonb;
                old_row jsonb;
                changed jsonb;
                key_row jsonb := '{}'::jsonb;
                key_column text;
                key_changed boolean := false;
            BEGIN
                IF coalesce(current_setting('gargamel.capture', true), '') <> 'on' THEN
                    RETURN NULL;
                END IF;
                IF TG_OP = 'INSERT' THEN
                    PERFORM gargamel.record(TG_TABLE_NAME, 'I', to_jsonb(NEW));
                    RETURN NULL;
                END IF;
                IF TG_NARGS = 0 THEN
                    RAISE EXCEPTION 'gargamel: % of a row of table % cannot be replicated: the table has no primary key (only inserts are replicated)',
                        TG_OP, TG_TABLE_NAME USING ERRCODE = '0A000';
                END IF;
                old_row := to_jsonb(OLD);
                FOREACH key_column IN ARRAY TG_ARGV LOOP
                    key_row := key_row || jsonb_build_object(key_column, old_row -> key_column);
                END LOOP;
                IF TG_OP = 'DELETE' THEN
                    PERFORM gargamel.record(TG_TABLE_NAME, 'D', key_row);
                    RETURN NULL;
                END IF;
                new_row := to_jsonb(NEW);
                FOREACH key_column IN ARRAY TG_ARGV LOOP
                    IF (new_row -> key_column) IS DISTINCT FROM (old_row -> key_column) THEN
                        key_changed := true;
                    END IF;
                END LOOP;
                IF key_changed THEN
                    PERFORM gargamel.record(TG_TABLE_NAME, 'D', key_row);
                    PERFORM gargamel.record(TG_TABLE_NAME, 'I', new_row);
                    RETURN NULL;
                END IF;
                SELECT coalesce(jsonb_object_agg(n.key, n.value), '{}'::jsonb) INTO changed
                  FROM jsonb_each(new_row) AS n
                 WHERE n.value IS DISTINCT FROM old_row -> n.key;
                IF changed = '{}'::jsonb THEN
                    RETURN NULL;
                END IF;
                PERFORM gargamel.record(TG_TABLE_NAME, 'U', key_row || changed);
                RETURN NULL;
            END
            $function$""";

    private WriteSetCapture() {
    }

    /**
     * Installs capture on every table of {@code schema}; idempotent (re-running replaces the function and the
     * triggers, and covers tables created since). The caller commits.
     */
    public static CaptureInstallation install(Connection connection, String schema) throws SQLException {
        Map<String, List<String>> tables = tables(connection, schema);
        List<String> keyed = new ArrayList<>();
        List<String> insertOnly = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            statement.execute(FUNCTION);
            for (Map.Entry<String, List<String>> table : tables.entrySet()) {
                String qualified = quote(schema) + "." + quote(table.getKey());
                StringBuilder arguments = new StringBuilder();
                for (String column : table.getValue()) {
                    arguments.append(arguments.length() == 0 ? "" : ", ").append('\'').append(column.replace("'", "''"))
                            .append('\'');
                }
                statement.execute("DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + qualified);
                statement.execute("CREATE TRIGGER " + TRIGGER + " AFTER INSERT OR UPDATE OR DELETE ON " + qualified
                        + " FOR EACH ROW EXECUTE FUNCTION " + SCHEMA + ".capture(" + arguments + ")");
                (table.getValue().isEmpty() ? insertOnly : keyed).add(table.getKey());
            }
        }
        return new CaptureInstallation(keyed, insertOnly);
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

    /** Turns capture on for this session. Commits. */
    public static void enableForSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET gargamel.capture = 'on'");
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    /** The changes of the current transaction so far, in the order they happened. Call just before commit. */
    public static List<WriteSet.RowChange> read(Connection connection) throws SQLException {
        String recorded;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT current_setting('gargamel.changes', true)")) {
            rows.next();
            recorded = rows.getString(1);
        }
        return parse(recorded);
    }

    /**
     * Splits what the trigger recorded: entries end with the record separator (U+001E), fields are split by the unit
     * separator (U+001F). JSON text never holds a raw control character (they are escaped), so the split is exact.
     */
    static List<WriteSet.RowChange> parse(String recorded) throws SQLException {
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
            changes.add(new WriteSet.RowChange(recorded.substring(start, first), kind, recorded.substring(second + 1, end)));
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

    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
