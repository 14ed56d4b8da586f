package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * site scheduler → schedule log (site-owned conflict classes, docs/multisite.md): {@code owner}, which owns rows that
 * the spanning call {@code txn} may write, placed it after {@code dependencies} (its own calls on those rows not yet
 * forgotten). The call's home site dispatches it once every owner's placement is in the log.
 *
 * <p>With the abort-free agreement every site is an owner, and a placement may name the placing site's own calls:
 * {@code epoch} is the placing scheduler's, and {@code entriesBefore} how many entries it had appended to the log when
 * it placed the call. An append sent again can overtake a later one, so a reader holds the placement back until it has
 * read that scheduler's entries that far (0: nothing to wait for).
 */
// ArrayRecordComponent: equals, hashCode and toString below compare the ids; the array is never written once made.
public record SchedulePlacement(
        String owner,
        long txn,
        @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
        long logPosition,
        long epoch,
        long entriesBefore)
        implements Message {
    /**
     * {@code logPosition} (site-local write-set logs): how far in the owner's site log its nodes had come when it
     * placed the call ({@code Progress.logPosition}): every call it no longer names stood at or before it. 0 with one
     * write-set log for all sites.
     */
    public SchedulePlacement(String owner, long txn, long[] dependencies) {
        this(owner, txn, dependencies, 0);
    }

    public SchedulePlacement(String owner, long txn, long[] dependencies, long logPosition) {
        this(owner, txn, dependencies, logPosition, 0, 0);
    }

    public SchedulePlacement {
        if (owner == null || owner.isBlank()) {
            throw new IllegalArgumentException("a placement needs its owner site's name");
        }
        if (txn < 1) {
            throw new IllegalArgumentException("a placement's transaction id must be positive, got " + txn);
        }
        if (epoch < 0 || entriesBefore < 0) {
            throw new IllegalArgumentException(
                    "a placement's epoch and entry count are not negative, got " + epoch + " and " + entriesBefore);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.SCHEDULE_PLACEMENT;
    }

    @Override
    public String describe() {
        return "SCHEDULE_PLACEMENT by " + owner + " of transaction " + txn + " after " + dependencies.length
                + " call(s)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, owner);
        out.writeLong(txn);
        WireCodec.writeLongs(out, dependencies);
        out.writeLong(logPosition);
        out.writeLong(epoch);
        out.writeLong(entriesBefore);
    }

    static SchedulePlacement read(DataInput in) throws IOException {
        return new SchedulePlacement(
                WireCodec.readString(in),
                in.readLong(),
                WireCodec.readLongs(in),
                in.readLong(),
                in.readLong(),
                in.readLong());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SchedulePlacement p
                && owner.equals(p.owner)
                && txn == p.txn
                && logPosition == p.logPosition
                && epoch == p.epoch
                && entriesBefore == p.entriesBefore
                && Arrays.equals(dependencies, p.dependencies);
    }

    @Override
    public int hashCode() {
        return owner.hashCode() * 31 + Long.hashCode(txn);
    }

    @Override
    public String toString() {
        return "SchedulePlacement[owner=" + owner + ", txn=" + txn + ", dependencies=" + Arrays.toString(dependencies)
                + (logPosition == 0 ? "" : ", logPosition=" + logPosition)
                + (entriesBefore == 0 ? "" : ", epoch=" + epoch + ", entriesBefore=" + entriesBefore) + "]";
    }
}
