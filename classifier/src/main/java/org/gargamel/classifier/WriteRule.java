package org.gargamel.classifier;

import java.util.List;
import java.util.Set;

/**
 * What a procedure may write to one table: an update of some columns, an insert or a delete (whole rows),
 * at the rows its key designates. A fresh insert creates rows whose key nobody else can produce, so it conflicts
 * with nothing and takes no key; {@code freshKey} says why (null for any other write).
 *
 * <p>A {@link Operation#READ} is not a write: it is one of a procedure's {@code reads:}, cells the call reads and needs
 * stable while it runs (docs/classifier.md, What conflicts). It is kept in {@link ProcedureRule#reads()}, never among
 * the writes, and gets keys like an update of its columns: it conflicts with every write of those cells (and, for
 * simplicity, with every other read of them).
 */
public record WriteRule(
        Operation operation, TableRule table, List<KeyPart> key, Set<String> columns, FreshKey freshKey, int line) {
    public enum Operation {
        UPDATE,
        INSERT,
        DELETE,
        /** A declared read ({@code reads:}), not a write. */
        READ
    }

    public WriteRule {
        key = List.copyOf(key);
        columns = Set.copyOf(columns);
    }

    /** Whether this is a fresh insert (see {@link FreshKey}). */
    public boolean fresh() {
        return freshKey != null;
    }

    /**
     * The columns this rule touches: the listed ones for an update or a read, every column for an insert or delete.
     */
    public Set<String> touchedColumns() {
        return operation == Operation.UPDATE || operation == Operation.READ ? columns : Set.copyOf(table.columns());
    }

    /** Whether this is a declared read rather than a write. */
    public boolean isRead() {
        return operation == Operation.READ;
    }
}
