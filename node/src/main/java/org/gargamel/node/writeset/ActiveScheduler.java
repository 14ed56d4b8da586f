package org.gargamel.node.writeset;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gargamel.common.wire.TransactionIds;
import org.jgroups.Address;

/**
 * Which scheduler is active, as the write-set log decided (docs/protocol.md, Scheduler failover): the claimant of the
 * latest {@code EPOCH_CLAIM} applied here, and its epoch (the claim's log index), which is the high half of every
 * transaction id that scheduler hands out. A call of an earlier epoch that has not started here when a newer claim is
 * applied never runs here ({@link #stale}); its client resubmits it to the new scheduler. A superseded claimant never
 * becomes active again, whatever copies of its claim the log still holds.
 */
public final class ActiveScheduler {
    private volatile Address claimant;
    private volatile long epoch;
    private final Set<Address> superseded = ConcurrentHashMap.newKeySet();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /**
     * The log applied a claim of {@code by} at entry {@code index}: true if that made {@code by} active; false for a
     * further copy of the active claimant's claim, or a claim of one that was superseded (it never comes back).
     */
    public boolean claim(Address by, long index) {
        List<Runnable> toRun;
        synchronized (this) {
            if (by.equals(claimant) || superseded.contains(by) || index <= epoch) {
                return false;
            }
            if (claimant != null) {
                superseded.add(claimant);
            }
            claimant = by;
            epoch = index;
            toRun = new ArrayList<>(listeners);
        }
        toRun.forEach(Runnable::run);
        return true;
    }

    /** Runs {@code listener} after every change of the active scheduler (from the apply loop's thread). */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** The active scheduler's address, or null if no claim was ever applied here. */
    public Address claimant() {
        return claimant;
    }

    public long epoch() {
        return epoch;
    }

    /** Whether {@code txn} belongs to an epoch before the active one: it must not start here. */
    public boolean stale(long txn) {
        return TransactionIds.epochOf(txn) < epoch;
    }
}
