package org.gargamel.node.apply;

import static org.gargamel.common.jdbc.Identifiers.quote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.writeset.ReplicaState;

/**
 * Applies write-sets of other replicas (DESIGN.md §5) inside the caller's transaction, on a connection set to
 * {@code session_replication_role = replica} so that no user trigger fires (nor the capture trigger). Column-wise:
 * an update sets only the columns it carries, so two column-disjoint updates of one row, executed at two replicas,
 * commute. Changes of the same table, operation and columns go in one statement over {@code jsonb_populate_recordset}
 * (across the whole list of changes, as long as a table's changes and each row's keep their order: {@link #batches}),
 * and all the statements go to the server in one round trip (and one more, once per connection, for each new shape:
 * {@link #prepared}). Every statement must touch exactly
 * the rows it names, otherwise the replicas have diverged and the apply fails with the table and the first row. An
 * {@code ADD} (issue 18) adds its deltas ({@code col = col + delta}), so increments of one cell from different replicas
 * commute.
 */
public final class WriteSetApplier {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection connection;
    private final Map<String, List<String>> primaryKeys = new HashMap<>();
    /** Generated (computed) columns by table, read with the primary keys: each replica computes them itself. */
    private final Map<String, Set<String>> generatedColumns = new HashMap<>();

    /**
     * The most shapes of statement this connection keeps prepared: a table's updates of different column sets are
     * different shapes, and a wide table updated every way could otherwise prepare without end. Beyond it a shape's
     * statement is sent as it is, parsed and planned each time, as every statement was before.
     */
    static final int MAX_PREPARED = 512;

    /** Names of prepared statements, unique in the process: two appliers on one connection never collide. */
    private static final AtomicLong PREPARED_NAMES = new AtomicLong();

    /**
     * Statements prepared on this connection ({@code PREPARE}), by text: the name each runs under. A write-set's
     * statements are of a few recurring shapes, but a group's pipeline (the shapes of its write-sets, in their order)
     * rarely has a text seen before, so each of its statements used to be parsed and planned every time: 7% of a
     * replica's PostgreSQL CPU at three replicas (docs/costs.md, Third round). A shape is prepared once, in a round
     * trip of its own the first time it comes, and runs as {@code EXECUTE name ($r..$<rows>$r..$)}: PostgreSQL
     * parses that in a few microseconds and runs the plan it keeps ({@code plan_cache_mode = force_generic_plan}).
     * The rows are a dollar-quoted literal ({@link #literal}) because EXECUTE, a utility statement, takes no bind
     * parameter. PREPARE is not undone by a rollback, so a name recorded here stays valid for the connection's life
     * (CaptureAndApplyTest, theApplyStatementsArePreparedOncePerShape).
     */
    private final Map<String, String> prepared = new HashMap<>();

