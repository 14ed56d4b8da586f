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
        @SuppressWarnings("ArrayRecordComponent") long[] visible,
        long logPosition,
        long forgotten) implements Message {
    /**
     * {@code forgotten}: how many ids the node could no longer hold since its last report, while it had no scheduler in
     * sight (it keeps a bounded number, docs/protocol.md, Life of a call); 0 normally. A scheduler that still counts the
     * node then asks it which of the transactions it awaits from it are visible there ({@link VisibilityQuery}).
     */
    public Progress(String nodeName, long[] visible, long logPosition) {
        this(nodeName, visible, logPosition, 0);
    }

    /**
     * {@code logPosition} (site-local write-set logs, docs/multisite.md): the index in the node's site log of the last
     * entry of its site's own (a write-set or decision, not one shipped from another site) it has handled, 0 when
     * unknown. Every transaction it reports visible stood at or before it. A site scheduler hands the highest of these
     * to the sites a spanning call is shipped to, so the call's node waits until it has the calls the site forgot.
     */
    public Progress(String nodeName, long[] visible) {
        this(nodeName, visible, 0);
    }

    @Override
    public MessageType type() {
        return MessageType.PROGRESS;
    }

    @Override
    public String describe() {
        return "PROGRESS from " + nodeName + " (" + visible.length + " transactions"
                + (forgotten == 0 ? "" : ", " + forgotten + " forgotten") + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        WireCodec.writeLongs(out, visible);
        out.writeLong(logPosition);
        out.writeLong(forgotten);
    }

    static Progress read(DataInput in) throws IOException {
        return new Progress(WireCodec.readString(in), WireCodec.readLongs(in), in.readLong(), in.readLong());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Progress p
                && nodeName.equals(p.nodeName)
                && logPosition == p.logPosition
                && forgotten == p.forgotten
                && java.util.Arrays.equals(visible, p.visible);
    }

    @Override
    public int hashCode() {
        return nodeName.hashCode();
    }

    @Override
    public String toString() {
        return "Progress[node=" + nodeName + ", visible=" + java.util.Arrays.toString(visible)
                + (logPosition == 0 ? "" : ", logPosition=" + logPosition)
                + (forgotten == 0 ? "" : ", forgotten=" + forgotten) + "]";
    }
}
