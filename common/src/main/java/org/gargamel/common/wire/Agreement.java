package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * site scheduler → the node running a provisional call (docs/multisite.md): where the schedule log placed it. Not
 * {@code collided}: as it was dispatched; the node commits it once it has run, and its write-set carries
 * {@code dependencies} (the agreed back-dependencies). {@code collided}: a conflicting call of another site came first;
 * the node runs it after {@code dependencies} instead (cancelled if it had not started, killed if it had run).
 */
// ArrayRecordComponent: equals, hashCode and toString below compare the ids; the array is never written once made.
public record Agreement(
        long txnId,
        boolean collided,
        @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Message {
    @Override
    public MessageType type() {
        return MessageType.AGREEMENT;
    }

    @Override
    public String describe() {
        return "AGREEMENT transaction " + txnId + (collided ? " collided" : " confirmed");
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(txnId);
        out.writeBoolean(collided);
        WireCodec.writeLongs(out, dependencies);
    }

    static Agreement read(DataInput in) throws IOException {
        return new Agreement(in.readLong(), in.readBoolean(), WireCodec.readLongs(in));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Agreement a
                && txnId == a.txnId
                && collided == a.collided
                && Arrays.equals(dependencies, a.dependencies);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(txnId);
    }

    @Override
    public String toString() {
        return "Agreement[txn=" + txnId + ", collided=" + collided + ", dependencies=" + Arrays.toString(dependencies)
                + "]";
    }
}
