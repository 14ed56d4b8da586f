package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Message;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.WorkerRef;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link AbandonResends} on a clock the test moves: a decision is sent again, with its unsettled transactions only, to
 * one node after another in name order, after 2, 4, 8, 16, 16 s..., and never once its calls are settled (or no longer
 * held). The cluster-level proof is ClusterTest.aLostAbandonIsSentAgainUntilItsCallsAreSettled.
 */
@Tag("unit")
class AbandonResendsTest {
    private record Sent(Address target, Message message) {}

    private final Address client = UUID.randomUUID();
    private final Address node1 = UUID.randomUUID();
    private final Address node2 = UUID.randomUUID();
    private final CallTable calls = new CallTable();
    private final NodeRegistry nodes = new NodeRegistry(null);
    private final List<Sent> sent = new ArrayList<>();
    private long now = 1_000;
    private final AbandonResends resends = new AbandonResends(
            calls,
            nodes,
            new LoopContext(
                    (target, message) -> sent.add(new Sent(target, message)),
                    (name, task) -> task.run(),
                    failure -> {
                        throw failure;
                    },
                    () -> true,
                    txn -> {}),
            () -> now);

    private void unsettled(long txn) {
        Placement placement = new Placement(txn, new WorkerRef("node-3", 0), new long[0], false);
        calls.placed(txn, new PendingCall(client, txn, ProcedureCall.of("payment", 1), 0, placement));
        calls.unsettle(txn, calls.lost(txn));
    }

    private void after(long seconds) {
        now += TimeUnit.SECONDS.toNanos(seconds);
        resends.tick();
    }

    @Test
    void aDecisionIsSentAgainWithBackoffToEachNodeInTurnUntilItsCallsAreSettled() {
        nodes.put("node-2", node2);
        nodes.put("node-1", node1);
        unsettled(11);
        unsettled(12);
        resends.sent(new Abandon("node-3", new long[] {11, 12, 13})); // 13: not held here (another scheduler's)

        after(1);
        assertEquals(List.of(), sent, "not due before 2 s");
        after(1);
        assertEquals(List.of(new Sent(node1, new Abandon("node-3", new long[] {11, 12}))), sent);
        after(3);
        assertEquals(1, sent.size(), "then after 4 s");
        after(1);
        assertEquals(new Sent(node2, new Abandon("node-3", new long[] {11, 12})), sent.get(1), "the next node");

        calls.settled(11);
        after(8);
        assertEquals(new Sent(node1, new Abandon("node-3", new long[] {12})), sent.get(2), "what is still unsettled");
        after(16);
        after(16);
        assertEquals(5, sent.size(), "16 s at most between two: " + sent);
        assertEquals(1, resends.unsettledCount());

        calls.settled(12);
        after(16);
        after(60);
        assertEquals(5, sent.size(), "settled: never again");
        assertEquals(0, resends.unsettledCount());
    }

    @Test
    void withNoNodeNothingIsSentAndTheCallsAnsweredAsUnknownAreForgotten() {
        unsettled(21);
        resends.sent(new Abandon("node-3", new long[] {21}));
        after(2);
        assertEquals(List.of(), sent, "no node to send it to");
        assertEquals(1, resends.unsettledCount());
        calls.takeUnsettled(); // every node left: the call is answered as unknown (Membership.onView)
        after(60);
        assertEquals(List.of(), sent);
        assertEquals(0, resends.unsettledCount());
    }
}
