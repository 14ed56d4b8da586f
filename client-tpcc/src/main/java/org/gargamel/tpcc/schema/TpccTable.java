package org.gargamel.tpcc.schema;

import java.util.List;

/**
 * One table of the TPC-C schema (clause 1.3) and its primary-key columns in key order; empty for
 * {@code history}, which has no primary key.
 */
public record TpccTable(String name, List<String> primaryKey) {
    public TpccTable {
        primaryKey = List.copyOf(primaryKey);
    }

    public boolean hasPrimaryKey() {
        return !primaryKey.isEmpty();
    }
}
