package org.gargamel.classifier;

import java.util.List;
import java.util.Set;

/**
 * What a procedure may write to one table: an update of some columns, an insert or a delete (whole rows),
 * at the rows its key designates. A fresh insert creates rows whose key nobody else can produce, so it conflicts
 * with nothing and takes no key; {@code freshKey} says why (null for any other write).
 */
public record WriteRule(
        Operation operation, TableRule table, List<KeyPart> key, Set<String> columns, FreshKey freshKey, int line) {
    public enum Operation {
        UPDATE,
        INSERT,
        DELETE
    }

    public WriteRule {
        key = List.copyOf(key);
        columns = Set.copyOf(columns);
    }

    /** Whether this is a fresh insert (see {@link FreshKey}). */
    public boolean fresh() {
        return freshKey != null;
    }

    /** The columns this write touches: the listed ones for an update, every column for an insert or delete. */
    public Set<String> touchedColumns() {
        return operation == Operation.UPDATE ? columns : Set.copyOf(table.columns());
    }
}
