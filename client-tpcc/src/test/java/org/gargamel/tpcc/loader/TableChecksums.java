package org.gargamel.tpcc.loader;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.schema.TpccTable;

/** An md5 per table over its rows' text, in primary-key order (history: in the order of the row hashes). */
public final class TableChecksums {
    private TableChecksums() {
    }

    public static Map<String, String> of(Connection connection) throws SQLException {
        Map<String, String> checksums = new LinkedHashMap<>();
        for (TpccTable table : TpccSchema.TABLES) {
            String order = table.hasPrimaryKey()
                    ? String.join(", ", table.primaryKey().stream().map(column -> "t." + column).toList())
                    : "md5(t::text)";
            checksums.put(table.name(), checksum(connection, table.name(), order));
        }
        checksums.put(TpccSchema.LOAD_INFO_TABLE, checksum(connection, TpccSchema.LOAD_INFO_TABLE, "t::text"));
        return checksums;
    }

    private static String checksum(Connection connection, String table, String order) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) || ':' || coalesce(md5(string_agg(md5(t::text), '' ORDER BY "
                        + order + ")), '-') FROM " + table + " t")) {
            rows.next();
            return rows.getString(1);
        }
    }
}
