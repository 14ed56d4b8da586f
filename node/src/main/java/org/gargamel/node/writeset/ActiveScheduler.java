package org.gargamel.node.writeset;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.TransactionIds;
import org.jgroups.Address;
import org.jgroups.util.Util;

/**
 * Which scheduler is active, as the write-set log decided (docs/protocol.md, Scheduler failover): the claimant of the
 * latest {@code EPOCH_CLAIM} applied here, and its epoch (the claim's log index), which is the high half of every
 * transaction id that scheduler hands out. A call of an earlier epoch that has not started here when a newer claim is
 * applied never runs here ({@link #stale}); its client resubmits it to the new scheduler. A superseded claimant never
 * becomes active again, whatever copies of its claim the log still holds.
 *
 * <p>With several sites (docs/multisite.md), the write-set log holds every site's claims: a node follows only its own
 * site's ({@link #concerns}), and another site's claim changes nothing here.
 */
public final class ActiveScheduler {
    /** This node's site (null: a single-site cluster). */
    private final String site;

    private volatile Address claimant;
    private volatile long epoch;
    /** The epoch of the claimant before the active one (EpochGranted: 0 for none, -1 if a snapshot hid it). */
    private volatile long predecessorEpoch = EpochGranted.NO_PREDECESSOR;

    private final Set<Address> superseded = ConcurrentHashMap.newKeySet();
    /** The same decisions as the log commits claims, ahead of the apply loop ({@link #announce}). */
    private Address announcedClaimant;

    private volatile long announcedEpoch;
    private final Set<Address> announcedSuperseded = new java.util.HashSet<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** A single-site node's. */
    public ActiveScheduler() {
        this(null);
    }

    /** The active scheduler of {@code site} (null: a single-site cluster). */
    public ActiveScheduler(String site) {
        this.site = site;
    }

    /** Whether a claim for {@code claimSite} is about this node's site (both null in a single-site cluster). */
    public boolean concerns(String claimSite) {
        return java.util.Objects.equals(site, claimSite);
    }

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
            predecessorEpoch = claimant == null ? EpochGranted.NO_PREDECESSOR : epoch;
            claimant = by;
            epoch = index;
            toRun = new ArrayList<>(listeners);
        }
        toRun.forEach(Runnable::run);
        return true;
    }

    /**
     * The log committed a claim of {@code by} at entry {@code index} (told in log order as entries are committed,
     * before the apply loop reaches them): the same decision as {@link #claim}, taken early. A provisional call
     * (multi-site) waiting for its scheduler's decision gives up on it when a newer scheduler of its site is announced
     * ({@link #superseding}): the apply loop may be unable to reach the claim, held by another site's write-set that
     * waits for that very call (docs/multisite.md, A site scheduler's failover).
     */
    public synchronized void announce(Address by, long index) {
        if (by.equals(announcedClaimant) || announcedSuperseded.contains(by) || index <= announcedEpoch) {
            return;
        }
        if (announcedClaimant != null) {
            announcedSuperseded.add(announcedClaimant);
        }
        announcedClaimant = by;
        announcedEpoch = index;
    }

    /**
     * Whether {@code txn} belongs to an epoch before the active one or before the latest one the log committed
     * ({@link #announce}): its scheduler will never be active again.
     */
    public boolean superseding(long txn) {
        return TransactionIds.epochOf(txn) < Math.max(epoch, announcedEpoch);
    }

    /** Runs {@code listener} after every change of the active scheduler (from the apply loop's thread). */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** Whether the log made {@code scheduler} active once and another one after it: it is never active again. */
    public boolean superseded(Address scheduler) {
        return superseded.contains(scheduler);
    }

    /**
     * Writes what the log decided so far into a snapshot of the log (LogStateMachine): a node that starts from the
     * snapshot, its claims compacted away, must still know the epoch (to drop calls of earlier ones) and who may not
     * come back.
     */
    public synchronized void writeTo(DataOutput out) throws IOException {
        out.writeLong(epoch);
        Util.writeAddress(claimant, out);
        out.writeInt(superseded.size());
        for (Address scheduler : superseded) {
            Util.writeAddress(scheduler, out);
        }
    }

    /** Takes over what a snapshot recorded ({@link #writeTo}), before the entries after it are applied. */
    public void readFrom(DataInput in) throws IOException {
        List<Runnable> toRun;
        synchronized (this) {
            long recordedEpoch = in.readLong();
            Address recordedClaimant;
            try {
                recordedClaimant = Util.readAddress(in);
            } catch (ClassNotFoundException e) {
                throw new IOException("unreadable scheduler address in the log's snapshot", e);
            }
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                try {
                    superseded.add(Util.readAddress(in));
                } catch (ClassNotFoundException e) {
                    throw new IOException("unreadable scheduler address in the log's snapshot", e);
                }
            }
            synchronized (this) {
                if (recordedEpoch > announcedEpoch) {
                    announcedClaimant = recordedClaimant;
                    announcedEpoch = recordedEpoch;
                    announcedSuperseded.addAll(superseded);
                }
            }
            if (recordedEpoch <= epoch) {
                return; // this node applied as much already
            }
            if (claimant != null && !claimant.equals(recordedClaimant)) {
                superseded.add(claimant);
            }
            claimant = recordedClaimant;
            epoch = recordedEpoch;
            predecessorEpoch = EpochGranted.UNKNOWN; // not in a snapshot
            toRun = new ArrayList<>(listeners);
        }
        toRun.forEach(Runnable::run);
    }

    /** The active scheduler's address, or null if no claim was ever applied here. */
    public Address claimant() {
        return claimant;
    }

    /**
     * The epoch of the scheduler the active one took over from: {@link EpochGranted#NO_PREDECESSOR} if it is its
     * site's first, {@link EpochGranted#UNKNOWN} if this node started from a snapshot taken after its claim.
     */
    public long predecessorEpoch() {
        return predecessorEpoch;
    }

    public long epoch() {
        return epoch;
    }

    /** Whether {@code txn} belongs to an epoch before the active one: it must not start here. */
    public boolean stale(long txn) {
        return TransactionIds.epochOf(txn) < epoch;
    }
}
