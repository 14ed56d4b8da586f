package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler, batched: transactions that became visible at {@code nodeName} since the last report —
 * executed there (committed or user-aborted, including read-only calls) or their write-set applied. The
 * scheduler frees a worker slot when the executing node reports, and garbage-collects a transaction from
 * the graph and the index once every node has reported it (DESIGN.md §4).
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] that the
// codec reads and writes (no boxed list per message) is never written once the message is built.
public record Progress(
        String nodeName,
        @SuppressWarnings("ArrayRecordComponent") long[] visible) implements Message {
    @Override
    public MessageType type() {
        return MessageType.PROGRESS;
    }

    @Override
    public String describe() {
        return "PROGRESS from " + nodeName + " (" + visible.length + " transactions)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        WireCodec.writeLongs(out, visible);
    }

    static Progress read(DataInput in) throws IOException {
        return new Progress(WireCodec.readString(in), WireCodec.readLongs(in));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Progress p
                && nodeName.equals(p.nodeName)
                && java.util.Arrays.equals(visible, p.visible);
    }

    @Override
    public int hashCode() {
        return nodeName.hashCode();
    }

    @Override
    public String toString() {
        return "Progress[node=" + nodeName + ", visible=" + java.util.Arrays.toString(visible) + "]";
    }
}
