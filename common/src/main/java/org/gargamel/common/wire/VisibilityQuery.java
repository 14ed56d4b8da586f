package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * site scheduler → node (docs/multisite.md, A site scheduler's failover): which of {@code transactions} are visible
 * there. A site scheduler that took over reads the whole schedule log, and the nodes reported most of those calls to
 * its predecessors; the node answers with a {@link Progress} of the ones visible, and reports the others as usual
 * when they become visible.
 */
// ArrayRecordComponent: equals, hashCode and toString below compare the ids; the array is never written once built.
public record VisibilityQuery(
        @SuppressWarnings("ArrayRecordComponent") long[] transactions) implements Message {
    @Override
    public MessageType type() {
        return MessageType.VISIBILITY_QUERY;
    }

    @Override
    public String describe() {
        return "VISIBILITY_QUERY (" + transactions.length + " transactions)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeLongs(out, transactions);
    }

    static VisibilityQuery read(DataInput in) throws IOException {
        return new VisibilityQuery(WireCodec.readLongs(in));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof VisibilityQuery q && java.util.Arrays.equals(transactions, q.transactions);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(transactions);
    }

    @Override
    public String toString() {
        return "VisibilityQuery[" + java.util.Arrays.toString(transactions) + "]";
    }
}