    /**
     * Dedicates {@code connection} to applying: {@code session_replication_role = replica} and index nested loops
     * for the whole session, set once and committed (changing session_replication_role discards every cached plan,
     * so it must not be set per transaction).
     */
    public WriteSetApplier(Connection connection) throws SQLException {
        this.connection = connection;
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET session_replication_role = replica");
            // The planner guesses 100 rows for jsonb_populate_recordset and may hash-join a whole table (order_line)
            // to update ten rows; a write-set names rows by primary key, so index nested loops are always right.
            statement.execute("SET enable_hashjoin = off");
            statement.execute("SET enable_mergejoin = off");
            statement.execute("SET enable_seqscan = off");
            // One plan per prepared shape, made once: a write-set's rows never change the right plan.
            statement.execute("SET plan_cache_mode = force_generic_plan");
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    /** Changes of one shape, applied by one statement. */
    private static final class Batch {
        final String table;
        final WriteSet.Operation operation;
        final List<String> columns;
        final List<String> rows = new ArrayList<>();
        /** The primary keys of its rows (none for a table without one). */
        final Set<String> keys = new HashSet<>();
        /** Index in the write-set of the last change added. */
        int last;

        Batch(String table, WriteSet.Operation operation, List<String> columns) {
            this.table = table;
            this.operation = operation;
            this.columns = columns;
        }
    }

    /** Applies {@code changes} in order in the current transaction; returns the rows touched. */
    public int apply(List<WriteSet.RowChange> changes) throws SQLException {
        return apply(changes, ReplicaState.Bookkeeping.NONE);
    }

    /**
     * Applies {@code changes} in order in the current transaction and, in the same round trip, records
     * {@code bookkeeping} (the replica's position in the write-set log, its committed_ahead rows). Returns the rows the
     * changes touched.
     */
    public int apply(List<WriteSet.RowChange> changes, ReplicaState.Bookkeeping bookkeeping) throws SQLException {
        return apply(changes, bookkeeping, 0);
    }

    /**
     * The same, and if {@code lockTimeoutMillis} is positive no statement waits longer than that for a row lock
     * ({@code SET LOCAL lock_timeout}, in the same round trip): it fails with SQLState 55P03 instead. A group of
     * write-sets applied together (ApplyLoop) gives way so to a local call it would deadlock with, rather than wait
     * for PostgreSQL to abort one of the two.
     */
    public int apply(List<WriteSet.RowChange> changes, ReplicaState.Bookkeeping bookkeeping, int lockTimeoutMillis)
            throws SQLException {
        List<Batch> batches = changes.isEmpty() ? List.of() : batches(changes);
        StringBuilder sql = new StringBuilder();
        boolean bounded = lockTimeoutMillis > 0 && !batches.isEmpty();
        if (bounded) {
            sql.append("SET LOCAL lock_timeout = ").append(lockTimeoutMillis);
        }
        List<String> parameters = new ArrayList<>();
        for (Batch batch : batches) {
            String rows = rowsJson(batch);
            String text = statement(batch);
            String name = prepared(text.replace("?::jsonb", "$1"), "jsonb");
            if (name == null) {
                sql.append(sql.length() == 0 ? "" : "; ").append(text);
                parameters.add(rows);
            } else {
                sql.append(sql.length() == 0 ? "" : "; ")
                        .append("EXECUTE ")
                        .append(name)
                        .append(" (")
                        .append(literal(rows))
                        .append(')');
            }
        }
        for (ReplicaState.Step step : bookkeeping.steps()) {
            String name = prepared(step.sql(), step.type());
            sql.append(sql.length() == 0 ? "" : "; ")
                    .append(name == null ? step.inlined() : "EXECUTE " + name + " (" + step.literal() + ")");
        }
        if (sql.length() == 0) {
            return 0;
        }
        // One text for the whole write-set (or group): its statements go out as one pipeline with a single Sync.
        try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                statement.setString(i + 1, parameters.get(i));
            }
            boolean isResultSet = statement.execute();
            if (bounded) {
                isResultSet = statement.getMoreResults(); // past the SET
            }
            int touched = 0;
            for (Batch batch : batches) {
                int count = isResultSet ? -1 : statement.getUpdateCount();
                if (count != batch.rows.size()) {
                    throw new SQLException(
                            batch.operation + " of " + batch.rows.size() + " row(s) of table "
                                    + batch.table + " touched " + count + ": the replicas have diverged (first row: "
                                    + batch.rows.get(0) + ")",
                            "GA901");
                }
                touched += count;
                isResultSet = statement.getMoreResults();
            }
            return touched;
        }
    }

    /**
     * Groups the changes into statements. A change joins the statement of its shape (table, operation, columns) if the
     * latest change to its table is in that statement and its row is not: only changes to other tables move past each
     * other (a New-Order's stock updates and order lines alternate; write-sets applied together, ApplyLoop), which
     * commutes, because they touch different rows and with {@code session_replication_role = replica} no foreign-key
     * trigger checks the order, while a table's own changes keep their order (a unique key freed by a delete and taken
     * by an insert), and a row changed twice is changed by two statements in turn.
     */
    private List<Batch> batches(List<WriteSet.RowChange> changes) throws SQLException {
        List<Batch> batches = new ArrayList<>();
        Map<String, Batch> byShape = new HashMap<>();
        Map<String, Integer> lastOfTable = new HashMap<>();
        for (int i = 0; i < changes.size(); i++) {
            WriteSet.RowChange change = changes.get(i);
            JsonNode row = parse(change);
            String key = rowKey(change.table(), row);
            List<String> columns = new ArrayList<>();
            for (Iterator<String> names = row.fieldNames(); names.hasNext(); ) {
                columns.add(names.next());
            }
            String shape = change.table() + '\u0001' + change.operation() + '\u0001' + columns;
            Batch current = byShape.get(shape);
            Integer previous = lastOfTable.get(change.table());
            boolean joins = current != null
                    && previous != null
                    && previous == current.last
                    && (key == null || !current.keys.contains(key));
            if (!joins) {
                current = new Batch(change.table(), change.operation(), columns);
                byShape.put(shape, current);
                batches.add(current);
            }
            current.rows.add(change.row());
            if (key != null) {
                current.keys.add(key);
            }
            current.last = i;
            lastOfTable.put(change.table(), i);
        }
        return batches;
    }

    /** The rows of {@code batch} as one JSON array. */
    private static String rowsJson(Batch batch) {
        StringBuilder array = new StringBuilder("[");
        for (int j = 0; j < batch.rows.size(); j++) {
            array.append(j == 0 ? "" : ",").append(batch.rows.get(j));
        }
        return array.append(']').toString();
    }

    /**
     * {@code text} as a dollar-quoted SQL string, with a tag that does not occur in it: nothing inside means anything,
     * whatever {@code standard_conforming_strings} says, and the rows are other replicas' data (quotes, backslashes,
     * "?", "$1" and tags arrive as they were: theApplyStatementsArePreparedOncePerShape). The tag is random, so a
     * client cannot write the tags it will be tried with: one scan of the text, where counting $r0$, $r1$, ... could
     * be made to scan it a million times.
     */
    static String literal(String text) {
        String tag;
        do {
            tag = "$r" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + "$";
        } while (text.contains(tag));
        return tag + text + tag;
    }

    /**
     * The name {@code statement} (one parameter, {@code $1} of {@code type}) is prepared under on this connection,
     * prepared now if it is new; null once {@link #MAX_PREPARED} shapes are.
     */
    private String prepared(String statement, String type) throws SQLException {
        String name = prepared.get(statement);
        if (name == null && prepared.size() < MAX_PREPARED) {
            name = "gargamel_apply_" + PREPARED_NAMES.incrementAndGet();
            try (Statement prepare = connection.createStatement()) {
                prepare.execute("PREPARE " + name + " (" + type + ") AS " + statement);
            }
            prepared.put(statement, name);
        }
        return name;
    }

    private String statement(Batch batch) throws SQLException {
        String table = quote(batch.table);
        List<String> key = primaryKey(batch.table);
        Set<String> generated = generatedColumns.getOrDefault(batch.table, Set.of());
        StringBuilder sql = new StringBuilder();
        switch (batch.operation) {
            case INSERT -> {
                // The whole row as the origin inserted it: its identity values too (OVERRIDING SYSTEM VALUE, or a
                // GENERATED ALWAYS identity column refuses them), but not its generated columns, which PostgreSQL
                // computes here and refuses to take.
                String columns = String.join(
                        ", ",
                        batch.columns.stream()
                                .filter(column -> !generated.contains(column))
                                .map(org.gargamel.common.jdbc.Identifiers::quote)
                                .toList());
                sql.append("INSERT INTO ")
                        .append(table)
                        .append(" (")
                        .append(columns)
                        .append(") OVERRIDING SYSTEM VALUE SELECT ")
                        .append(columns)
                        .append(" FROM jsonb_populate_recordset(null::")
                        .append(table)
                        .append(", ?::jsonb)");
            }
            case UPDATE -> {
                requireKey(batch, key);
                sql.append("UPDATE ").append(table).append(" AS x SET ");
                boolean first = true;
                for (String column : batch.columns) {
                    if (!key.contains(column) && !generated.contains(column)) {
                        sql.append(first ? "" : ", ")
                                .append(quote(column))
                                .append(" = r.")
                                .append(quote(column));
                        first = false;
                    }
                }
                if (first) {
                    throw new SQLException("an update of table " + batch.table + " carries no column besides its key: "
                            + batch.rows.get(0));
                }
                sql.append(" FROM jsonb_populate_recordset(null::")
                        .append(table)
                        .append(", ?::jsonb) AS r WHERE ")
                        .append(keyMatch(key));
            }
            case ADD -> addStatement(batch, key, generated, sql);
            case DELETE -> {
                requireKey(batch, key);
                sql.append("DELETE FROM ")
                        .append(table)
                        .append(" AS x USING jsonb_populate_recordset(null::")
                        .append(table)
                        .append(", ?::jsonb) AS r WHERE ")
                        .append(keyMatch(key));
            }
        }
        return sql.toString();
    }

    /**
     * An update that adds (issue 18): {@code "+c": delta} members become {@code c = x.c + delta}, the others are set
     * like an UPDATE's. The row comes through {@code jsonb_populate_record} (which ignores the {@code "+c"} members) for
     * the key and the plain values, and each delta is read as {@code numeric}, exact whatever the column's type; the
     * sum is assigned back to the column's type, as exact (an integer plus an integer delta), or failing if out of range
     * as the origin's own update would have. A row whose cell is NULL here (at the origin it was not) is not updated,
     * so the statement touches fewer rows than it names and the divergence is caught.
     */
    private static void addStatement(Batch batch, List<String> key, Set<String> generated, StringBuilder sql)
            throws SQLException {
        requireKey(batch, key);
        String table = quote(batch.table);
        sql.append("UPDATE ").append(table).append(" AS x SET ");
        StringBuilder notNull = new StringBuilder();
        boolean first = true;
        for (String column : batch.columns) {
            if (key.contains(column) || generated.contains(column)) {
                continue;
            }
            sql.append(first ? "" : ", ");
            first = false;
            if (column.startsWith("+")) {
                String target = quote(column.substring(1));
                sql.append(target)
                        .append(" = x.")
                        .append(target)
                        .append(" + (e.value ->> ")
                        .append(WriteSetCapture.literal(column))
                        .append(")::numeric");
                notNull.append(" AND x.").append(target).append(" IS NOT NULL");
            } else {
                sql.append(quote(column)).append(" = r.").append(quote(column));
            }
        }
        if (notNull.length() == 0) {
            throw new SQLException(
                    "an add to table " + batch.table + " carries no delta (\"+column\"): " + batch.rows.get(0));
        }
        sql.append(" FROM jsonb_array_elements(?::jsonb) AS e, LATERAL jsonb_populate_record(null::")
                .append(table)
                .append(", e.value) AS r WHERE ")
                .append(keyMatch(key))
                .append(notNull);
    }

    private static String keyMatch(List<String> key) {
        StringBuilder match = new StringBuilder();
        for (String column : key) {
            match.append(match.length() == 0 ? "" : " AND ")
                    .append("x.")
                    .append(quote(column))
                    .append(" = r.")
                    .append(quote(column));
        }
        return match.toString();
    }

    private static void requireKey(Batch batch, List<String> key) throws SQLException {
        if (key.isEmpty()) {
            throw new SQLException(batch.operation + " of table " + batch.table
                    + " cannot be applied: the table has no primary key here");
        }
        for (String column : key) {
            if (!batch.columns.contains(column)) {
                throw new SQLException(batch.operation + " of table " + batch.table + " lacks key column " + column
                        + ": " + batch.rows.get(0));
            }
        }
    }

    private List<String> primaryKey(String table) throws SQLException {
        List<String> key = primaryKeys.get(table);
        if (key == null) {
            Map<String, List<String>> tables = WriteSetCapture.tables(connection, "public");
            if (!tables.containsKey(table)) {
                throw new SQLException("write-set names table " + table + ", which does not exist here");
            }
            primaryKeys.putAll(tables);
            generatedColumns.clear();
            generatedColumns.putAll(generatedColumns(connection, "public"));
            key = tables.get(table);
        }
        return key;
    }

    /** The generated columns ({@code GENERATED ALWAYS AS (...)}) of every table of {@code schema} that has some. */
    private static Map<String, Set<String>> generatedColumns(Connection connection, String schema) throws SQLException {
        Map<String, Set<String>> generated = new HashMap<>();
        try (PreparedStatement query = connection.prepareStatement("""
                SELECT c.relname, a.attname FROM pg_attribute a
                  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = ? AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''""")) {
            query.setString(1, schema);
            try (java.sql.ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    generated
                            .computeIfAbsent(rows.getString(1), table -> new HashSet<>())
                            .add(rows.getString(2));
                }
            }
        }
        return generated;
    }

    /** The row's primary-key values, or null for a table without a key (insert-only: its rows are never named). */
    private String rowKey(String table, JsonNode row) throws SQLException {
        List<String> columns = primaryKey(table);
        if (columns.isEmpty()) {
            return null;
        }
        StringBuilder key = new StringBuilder();
        for (String column : columns) {
            key.append(row.path(column).toString()).append('\u0001');
        }
        return key.toString();
    }

    private static JsonNode parse(WriteSet.RowChange change) throws SQLException {
        try {
            JsonNode row = JSON.readTree(change.row());
            if (row == null || !row.isObject()) {
                throw new SQLException(
                        "a change of table " + change.table() + " is not a JSON object: " + change.row());
            }
            return row;
        } catch (IOException e) {
            throw new SQLException("a change of table " + change.table() + " is not valid JSON: " + change.row(), e);
        }
    }
}
