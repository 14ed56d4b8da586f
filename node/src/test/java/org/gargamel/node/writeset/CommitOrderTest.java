package org.gargamel.node.writeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WriteSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PSI write-sets reach the log in the order their transactions committed at the node (the numbers they drew), whatever
 * order the workers hand them over in; each carries the number released before it; a skipped number holds nothing up;
 * a call hears COMMITTED only once its own entry is committed.
 */
@Tag("unit")
class CommitOrderTest {
    private final List<WriteSet> appended = new ArrayList<>();
    private final List<CompletableFuture<Void>> commits = new ArrayList<>();

    private final LogAppender log = (Message message, String what) -> {
        appended.add((WriteSet) message);
        CompletableFuture<Void> committed = new CompletableFuture<>();
        commits.add(committed);
        return committed;
    };

    private static WriteSet writeSet(long txn) {
        return new WriteSet(txn, "node-1", "payment", new long[0], -1, List.of());
    }

    @Test
    void writeSetsReachTheLogInCommitOrderWhateverTheyAreHandedOverIn() {
        CommitOrder order = new CommitOrder(log, 77, 10); // the next draws are 11, 12, ...
        CompletableFuture<Void> third = order.handOver(13, writeSet(103));
        CompletableFuture<Void> first = order.handOver(11, writeSet(101));
        assertEquals(List.of(101L), appended.stream().map(WriteSet::txnId).toList(), "13 waits for 12");
        assertEquals(1, order.waiting());
        CompletableFuture<Void> second = order.handOver(12, writeSet(102));
        assertEquals(
                List.of(101L, 102L, 103L),
                appended.stream().map(WriteSet::txnId).toList());
        assertEquals(new WriteSet.Order(77, 11, -1), appended.get(0).order());
        assertEquals(new WriteSet.Order(77, 12, 11), appended.get(1).order());
        assertEquals(new WriteSet.Order(77, 13, 12), appended.get(2).order());
        assertFalse(first.isDone() || second.isDone() || third.isDone(), "nobody hears COMMITTED before the log");
        commits.get(1).complete(null);
        assertTrue(second.isDone() && !first.isDone(), "each call waits for its own entry");
        commits.get(0).complete(null);
        commits.get(2).completeExceptionally(new IllegalStateException("no majority"));
        assertTrue(first.isDone() && !first.isCompletedExceptionally());
        assertTrue(third.isCompletedExceptionally(), "a failed append fails its call's future");
    }

    @Test
    void aSkippedNumberHoldsNothingUp() {
        CommitOrder order = new CommitOrder(log, 5, 0);
        CompletableFuture<Void> three = order.handOver(3, writeSet(3));
        order.skip(2); // drawn by a call whose COMMIT failed
        assertEquals(List.of(), appended, "1 is still missing");
        CompletableFuture<Void> one = order.handOver(1, writeSet(1));
        assertEquals(List.of(1L, 3L), appended.stream().map(WriteSet::txnId).toList());
        assertFalse(one.isDone() || three.isDone(), "both wait for the log");
        assertEquals(1, appended.get(1).order().previous(), "3 follows 1: 2 never was");
        assertThrows(IllegalStateException.class, () -> order.handOver(3, writeSet(33)), "a number twice is a bug");
    }
}
