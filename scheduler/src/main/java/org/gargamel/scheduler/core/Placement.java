package org.gargamel.scheduler.core;

import java.util.Arrays;

/**
 * Where a call goes: its transaction id, the worker that runs it, and the transactions that must be
 * visible at that node before it starts (empty for read-only calls).
 */
public record Placement(long txn, WorkerRef worker, long[] backDependencies, boolean readOnly) {
    @Override
    public boolean equals(Object other) {
        return other instanceof Placement p && txn == p.txn && readOnly == p.readOnly && worker.equals(p.worker)
                && Arrays.equals(backDependencies, p.backDependencies);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(txn) * 31 + worker.hashCode();
    }

    @Override
    public String toString() {
        return "Placement[txn=" + txn + ", worker=" + worker + ", backDependencies="
                + Arrays.toString(backDependencies) + ", readOnly=" + readOnly + "]";
    }
}
