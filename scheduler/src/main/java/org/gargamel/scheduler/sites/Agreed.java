package org.gargamel.scheduler.sites;

import java.util.Arrays;

/**
 * A call placed by the schedule log, in log order: its agreed back-dependencies (the conflicting calls the log holds
 * before it) and what its site's scheduler must tell the node that runs it.
 */
// ArrayRecordComponent: equals, hashCode and toString below compare the ids; the array is never written once made.
public record Agreed(
        ScheduleEntry entry,
        @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
        Verdict verdict) {

    public enum Verdict {
        /** Another site's call: it runs there; here it only takes its place in the graph. */
        REMOTE,
        /** A home call placed as the log placed it: its node may commit it (after the run, if it is still running). */
        CONFIRMED,
        /**
         * A home call that collided: the log put before it a conflicting call it was not placed after. Its node runs it
         * again after {@link #dependencies()} (cancelled if it had not started, killed if it had).
         */
        COLLIDED,
        /** A home call under {@link AgreementMode#PESSIMISTIC}: dispatch it now, after {@link #dependencies()}. */
        DISPATCH,
        /**
         * A call of this site placed by an earlier scheduler of the site (it died, or was superseded): it takes its
         * place in the graph like another site's call, and this scheduler has it settled if no node ran it
         * (docs/multisite.md, A site scheduler's failover).
         */
        ORPHANED
    }

    public long txn() {
        return entry.txn();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Agreed a
                && entry.equals(a.entry)
                && verdict == a.verdict
                && Arrays.equals(dependencies, a.dependencies);
    }

    @Override
    public int hashCode() {
        return entry.hashCode() * 31 + verdict.hashCode();
    }

    @Override
    public String toString() {
        return "Agreed[txn=" + entry.txn() + ", site=" + entry.site() + ", dependencies="
                + Arrays.toString(dependencies) + ", verdict=" + verdict + "]";
    }
}
