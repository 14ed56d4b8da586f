package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * Update transactions whose executing node left before reporting them: nobody can tell whether they ran, so the
 * survivors settle it in the total order. The scheduler sends this to every surviving node, each of which broadcasts
 * it in the write-set group; at the first delivery every node counts each transaction whose write-set was not
 * delivered before as done with no effect (its dependents may start) and discards its write-set if it comes later.
 * Without it, calls that depend on a dead node's transactions would wait forever (docs/protocol.md, Membership).
 *
 * @param origin the node that left (for the log)
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] that the
// codec reads and writes (no boxed list per message) is never written once the message is built.
public record Abandon(
        String origin,
        @SuppressWarnings("ArrayRecordComponent") long[] transactions) implements Message {
    @Override
    public MessageType type() {
        return MessageType.ABANDON;
    }

    @Override
    public String describe() {
        return "ABANDON of " + origin + " (" + transactions.length + " transactions)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, origin);
        WireCodec.writeLongs(out, transactions);
    }

    static Abandon read(DataInput in) throws IOException {
        return new Abandon(WireCodec.readString(in), WireCodec.readLongs(in));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Abandon a && origin.equals(a.origin) && Arrays.equals(transactions, a.transactions);
    }

    @Override
    public int hashCode() {
        return origin.hashCode() * 31 + Arrays.hashCode(transactions);
    }

    @Override
    public String toString() {
        return "Abandon[origin=" + origin + ", transactions=" + Arrays.toString(transactions) + "]";
    }
}
