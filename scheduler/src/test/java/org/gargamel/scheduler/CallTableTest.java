package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.WorkerRef;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The call table's invariant: a call is known by client and call id (a copy sent again is not placed twice) exactly
 * while it is pending at its node or unsettled after its node left.
 */
@Tag("unit")
class CallTableTest {
    private final Address client = UUID.randomUUID();
    private final CallTable table = new CallTable();

    @Test
    void aCallIsInFlightUntilItsOwnNodeReportsIt() {
        PendingCall call = call(7, 101, "node-1");
        table.placed(101, call);
        assertEquals(101L, table.inFlight(client, 7));

        assertNull(table.reported("node-2", 101), "another node's report does not finish it");
        assertEquals(101L, table.inFlight(client, 7));
        assertSame(call, table.pending(101));

        assertSame(call, table.reported("node-1", 101));
        assertNull(table.inFlight(client, 7), "reported: a copy is placed again");
        assertNull(table.pending(101));
    }

    @Test
    void aDepartedNodesCallIsInFlightUntilTheSurvivorsSettleIt() {
        PendingCall call = call(8, 102, "node-1");
        table.placed(102, call);
        assertSame(call, table.lost(102));
        table.unsettle(102, call);
        assertEquals(102L, table.inFlight(client, 8), "unsettled: still in flight");
        assertEquals(1, table.unsettledCount());

        table.agreed(102, new long[] {5});
        assertArrayEquals(new long[] {5}, table.unsettledCall(102).agreed(), "what the log agreed stays with it");

        assertEquals(call.callId(), table.settled(102).callId());
        assertNull(table.inFlight(client, 8));
        assertEquals(0, table.unsettledCount());
        assertNull(table.settled(102), "settled once");
    }

    @Test
    void whenEveryNodeLeftEveryUnsettledCallIsTakenOutOfFlight() {
        for (long txn = 1; txn <= 3; txn++) {
            table.placed(txn, call(txn, txn, "node-1"));
            table.unsettle(txn, table.lost(txn));
        }
        Map<Long, PendingCall> taken = table.takeUnsettled();
        assertEquals(List.of(1L, 2L, 3L), taken.keySet().stream().sorted().toList());
        for (long txn = 1; txn <= 3; txn++) {
            assertNull(table.inFlight(client, txn), "call " + txn);
        }
        assertEquals(0, table.unsettledCount());
    }

    @Test
    void aRefusedCallIsNoLongerInFlight() {
        table.placed(103, call(9, 103, "node-1"));
        table.refused(client, 9);
        assertNull(table.inFlight(client, 9));
    }

    /**
     * A site's call dispatched once the log placed it (pessimistic, placed by owners) or run again after a collision
     * goes to the node and worker it was placed on, after the log's dependencies: the worker lives in the pending call,
     * not in the agreement's decision.
     */
    @Test
    void aDispatchedCallKeepsItsWorkerAndTakesTheLogsDependencies() {
        Placement placed = new Placement(104, new WorkerRef("node-2", 3), new long[] {100}, false);
        PendingCall call = new PendingCall(client, 10, ProcedureCall.of("payment", 1), 0, placed);
        Placement dispatched = call.dispatched(new long[] {101, 102});
        assertEquals(new WorkerRef("node-2", 3), dispatched.worker(), "on the worker it was placed on");
        assertEquals("node-2", call.node());
        assertEquals(104, dispatched.txn());
        assertArrayEquals(new long[] {101, 102}, dispatched.backDependencies(), "after what the log placed before it");
        assertEquals(3, call.execute(dispatched, false, false, Map.of()).worker(), "the EXECUTE names that worker");
    }

    private PendingCall call(long callId, long txn, String node) {
        Placement placement = new Placement(txn, new WorkerRef(node, 0), new long[0], false);
        return new PendingCall(client, callId, ProcedureCall.of("payment", 1), 0, placement);
    }
}
