package org.gargamel.node.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * The primary-key columns of the replicated tables, read from the catalogue once, to name the rows a write-set
 * touches (certification compares rows: table plus key values).
 */
public final class PrimaryKeys {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, List<String>> keys;
    /**
     * Tables with a unique index besides their primary key: two changes of different rows of one may still collide
     * (a value freed by one and taken by the other), so parallel apply orders the table's changes as one.
     */
    private final Set<String> otherUniqueKeys;

    private PrimaryKeys(Map<String, List<String>> keys, Set<String> otherUniqueKeys) {
        this.keys = keys;
        this.otherUniqueKeys = otherUniqueKeys;
    }

    /** Key columns by table, and the tables with another unique index, as given (unit tests). */
    public static PrimaryKeys of(Map<String, List<String>> keys, Set<String> otherUniqueKeys) {
        return new PrimaryKeys(Map.copyOf(keys), Set.copyOf(otherUniqueKeys));
    }

    public static PrimaryKeys read(Connection connection, String schema) throws SQLException {
        Map<String, List<String>> keys = new HashMap<>();
        for (Map.Entry<String, List<String>> table :
                WriteSetCapture.tables(connection, schema).entrySet()) {
            if (!table.getValue().isEmpty()) {
                keys.put(table.getKey(), table.getValue());
            }
        }
        Set<String> otherUnique = new HashSet<>();
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT DISTINCT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = ? AND i.indisunique AND NOT i.indisprimary")) {
            statement.setString(1, schema);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    otherUnique.add(rows.getString(1));
                }
            }
        }
        connection.commit();
        return new PrimaryKeys(keys, otherUnique);
    }

    /** The key columns of every keyed table, by table. */
    public Map<String, List<String>> all() {
        return keys;
    }

    /**
     * What orders a write-set's changes against other write-sets' in parallel apply: each changed row ({@link
     * #rowKey}), or the whole table where rows alone do not tell a collision (no primary key, or another unique
     * index).
     */
    public Set<String> applyKeys(WriteSet writeSet) {
        Set<String> touched = new HashSet<>();
        for (WriteSet.RowChange change : writeSet.changes()) {
            String key = otherUniqueKeys.contains(change.table()) ? null : rowKey(change);
            touched.add(key == null ? change.table() : key);
        }
        return touched;
    }

    /** {@code table:v1,v2} for a change of a keyed table; null for tables without a key (insert-only). */
    public String rowKey(WriteSet.RowChange change) {
        List<String> columns = keys.get(change.table());
        if (columns == null) {
            return null;
        }
        try {
            JsonNode row = JSON.readTree(change.row());
            StringBuilder key = new StringBuilder(change.table()).append(':');
            for (String column : columns) {
                key.append(row.path(column).asText()).append(',');
            }
            return key.toString();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(
                    "write-set row of " + change.table() + " is not JSON: " + change.row(), e);
        }
    }
}
