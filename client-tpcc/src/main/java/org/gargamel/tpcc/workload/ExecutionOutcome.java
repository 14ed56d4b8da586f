package org.gargamel.tpcc.workload;

/**
 * The one outcome of a call: committed, rolled back by the procedure (a user abort, with its SQLSTATE),
 * or failed. {@code conflictAborts} counts the serialization failures and deadlocks met on the way
 * (each followed by a retry while retries were left). {@code firstColumn}: a committed call's first result column as
 * text (New-Order: the order id, for the ledger), else null.
 */
public record ExecutionOutcome(
        Kind kind, int conflictAborts, int retries, String sqlState, String message, String firstColumn) {
    public enum Kind {
        COMMITTED,
        USER_ABORT,
        FAILED
    }

    public ExecutionOutcome(Kind kind, int conflictAborts, int retries, String sqlState, String message) {
        this(kind, conflictAborts, retries, sqlState, message, null);
    }

    public static ExecutionOutcome committed(int conflictAborts, int retries) {
        return committed(conflictAborts, retries, null);
    }

    public static ExecutionOutcome committed(int conflictAborts, int retries, String firstColumn) {
        return new ExecutionOutcome(Kind.COMMITTED, conflictAborts, retries, null, null, firstColumn);
    }

    /**
     * The first column of a result given as a row's text, e.g. {@code 3001} of {@code (3001,15.50)}; null for a
     * result that is not such a row.
     */
    public static String firstColumnOf(String rowText) {
        if (rowText == null || !rowText.startsWith("(")) {
            return null;
        }
        int end = rowText.indexOf(',');
        return rowText.substring(1, end < 0 ? rowText.lastIndexOf(')') : end);
    }
}
