package org.gargamel.classifier;

import java.util.List;

/**
 * A table the rules write: its primary-key columns (empty for a table without one, which can then only
 * take fresh inserts) and all its columns.
 */
public record TableRule(String name, List<String> key, List<String> columns) {
    public TableRule {
        key = List.copyOf(key);
        columns = List.copyOf(columns);
    }
}
