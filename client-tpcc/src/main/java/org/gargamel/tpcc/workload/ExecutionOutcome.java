package org.gargamel.tpcc.workload;

/**
 * The one outcome of a call: committed, rolled back by the procedure (a user abort, with its SQLSTATE),
 * or failed. {@code conflictAborts} counts the serialization failures and deadlocks met on the way
 * (each followed by a retry while retries were left).
 */
public record ExecutionOutcome(Kind kind, int conflictAborts, int retries, String sqlState, String message) {
    public enum Kind {
        COMMITTED,
        USER_ABORT,
        FAILED
    }

    public static ExecutionOutcome committed(int conflictAborts, int retries) {
        return new ExecutionOutcome(Kind.COMMITTED, conflictAborts, retries, null, null);
    }
}
