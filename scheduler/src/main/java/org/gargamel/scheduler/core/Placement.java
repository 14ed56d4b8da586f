package org.gargamel.scheduler.core;

import java.util.Arrays;

/**
 * Where a call goes: its transaction id, the worker that runs it, and the transactions that must be
 * visible at that node before it starts (for read-only calls only the session's last write, if any).
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] (made by the
// conflict index on Scheduler.place's hot path, sent as is in Execute) is never written once the placement is made.
public record Placement(
        long txn,
        WorkerRef worker,
        @SuppressWarnings("ArrayRecordComponent") long[] backDependencies,
        boolean readOnly) {
    @Override
    public boolean equals(Object other) {
        return other instanceof Placement p
                && txn == p.txn
                && readOnly == p.readOnly
                && worker.equals(p.worker)
                && Arrays.equals(backDependencies, p.backDependencies);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(txn) * 31 + worker.hashCode();
    }

    @Override
    public String toString() {
        return "Placement[txn=" + txn + ", worker=" + worker + ", backDependencies=" + Arrays.toString(backDependencies)
                + ", readOnly=" + readOnly + "]";
    }
}
