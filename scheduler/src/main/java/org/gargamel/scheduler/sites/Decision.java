package org.gargamel.scheduler.sites;

import java.util.Map;

/**
 * What reading the schedule log decided for one call: the one result of every {@link Agreement}, and of the
 * {@link SiteScheduler} that joins it to the site's own order (where {@code dependencies} are then the union of both).
 */
public sealed interface Decision {
    long txn();

    /** The calls it is placed after (agreed, or as this site placed it for {@link Place}). */
    long[] dependencies();

    /** Another site's call, placed here too: nothing to tell a node; its visibility here is followed. */
    // ArrayRecordComponent: the array is read, never written.
    record Remote(
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Decision {}

    /**
     * A call of this site that an earlier scheduler of the site placed (docs/multisite.md, A site scheduler's
     * failover): nothing to tell a node, but it must be settled if no node ran it, once its agreed
     * {@code dependencies} are.
     */
    // ArrayRecordComponent: the array is read, never written.
    record Orphaned(
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Decision {}

    /**
     * Optimistic: where the log put a home call dispatched provisionally (an {@code AGREEMENT}). {@code collided}: the
     * log put before it a conflicting call it was not placed after; its node runs it again after
     * {@code dependencies} (cancelled if it had not started, killed if it had). Otherwise its node may commit it.
     */
    // ArrayRecordComponent: the array goes out in a message as is, never written.
    record Agreed(
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
            boolean collided) implements Decision {}

    /**
     * A home call placed for good that may be dispatched now, after {@code dependencies} (pessimistic; a spanning call
     * of site-owned classes or of the abort-free agreement once every site placed it). {@code barrier}: its node first
     * applies the write-set log as far as it stood, and as far as {@code shippedBefore} says for each other site (site
     * to log position; a write-set log per site).
     */
    // ArrayRecordComponent: handed to the node as is, never written.
    record Dispatch(
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
            Map<String, Long> shippedBefore,
            boolean barrier)
            implements Decision {}

    /** This site placed a call of another site (or an earlier scheduler's): append {@code placement} to the log. */
    record Place(SitePlacement placement) implements Decision {
        @Override
        public long txn() {
            return placement.txn();
        }

        @Override
        public long[] dependencies() {
            return placement.dependencies();
        }
    }
}
