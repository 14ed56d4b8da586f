package org.gargamel.node.writeset;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.EOFException;
import java.util.function.LongSupplier;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.MalformedMessageException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.node.shipping.ShippedPositions;
import org.jgroups.raft.StateMachine;

/**
 * The bridge from the write-set log to this node's apply loop: jgroups-raft calls {@link #apply} with each committed
 * entry, in log order, on its own thread (also for the entries it replays from this node's log at start); this decodes
 * it and hands it over with its log index, without waiting (applying to PostgreSQL is the apply loop's work).
 *
 * <p>jgroups-raft does not pass the index: it applies entries one by one from the first one its log holds (or the one
 * after its snapshot), so the index is counted here, starting from {@code firstIndex} at the first entry. That holds
 * because the log carries no internal entries (the membership is static: no server is added or removed at run time).
 *
 * <p>Snapshots: the log is truncated only by a snapshot, after {@code max_log_size} bytes (Channels). A snapshot records
 * the index it covers and what the log decided about schedulers up to there ({@link ActiveScheduler}: the entries that
 * decided it are gone with the truncation), and the write-sets it carried ({@link MetWriteSets}: a copy of one sent
 * again is still ignored after it). A replica that is handed one it has not applied itself lacks entries the log no
 * longer has: it asks to be rebuilt by state transfer ({@code mustBeRebuilt}: the replica is marked tainted and the
 * node stops; {@code gargamel node} starts it again from a peer's copy, docs/node.md, Rebuild).
 */
public final class LogStateMachine implements StateMachine {
    private final String node;
    private final Delivery deliver;
    private final LongSupplier firstIndex;
    private final LongSupplier appliedIndex;
    private final Runnable awaitApplied;
    private final Runnable startsFromSnapshot;
    private final ActiveScheduler activeScheduler;
    private final java.util.function.Consumer<String> mustBeRebuilt;
    /** What other sites shipped here (a write-set log per site), kept in snapshots as the scheduler's decisions are. */
    private final ShippedPositions shipped;
    /** The write-sets the log carried (copies sent again are ignored), kept in snapshots likewise. */
    private final MetWriteSets metWriteSets;

    private long nextIndex = -1;

    /**
     * @param firstIndex   the index of the first entry the log holds (asked at the first entry)
     * @param appliedIndex the last index reflected in this replica's database
     * @param awaitApplied blocks until everything handed over so far is applied (before a snapshot)
     * @param startsFromSnapshot told when the log's entries start after a snapshot
     * @param activeScheduler what the log decided about schedulers, kept in snapshots
     * @param mustBeRebuilt told (with the reason) when a snapshot covers entries this replica has not applied
     * @param shipped       what other sites shipped here, decided by entries up to a snapshot
     * @param metWriteSets  the write-sets the log carried, decided by entries up to a snapshot
     */
    public LogStateMachine(
            String node,
            Delivery deliver,
            LongSupplier firstIndex,
            LongSupplier appliedIndex,
            Runnable awaitApplied,
            Runnable startsFromSnapshot,
            ActiveScheduler activeScheduler,
            java.util.function.Consumer<String> mustBeRebuilt,
            ShippedPositions shipped,
            MetWriteSets metWriteSets) {
        this.shipped = shipped;
        this.metWriteSets = metWriteSets;
        this.node = node;
        this.deliver = deliver;
        this.firstIndex = firstIndex;
        this.appliedIndex = appliedIndex;
        this.awaitApplied = awaitApplied;
        this.startsFromSnapshot = startsFromSnapshot;
        this.activeScheduler = activeScheduler;
        this.mustBeRebuilt = mustBeRebuilt;
    }

    @Override
    public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        if (nextIndex < 0) {
            nextIndex = Math.max(1, firstIndex.getAsLong());
        }
        long index = nextIndex++;
        Message entry = decodeEntry(data, offset, length, node + ": entry " + index + " of the write-set log");
        // The log's identity: a digest of its first entry (every log starts with a different one: a node's
        // catch-up mark carries a random nonce). A replica's position counts only in the log it was taken in.
        deliver.deliver(entry, index, index == 1 ? digest(data, offset, length) : null);
        return null;
    }

    /**
     * A committed entry's message. Every member holds the same bytes: one that cannot decode them cannot follow the
     * others, a {@link FatalException} naming {@code which} entry.
     */
    public static Message decodeEntry(byte[] data, int offset, int length, String which) {
        try {
            return WireCodec.decode(data, offset, length);
        } catch (MalformedMessageException e) {
            throw new FatalException(which + " is malformed: " + e.getMessage(), e);
        }
    }

    /** Where committed entries go (the apply loop). */
    @FunctionalInterface
    public interface Delivery {
        /** Entry {@code index}; {@code logId} is the log's identity, given with its first entry only. */
        void deliver(Message entry, long index, String logId);
    }

    static String digest(byte[] data, int offset, int length) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(data, offset, length);
            return java.util.HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A snapshot covers every entry applied so far: wait until the database reflects them, then record the index. */
    @Override
    public void writeContentTo(DataOutput out) throws Exception {
        awaitApplied.run();
        out.writeLong(nextIndex - 1);
        activeScheduler.writeTo(out); // decided by entries up to here, all handled now
        shipped.writeTo(out);
        metWriteSets.writeTo(out); // last: a snapshot written before it was kept ends here
    }

    @Override
    public void readContentFrom(DataInput in) throws Exception {
        long covered = in.readLong();
        if (appliedIndex.getAsLong() < covered) {
            String reason = "the write-set log was truncated at entry " + covered + " but this replica has applied only"
                    + " up to " + appliedIndex.getAsLong() + ": it must be rebuilt by state transfer";
            mustBeRebuilt.accept(reason);
            throw new FatalException(node + ": " + reason);
        }
        activeScheduler.readFrom(in);
        shipped.readFrom(in);
        try {
            metWriteSets.readFrom(in);
        } catch (EOFException e) {
            // A snapshot written before the write-sets met were kept in it: nothing is known of them, as then.
            metWriteSets.clear();
        }
        nextIndex = covered + 1;
        startsFromSnapshot.run();
    }
}
