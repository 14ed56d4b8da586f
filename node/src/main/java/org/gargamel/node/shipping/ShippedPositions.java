package org.gargamel.node.shipping;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gargamel.common.wire.Shipped;

/**
 * How far this node's site log has taken in what each other site shipped (a write-set log per site,
 * docs/multisite.md, Site-local acknowledgement), and how far this site's own entries have come.
 *
 * <p>{@link #accept} is decided in log order (the apply loop's thread), so every node of the site takes the same
 * shipped entries and skips the same copies: a shipped entry is taken only if it follows the last one taken from its
 * origin ({@link Shipped#previous}). After a restart the log's replay decides the same again; a snapshot carries the
 * positions ({@link #writeTo}).
 */
public final class ShippedPositions {
    /** By origin site: the index in its log of the last entry taken from it. */
    private final Map<String, Long> through = new HashMap<>();
    /** The index in this site's log of the last entry of its own (write-set or decision) delivered here. */
    private volatile long ownPosition;

    /** In log order: whether {@code shipped} is the next entry of its origin's (then it is recorded as taken). */
    public synchronized boolean accept(Shipped shipped) {
        long last = through.getOrDefault(shipped.origin(), 0L);
        if (shipped.previous() != last) {
            return false; // a copy shipped twice, or one after a gap: the shipper sends again from what was taken
        }
        through.put(shipped.origin(), shipped.index());
        notifyAll();
        return true;
    }

    /** The index in {@code site}'s log of the last entry taken from it (0: none). */
    public synchronized long through(String site) {
        return through.getOrDefault(site, 0L);
    }

    /**
     * Blocks until the entries of {@code site}'s log up to {@code position} that were shipped are taken here; whether
     * they were within {@code timeoutMs}.
     */
    public synchronized boolean await(String site, long position, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (through.getOrDefault(site, 0L) < position) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** An entry of this site's own at {@code index} was delivered (the log's thread, in order). */
    public void ownDelivered(long index) {
        ownPosition = index;
    }

    /**
     * The index of the last entry of this site's own delivered here: every transaction this node reports visible
     * stood at or before it.
     */
    public long ownPosition() {
        return ownPosition;
    }

    /** For a snapshot of the site log: the positions taken so far. */
    public synchronized void writeTo(DataOutput out) throws IOException {
        out.writeInt(through.size());
        for (Map.Entry<String, Long> site : new TreeMap<>(through).entrySet()) {
            out.writeUTF(site.getKey());
            out.writeLong(site.getValue());
        }
    }

    /** From a snapshot ({@link #writeTo}). */
    public synchronized void readFrom(DataInput in) throws IOException {
        through.clear();
        int sites = in.readInt();
        for (int i = 0; i < sites; i++) {
            through.put(in.readUTF(), in.readLong());
        }
        notifyAll();
    }

    @Override
    public synchronized String toString() {
        return "shipped " + new TreeMap<>(through) + ", own position " + ownPosition;
    }
}
