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
 *
 * <p>An update's {@code columns} are the ones it writes plainly; {@code added} the ones it declares {@code add:}, that
 * it only adds to ({@code col = col + expr}, expr not reading col). Two increments of one cell commute, so in PSI they
 * do not conflict with each other (docs/classifier.md, Increments). Empty for every other operation.
 */
public record WriteRule(
        Operation operation,
        TableRule table,
        List<KeyPart> key,
        Set<String> columns,
        Set<String> added,
        FreshKey freshKey,
        int line) {
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
        added = Set.copyOf(added);
    }

    /** Whether this is a fresh insert (see {@link FreshKey}). */
    public boolean fresh() {
        return freshKey != null;
    }

    /**
     * The columns this rule touches: for an update those it writes plainly and those it adds to, for a read the listed
     * ones, every column for an insert or delete.
     */
    public Set<String> touchedColumns() {
        return switch (operation) {
            case UPDATE -> added.isEmpty() ? columns : union(columns, added);
            case READ -> columns;
            case INSERT, DELETE -> Set.copyOf(table.columns());
        };
    }

    private static Set<String> union(Set<String> first, Set<String> second) {
        Set<String> union = new java.util.HashSet<>(first);
        union.addAll(second);
        return Set.copyOf(union);
    }

    /** Whether this is a declared read rather than a write. */
    public boolean isRead() {
        return operation == Operation.READ;
    }
}
