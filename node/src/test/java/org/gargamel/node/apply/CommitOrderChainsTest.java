package org.gargamel.node.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.common.wire.WriteSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link CommitOrderChains} without PostgreSQL: an origin's write-sets are handled in its commit order whatever the
 * log's order, a waiting one is held so the position does not pass it, and every one is handled once.
 */
@Tag("unit")
class CommitOrderChainsTest {

    private static LogEntry entry(long index, String origin, long commitOrder, long previous) {
        WriteSet writeSet = new WriteSet(
                100 + index, origin, "p", new long[0], 0, new WriteSet.Order(1, commitOrder, previous), List.of());
        return new LogEntry(writeSet, index, null);
    }

    /** The loop's use (ApplyLoop.handleEntry): a due entry is handled, then each one that waited for it. */
    private static List<LogEntry> handle(CommitOrderChains chains, AppliedPosition position, LogEntry entry) {
        List<LogEntry> handled = new ArrayList<>();
        if (!chains.due(entry)) {
            return handled;
        }
        for (LogEntry due = entry; due != null; due = chains.handled(due)) {
            position.handled(due.index());
            handled.add(due);
        }
        return handled;
    }

    /** The commit orders {@link #handle} handled. */
    private static List<Long> deliver(CommitOrderChains chains, AppliedPosition position, LogEntry entry) {
        return handle(chains, position, entry).stream()
                .map(due -> ((WriteSet) due.message()).order().commitOrder())
                .toList();
    }

    @Test
    void aWriteSetWaitsForItsPredecessorHeldBeforeThePosition() {
        AppliedPosition position = new AppliedPosition(0, Set.of());
        CommitOrderChains chains = new CommitOrderChains(position);
        assertEquals(List.of(1L), deliver(chains, position, entry(1, "a", 1, -1)));
        assertEquals(List.of(), deliver(chains, position, entry(2, "a", 3, 2)), "3 waits for 2");
        assertEquals(List.of(10L), deliver(chains, position, entry(3, "b", 10, -1)), "another origin goes on");
        assertEquals(1, position.after(3), "the position stays before the waiting entry 2");
        assertEquals(List.of(2L, 3L), deliver(chains, position, entry(4, "a", 2, 1)));
        assertEquals(4, position.after(4));
    }

    @Test
    void afterASnapshotAChainStartsWhereItIsMet() {
        AppliedPosition position = new AppliedPosition(0, Set.of());
        CommitOrderChains chains = new CommitOrderChains(position);
        chains.startsFromSnapshot();
        assertEquals(List.of(7L), deliver(chains, position, entry(1, "a", 7, 6)));
        assertEquals(List.of(), deliver(chains, position, entry(2, "a", 9, 8)), "once met, the chain is known");
    }

    @Test
    void aDroppedWriteSetNoLongerHoldsThePosition() {
        AppliedPosition position = new AppliedPosition(0, Set.of());
        CommitOrderChains chains = new CommitOrderChains(position);
        LogEntry waiting = entry(1, "a", 2, 1);
        assertFalse(chains.due(waiting));
        position.handled(2);
        assertEquals(0, position.after(2));
        assertSame(waiting, chains.dropWaiting(101));
        assertNull(chains.dropWaiting(101), "dropped once");
        assertEquals(2, position.after(2));
    }

    @Test
    void everyWriteSetIsHandledOnceInItsOriginsCommitOrder() {
        for (long seed = 1; seed <= 500; seed++) {
            Random random = new Random(seed);
            int origins = 1 + random.nextInt(3);
            List<LogEntry> log = new ArrayList<>();
            List<long[]> orders = new ArrayList<>(); // origin, commit order
            for (int origin = 0; origin < origins; origin++) {
                int length = 1 + random.nextInt(15);
                for (long order = 1; order <= length; order++) {
                    orders.add(new long[] {origin, order});
                }
            }
            Collections.shuffle(orders, random);
            for (int i = 0; i < orders.size(); i++) {
                long[] order = orders.get(i);
                log.add(entry(i + 1, "n" + order[0], order[1], order[1] == 1 ? -1 : order[1] - 1));
            }
            AppliedPosition position = new AppliedPosition(0, Set.of());
            CommitOrderChains chains = new CommitOrderChains(position);
            List<List<Long>> handledByOrigin = new ArrayList<>();
            for (int origin = 0; origin < origins; origin++) {
                handledByOrigin.add(new ArrayList<>());
            }
            TreeSet<Long> waiting = new TreeSet<>();
            for (LogEntry entry : log) {
                waiting.add(entry.index());
                for (LogEntry due : handle(chains, position, entry)) {
                    WriteSet writeSet = (WriteSet) due.message();
                    assertTrue(waiting.remove(due.index()), "seed " + seed + ": entry " + due.index() + " twice");
                    handledByOrigin
                            .get(Integer.parseInt(writeSet.origin().substring(1)))
                            .add(writeSet.order().commitOrder());
                }
                if (!waiting.isEmpty()) {
                    assertTrue(
                            position.after(entry.index()) < waiting.first(),
                            "seed " + seed + ": position " + position.after(entry.index()) + " passes waiting entry "
                                    + waiting.first());
                }
            }
            assertTrue(waiting.isEmpty(), "seed " + seed + ": never due " + waiting);
            for (List<Long> handled : handledByOrigin) {
                for (int i = 0; i < handled.size(); i++) {
                    assertEquals(i + 1L, handled.get(i), "seed " + seed + ": commit order " + handled);
                }
            }
            assertEquals(log.size(), position.after(log.size()), "seed " + seed + ": nothing left waiting");
        }
    }
}
