package org.gargamel.tpcc.loader;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.common.convergence.TableChecksum;

/** The checker's per-table checksums as a map, for tests that compare a database before and after. */
public final class TableChecksums {
    private TableChecksums() {}

    public static Map<String, String> of(Connection connection) {
        Map<String, String> checksums = new LinkedHashMap<>();
        for (TableChecksum table : new org.gargamel.common.convergence.TableChecksums(
                        org.gargamel.tpcc.check.CheckRunner.TABLES)
                .compute(connection, "db")
                .tables()) {
            checksums.put(table.table(), table.rows() + ":" + table.checksum());
        }
        return checksums;
    }
}
