package org.gargamel.node.apply;

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
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * Applies write-sets of other replicas (DESIGN.md §5) inside the caller's transaction, on a connection set to
 * {@code session_replication_role = replica} so that no user trigger fires (nor the capture trigger). Column-wise:
 * an update sets only the columns it carries, so two column-disjoint updates of one row, executed at two replicas,
 * commute. Consecutive changes of the same table, operation and columns go in one statement over
 * {@code jsonb_populate_recordset}; every statement must touch exactly the rows it names, otherwise the replicas have
 * diverged and the apply fails with the table and the first row.
 */
public final class WriteSetApplier {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connection connection;
    private final Map<String, List<String>> primaryKeys = new HashMap<>();
    private final Map<String, PreparedStatement> statements = new HashMap<>();

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
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    /** A run of consecutive changes of one shape. */
    private record Batch(String table, WriteSet.Operation operation, List<String> columns, List<String> rows) {
    }

    /** Applies {@code changes} in order in the current transaction; returns the rows touched. */
    public int apply(List<WriteSet.RowChange> changes) throws SQLException {
        if (changes.isEmpty()) {
            return 0;
        }
        int touched = 0;
        for (Batch batch : batches(changes)) {
            touched += run(batch);
        }
        return touched;
    }

    private List<Batch> batches(List<WriteSet.RowChange> changes) throws SQLException {
        List<Batch> batches = new ArrayList<>();
        Batch current = null;
        Set<String> keysInBatch = new HashSet<>();
        for (WriteSet.RowChange change : changes) {
            JsonNode row = parse(change);
            List<String> columns = new ArrayList<>();
            for (Iterator<String> names = row.fieldNames(); names.hasNext(); ) {
                columns.add(names.next());
            }
            String key = change.operation() == WriteSet.Operation.INSERT ? null : rowKey(change.table(), row);
            boolean fits = current != null && current.table().equals(change.table())
                    && current.operation() == change.operation() && current.columns().equals(columns)
                    && (key == null || !keysInBatch.contains(key));
            if (!fits) {
                current = new Batch(change.table(), change.operation(), columns, new ArrayList<>());
                batches.add(current);
                keysInBatch.clear();
            }
            current.rows().add(change.row());
            if (key != null) {
                keysInBatch.add(key);
            }
        }
        return batches;
    }

    private int run(Batch batch) throws SQLException {
        PreparedStatement statement = statement(batch);
        StringBuilder array = new StringBuilder("[");
        for (int i = 0; i < batch.rows().size(); i++) {
            array.append(i == 0 ? "" : ",").append(batch.rows().get(i));
        }
        statement.setString(1, array.append(']').toString());
        int touched = statement.executeUpdate();
        if (touched != batch.rows().size()) {
            throw new SQLException(batch.operation() + " of " + batch.rows().size() + " row(s) of table " + batch.table()
                    + " touched " + touched + ": the replicas have diverged (first row: " + batch.rows().get(0) + ")",
                    "GA901");
        }
        return touched;
    }

    private PreparedStatement statement(Batch batch) throws SQLException {
        String table = quote(batch.table());
        List<String> key = primaryKey(batch.table());
        StringBuilder sql = new StringBuilder();
        switch (batch.operation()) {
            case INSERT -> {
                String columns = String.join(", ", batch.columns().stream().map(WriteSetApplier::quote).toList());
                sql.append("INSERT INTO ").append(table).append(" (").append(columns).append(") SELECT ").append(columns)
                        .append(" FROM jsonb_populate_recordset(null::").append(table).append(", ?::jsonb)");
            }
            case UPDATE -> {
                requireKey(batch, key);
                sql.append("UPDATE ").append(table).append(" AS x SET ");
                boolean first = true;
                for (String column : batch.columns()) {
                    if (!key.contains(column)) {
                        sql.append(first ? "" : ", ").append(quote(column)).append(" = r.").append(quote(column));
                        first = false;
                    }
                }
                if (first) {
                    throw new SQLException("an update of table " + batch.table() + " carries no column besides its key: "
                            + batch.rows().get(0));
                }
                sql.append(" FROM jsonb_populate_recordset(null::").append(table).append(", ?::jsonb) AS r WHERE ")
                        .append(keyMatch(key));
            }
            case DELETE -> {
                requireKey(batch, key);
                sql.append("DELETE FROM ").append(table).append(" AS x USING jsonb_populate_recordset(null::")
                        .append(table).append(", ?::jsonb) AS r WHERE ").append(keyMatch(key));
            }
        }
        String text = sql.toString();
        PreparedStatement statement = statements.get(text);
        if (statement == null) {
            statement = connection.prepareStatement(text);
            statements.put(text, statement);
        }
        return statement;
    }

    private static String keyMatch(List<String> key) {
        StringBuilder match = new StringBuilder();
        for (String column : key) {
            match.append(match.length() == 0 ? "" : " AND ").append("x.").append(quote(column)).append(" = r.")
                    .append(quote(column));
        }
        return match.toString();
    }

    private static void requireKey(Batch batch, List<String> key) throws SQLException {
        if (key.isEmpty()) {
            throw new SQLException(batch.operation() + " of table " + batch.table()
                    + " cannot be applied: the table has no primary key here");
        }
        for (String column : key) {
            if (!batch.columns().contains(column)) {
                throw new SQLException(batch.operation() + " of table " + batch.table() + " lacks key column " + column
                        + ": " + batch.rows().get(0));
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
            key = tables.get(table);
        }
        return key;
    }

    private String rowKey(String table, JsonNode row) throws SQLException {
        StringBuilder key = new StringBuilder();
        for (String column : primaryKey(table)) {
            key.append(row.path(column).toString()).append('\u0001');
        }
        return key.toString();
    }

    private static JsonNode parse(WriteSet.RowChange change) throws SQLException {
        try {
            JsonNode row = JSON.readTree(change.row());
            if (row == null || !row.isObject()) {
                throw new SQLException("a change of table " + change.table() + " is not a JSON object: " + change.row());
            }
            return row;
        } catch (IOException e) {
            throw new SQLException("a change of table " + change.table() + " is not valid JSON: " + change.row(), e);
        }
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
