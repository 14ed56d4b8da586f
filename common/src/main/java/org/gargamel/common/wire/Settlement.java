package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * node → scheduler: how the write-set log settled an {@link Abandon} of {@code origin}'s unreported transactions
 * (thesis Alg 4). Those whose write-set the log had committed before the decision <em>stand</em>: they happened at
 * every replica, and {@code stood} carries the outcome their origin gave (from the write-set), so the scheduler can
 * answer their clients. The others ({@code abandoned}) had no effect anywhere: the scheduler runs their calls again on
 * the survivors. Every survivor sends one; they agree, since they read the same log, and the first one decides.
 *
 * @param stood outcomes of the transactions that stand; one whose outcome this node no longer holds is missing from
 *     here and listed in {@code unknown}
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] that the
// codec reads and writes (no boxed list per message) is never written once the message is built.
public record Settlement(
        String nodeName,
        String origin,
        @SuppressWarnings("ArrayRecordComponent") long[] abandoned,
        List<CallOutcome> stood,
        @SuppressWarnings("ArrayRecordComponent") long[] unknown)
        implements Message {

    public Settlement {
        stood = List.copyOf(stood);
    }

    @Override
    public MessageType type() {
        return MessageType.SETTLEMENT;
    }

    @Override
    public String describe() {
        return "SETTLEMENT from " + nodeName + " of " + origin + " (" + abandoned.length + " abandoned, "
                + stood.size() + " stand" + (unknown.length == 0 ? "" : ", " + unknown.length + " without outcome")
                + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        WireCodec.writeString(out, origin);
        WireCodec.writeLongs(out, abandoned);
        out.writeInt(stood.size());
        for (CallOutcome outcome : stood) {
            outcome.writeBody(out);
        }
        WireCodec.writeLongs(out, unknown);
    }

    static Settlement read(DataInput in) throws IOException {
        String nodeName = WireCodec.readString(in);
        String origin = WireCodec.readString(in);
        long[] abandoned = WireCodec.readLongs(in);
        int count = WireCodec.readCount(in, "settled outcomes");
        List<CallOutcome> stood = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            stood.add(CallOutcome.read(in));
        }
        return new Settlement(nodeName, origin, abandoned, stood, WireCodec.readLongs(in));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Settlement s
                && nodeName.equals(s.nodeName)
                && origin.equals(s.origin)
                && Arrays.equals(abandoned, s.abandoned)
                && stood.equals(s.stood)
                && Arrays.equals(unknown, s.unknown);
    }

    @Override
    public int hashCode() {
        return origin.hashCode() * 31 + Arrays.hashCode(abandoned);
    }

    @Override
    public String toString() {
        return "Settlement[node=" + nodeName + ", origin=" + origin + ", abandoned=" + Arrays.toString(abandoned)
                + ", stood=" + stood + ", unknown=" + Arrays.toString(unknown) + "]";
    }
}
