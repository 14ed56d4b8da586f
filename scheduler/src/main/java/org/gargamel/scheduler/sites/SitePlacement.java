package org.gargamel.scheduler.sites;

import java.util.Objects;

/**
 * An owner's word in the schedule log: it placed {@code txn} after {@code dependencies} (its own order), when its nodes
 * had come to {@code logPosition} in its site's write-set log ({@link Acknowledgement#SITE}; 0 with one log for every
 * site). Abort-free: when its scheduler (of {@code epoch}) had appended {@code entriesBefore} entries (see
 * {@link org.gargamel.common.wire.SchedulePlacement}).
 */
// ArrayRecordComponent: read, never written.
public record SitePlacement(
        String owner,
        long txn,
        @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
        long logPosition,
        long epoch,
        long entriesBefore) {
    public SitePlacement {
        Objects.requireNonNull(owner, "owner");
    }

    public SitePlacement(String owner, long txn, long[] dependencies, long logPosition) {
        this(owner, txn, dependencies, logPosition, 0, 0);
    }

    public SitePlacement(String owner, long txn, long[] dependencies) {
        this(owner, txn, dependencies, 0);
    }

    /** How the owner's nodes acknowledge: with a write-set log per site, its placement says how far its log was. */
    public Acknowledgement acknowledgement() {
        return Acknowledgement.ofLogPosition(logPosition);
    }
}
