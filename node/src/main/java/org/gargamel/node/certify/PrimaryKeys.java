package org.gargamel.node.certify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * The primary-key columns of the replicated tables, read from the catalogue once, to name the rows a write-set
 * touches (certification compares rows: table plus key values).
 */
public final class PrimaryKeys {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, List<String>> keys;

    private PrimaryKeys(Map<String, List<String>> keys) {
        this.keys = keys;
    }

    public static PrimaryKeys read(Connection connection, String schema) throws SQLException {
        Map<String, List<String>> keys = new HashMap<>();
        for (Map.Entry<String, List<String>> table :
                WriteSetCapture.tables(connection, schema).entrySet()) {
            if (!table.getValue().isEmpty()) {
                keys.put(table.getKey(), table.getValue());
            }
        }
        connection.commit();
        return new PrimaryKeys(keys);
    }

    /** The key columns of every keyed table, by table. */
    public Map<String, List<String>> all() {
        return keys;
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
