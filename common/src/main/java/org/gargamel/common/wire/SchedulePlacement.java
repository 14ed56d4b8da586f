package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * site scheduler → schedule log (site-owned conflict classes, docs/multisite.md): {@code owner}, which owns rows that
 * the spanning call {@code txn} may write, placed it after {@code dependencies} (its own calls on those rows not yet
 * forgotten). The call's home site dispatches it once every owner's placement is in the log.
 */
// ArrayRecordComponent: equals, hashCode and toString below compare the ids; the array is never written once made.
public record SchedulePlacement(
        String owner,
        long txn,
        @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
        long logPosition) implements Message {
    /**
     * {@code logPosition} (site-local write-set logs): how far in the owner's site log its nodes had come when it
     * placed the call ({@code Progress.logPosition}): every call it no longer names stood at or before it. 0 with one
     * write-set log for all sites.
     */
    public SchedulePlacement(String owner, long txn, long[] dependencies) {
        this(owner, txn, dependencies, 0);
    }

    public SchedulePlacement {
        if (owner == null || owner.isBlank()) {
            throw new IllegalArgumentException("a placement needs its owner site's name");
        }
        if (txn < 1) {
            throw new IllegalArgumentException("a placement's transaction id must be positive, got " + txn);
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
    }

    static SchedulePlacement read(DataInput in) throws IOException {
        return new SchedulePlacement(WireCodec.readString(in), in.readLong(), WireCodec.readLongs(in), in.readLong());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SchedulePlacement p
                && owner.equals(p.owner)
                && txn == p.txn
                && logPosition == p.logPosition
                && Arrays.equals(dependencies, p.dependencies);
    }

    @Override
    public int hashCode() {
        return owner.hashCode() * 31 + Long.hashCode(txn);
    }

    @Override
    public String toString() {
        return "SchedulePlacement[owner=" + owner + ", txn=" + txn + ", dependencies=" + Arrays.toString(dependencies)
                + (logPosition == 0 ? "" : ", logPosition=" + logPosition) + "]";
    }
}
