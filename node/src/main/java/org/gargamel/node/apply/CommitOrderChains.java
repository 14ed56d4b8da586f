package org.gargamel.node.apply;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.gargamel.common.wire.WriteSet;

/**
 * PSI write-sets of one origin are applied in the origin's commit order ({@link WriteSet.Order}): one whose
 * predecessor has not come yet waits, held in the position, and the later entries go on meanwhile. All replicas do the
 * same, since they see the same log.
 */
final class CommitOrderChains {
    private record ChainKey(String origin, long incarnation) {}

    /** One origin's PSI write-sets of one start, applied in their commit order. */
    private static final class Chain {
        long last = -1;
        final Map<Long, LogEntry> waitingByPrevious = new HashMap<>();
    }

    private final AppliedPosition position;
    private final Map<ChainKey, Chain> chains = new HashMap<>();
    /** The log this replica reads began at a snapshot: the commit-order chains before it are unknown. */
    private volatile boolean startedFromSnapshot;

    CommitOrderChains(AppliedPosition position) {
        this.position = position;
    }

    /** The log's entries start after a snapshot: chains already under way start where met. Any thread. */
    void startsFromSnapshot() {
        startedFromSnapshot = true;
    }

    /**
     * Whether {@code entry} (an ordered write-set) is due now; if not, it waits for its predecessor, held in the
     * position. A chain met with a predecessor it never saw starts where it is only if the log began at a snapshot
     * (the entries before it are gone); otherwise the predecessor is still to come.
     */
    boolean due(LogEntry entry) {
        WriteSet.Order order = ((WriteSet) entry.message()).order();
        Chain chain = chain((WriteSet) entry.message());
        boolean unseenStart = chain.last == -1 && startedFromSnapshot;
        if (order.previous() != -1 && order.previous() != chain.last && !unseenStart) {
            chain.waitingByPrevious.put(order.previous(), entry);
            position.hold(entry.index());
            return false;
        }
        return true;
    }

    /**
     * {@code entry}, which was due, is handled: its chain moves on. Returns the entry that waited for it (now due,
     * released from the position), or null.
     */
    LogEntry handled(LogEntry entry) {
        WriteSet writeSet = (WriteSet) entry.message();
        Chain chain = chain(writeSet);
        chain.last = writeSet.order().commitOrder();
        LogEntry next = chain.waitingByPrevious.remove(chain.last);
        if (next != null) {
            position.release(next.index());
        }
        return next;
    }

    /**
     * Drops the write-set of {@code txn} if it waits for an earlier one of its origin (now settled as never having
     * happened): the position may pass it. Returns its entry, or null if none waits.
     */
    LogEntry dropWaiting(long txn) {
        for (Chain chain : chains.values()) {
            for (Iterator<LogEntry> waiting = chain.waitingByPrevious.values().iterator(); waiting.hasNext(); ) {
                LogEntry entry = waiting.next();
                if (((WriteSet) entry.message()).txnId() == txn) {
                    waiting.remove();
                    position.release(entry.index());
                    return entry;
                }
            }
        }
        return null;
    }

    private Chain chain(WriteSet writeSet) {
        return chains.computeIfAbsent(
                new ChainKey(writeSet.origin(), writeSet.order().incarnation()), key -> new Chain());
    }
}
