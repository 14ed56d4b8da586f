package org.gargamel.scheduler.core;

import static org.gargamel.tpcc.testing.TpccCalls.delivery;
import static org.gargamel.tpcc.testing.TpccCalls.newOrder;
import static org.gargamel.tpcc.testing.TpccCalls.orderStatus;
import static org.gargamel.tpcc.testing.TpccCalls.paymentById;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thesis's Fig 3.3 scenarios with TPC-C calls (PSI), the baseline modes, rejections and node departure.
 * New-Order calls conflict when they share a district or a stock row, so items pick the conflicts.
 */
@Tag("unit")
class SchedulerTest {
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private static final WorkerRef A0 = new WorkerRef("a", 0);
    private static final WorkerRef A1 = new WorkerRef("a", 1);
    private static final WorkerRef B0 = new WorkerRef("b", 0);
    private static final WorkerRef B1 = new WorkerRef("b", 1);

    private static Scheduler gargamel() {
        return gargamel(RULES);
    }

    private static Scheduler gargamel(ClassifierRules rules) {
        Scheduler scheduler = new Scheduler(rules, Mode.GARGAMEL, Isolation.PSI);
        scheduler.addNode("b", 2);
        scheduler.addNode("a", 2);
        return scheduler;
    }

    private static long[] deps(Placement placement) {
        long[] sorted = placement.backDependencies().clone();
        Arrays.sort(sorted);
        return sorted;
    }

    /**
     * A joining node counts for garbage collection at once (a transaction placed from then on waits for its report, so
     * it cannot be collected before the node has it) but is given no call until it says it is ready.
     */
    @Test
    void aJoiningNodeCountsForCollectionAtOnceAndGetsCallsOnlyWhenReady() {
        Scheduler s = new Scheduler(RULES, Mode.GARGAMEL, Isolation.PSI);
        s.addNode("a", 2);
        s.addNode("b", 2, false);
        assertEquals(1, s.nodeCount(), "b does not serve yet");
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(1, 2, 2));
        assertEquals("a", t1.worker().node());
        assertEquals("a", t2.worker().node(), "no call on a joining node");
        s.reportVisible("a", 1);
        assertEquals(2, s.inFlight(), "transaction 1 waits for b's report too");
        s.reportVisible("b", 1);
        assertEquals(1, s.inFlight());
        s.addNode("b", 2, true);
        assertEquals(2, s.nodeCount());
        Placement t3 = s.place(newOrder(1, 3, 3));
        assertEquals("b", t3.worker().node(), "b serves now and is the least loaded");
    }

    @Test
    void fig33aTwoIndependentCallsStartTwoChains() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(1, 2, 2));
        assertEquals(1, t1.txn());
        assertEquals(2, t2.txn());
        assertEquals(A0, t1.worker(), "least loaded, ties by node name then index");
        assertEquals(B0, t2.worker(), "least loaded, then on the least-loaded node: chains spread over replicas");
        assertArrayEquals(new long[0], deps(t1));
        assertArrayEquals(new long[0], deps(t2));
        assertEquals(2, s.graphSize());
    }

    @Test
    void fig33aConflictingSecondCallQueuesBehindTheFirst() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(1, 1, 2));
        assertArrayEquals(new long[] {1}, deps(t2));
        assertEquals(t1.worker(), t2.worker());
    }

    @Test
    void fig33bThirdCallExtendsTheChainItConflictsWith() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(1, 2, 2));
        Placement t3 = s.place(newOrder(1, 1, 3));
        assertArrayEquals(new long[] {1}, deps(t3));
        assertEquals(t1.worker(), t3.worker());
        assertNotEquals(t2.worker(), t3.worker());
    }

    @Test
    void fig33cThirdCallMergesBothChainsOnTheMostRecent() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(1, 2, 2));
        Placement t3 = s.place(newOrder(1, 1, 2)); // district (1,1) of t1, stock (1,2) of t2
        assertArrayEquals(new long[] {1, 2}, deps(t3));
        assertEquals(t2.worker(), t3.worker());
        assertNotEquals(t1.worker(), t3.worker());
    }

    @Test
    void fig33dSecondSuccessorSplitsToAnotherWorker() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1, 2));
        Placement t2 = s.place(newOrder(1, 2, 1)); // stock (1,1)
        Placement t3 = s.place(newOrder(1, 3, 2)); // stock (1,2), not t2
        assertArrayEquals(new long[] {1}, deps(t2));
        assertArrayEquals(new long[] {1}, deps(t3));
        assertEquals(t1.worker(), t2.worker(), "the first successor continues the chain");
        assertNotEquals(t1.worker(), t3.worker(), "the second successor starts a branch");
        assertEquals(B0, t3.worker(), "on the least-loaded worker of the least-loaded node");
    }

    @Test
    void fig33eSplitThenMergeThenExtend() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1, 2));
        Placement t2 = s.place(newOrder(1, 2, 1));
        Placement t3 = s.place(newOrder(1, 3, 2));
        Placement t4 = s.place(newOrder(1, 2, 2)); // district (1,2) of t2, stock (1,2) of t3
        Placement t5 = s.place(newOrder(1, 2, 7)); // district (1,2): after t4 only
        Placement t6 = s.place(newOrder(1, 4, 9)); // independent
        assertArrayEquals(new long[] {2, 3}, deps(t4));
        assertEquals(t3.worker(), t4.worker(), "merge continues the most recent open chain");
        assertArrayEquals(new long[] {4}, deps(t5));
        assertEquals(t4.worker(), t5.worker());
        assertArrayEquals(new long[0], deps(t6));
        assertEquals(A1, t6.worker(), "a#1 and b#1 are idle; node a carries 2 calls, node b 3");
        assertEquals(t1.worker(), t2.worker());
        // t2's chain is still open: a call after t2 alone would go back to t2's worker.
        assertEquals(6, s.graphSize());
    }

    @Test
    void paymentAndNewOrderOfOneDistrictDoNotConflictUnderPsiButDoUnderSi() {
        Scheduler psi = gargamel();
        psi.place(newOrder(1, 1, 1));
        assertArrayEquals(new long[0], deps(psi.place(paymentById(1, 1, 1, 1, 1))));
        Scheduler si = new Scheduler(RULES, Mode.GARGAMEL, Isolation.SI);
        si.addNode("a", 1);
        si.place(newOrder(1, 1, 1));
        assertArrayEquals(new long[] {1}, deps(si.place(paymentById(1, 1, 1, 1, 1))));
    }

    /** The thesis's rules: Delivery's wildcard customer write of c_balance meets every Payment of its warehouse. */
    @Test
    void deliveryWildcardWaitsForEveryWriterOfItsWarehouse() {
        Scheduler s = gargamel(ClassifierRules.loadResource(TpccRules.class, TpccRules.TABLE61_RESOURCE));
        s.place(paymentById(1, 1, 1, 1, 1));
        s.place(paymentById(2, 1, 1, 2, 3)); // customer (1,2,3)
        s.place(paymentById(2, 1, 2, 1, 1)); // other warehouse's customer
        Placement d = s.place(delivery(1));
        assertArrayEquals(new long[] {1, 2}, deps(d));
    }

    /** The default rules: Delivery and Payment only add to c_balance, so the Delivery waits for none of them. */
    @Test
    void deliveryDoesNotWaitForPaymentsWhenBothOnlyAdd() {
        Scheduler s = gargamel();
        s.place(paymentById(1, 1, 1, 1, 1));
        s.place(paymentById(2, 1, 1, 2, 3));
        assertArrayEquals(new long[0], deps(s.place(delivery(1))));
        assertArrayEquals(new long[] {3}, deps(s.place(delivery(1))), "a Delivery of that warehouse does wait");
    }

    @Test
    void readOnlyCallsStayOutOfTheGraph() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement r = s.place(orderStatus(1, 1, 1));
        assertTrue(r.readOnly());
        assertFalse(t1.readOnly());
        assertArrayEquals(new long[0], deps(r));
        assertEquals(B0, r.worker(), "least loaded, on the least-loaded node");
        assertEquals(1, s.graphSize());
        assertEquals(2, s.inFlight());
        s.reportVisible("a", 2); // not its node: ignored
        assertEquals(2, s.inFlight());
        s.reportVisible("b", 2);
        assertEquals(1, s.inFlight());
        assertEquals(0, s.load(A1));
        Placement t3 = s.place(newOrder(1, 1, 2));
        assertArrayEquals(new long[] {1}, deps(t3), "a read-only call is never a dependency");
    }

    /**
     * A session's last write is a back-dependency while it is in the graph (the call waits until it is visible where
     * it runs), for read-only and update calls; it neither picks the worker nor closes the write's chain, and once
     * visible everywhere it adds nothing.
     */
    @Test
    void aSessionsLastWriteIsWaitedForButDoesNotChain() {
        Scheduler s = gargamel();
        Placement write = s.place(newOrder(1, 1, 1));
        Placement read = s.place(orderStatus(1, 1, 1), write.txn());
        assertArrayEquals(new long[] {write.txn()}, deps(read), "the read waits for the session's write");
        assertEquals(
                write.worker().node(),
                read.worker().node(),
                "its executing node: visible there, and b may not have it");
        Placement unrelated = s.place(newOrder(1, 2, 2), write.txn());
        assertArrayEquals(new long[] {write.txn()}, deps(unrelated));
        // Where it runs is the least-loaded choice (the write's node, now); that it did not close the write's chain is
        // checked next: the conflicting call still joins it.
        Placement conflicting = s.place(newOrder(1, 1, 3), write.txn());
        assertArrayEquals(new long[] {write.txn()}, deps(conflicting), "named once, as the conflict it also is");
        assertEquals(write.worker(), conflicting.worker(), "the chain stayed open for the conflicting call");
        Placement none = s.place(newOrder(1, 3, 4), 0);
        assertArrayEquals(new long[0], deps(none), "no session transaction");
        Placement unknown = s.place(newOrder(1, 4, 5), 12345);
        assertArrayEquals(
                new long[0],
                deps(unknown),
                "an id this scheduler does not hold (collected, or an earlier "
                        + "scheduler's) is visible everywhere already");
        for (long txn = 1; txn <= unknown.txn(); txn++) {
            s.reportVisible("a", txn);
            s.reportVisible("b", txn);
        }
        assertEquals(0, s.graphSize());
        Placement later = s.place(orderStatus(1, 1, 1), write.txn());
        assertArrayEquals(new long[0], deps(later), "visible everywhere: nothing to wait for");
    }

    /**
     * A read or a new chain avoids the nodes that may not have the session's last write yet: those that have not
     * reported it, except the node that ran it.
     */
    @Test
    void aSessionsCallPrefersANodeWhereItsLastWriteIsVisible() {
        Scheduler s = gargamel();
        s.addNode("c", 2);
        Placement write = s.place(newOrder(1, 1, 1));
        assertEquals("a", write.worker().node());
        assertEquals("b", s.place(newOrder(1, 2, 2)).worker().node());
        s.reportVisible("b", write.txn()); // b applied it; c has not; a's report of its execution is not in yet
        assertEquals("c", s.place(orderStatus(1, 1, 1)).worker().node(), "without a session: c, the least loaded");
        Placement read = s.place(orderStatus(1, 1, 1), write.txn());
        assertNotEquals("c", read.worker().node(), "not where the session's write may not be applied yet");
        Placement chain = s.place(newOrder(1, 5, 5), write.txn());
        assertNotEquals("c", chain.worker().node(), "a new chain neither");
    }

    /**
     * The node that ran a session's write makes it visible before the session hears it committed, so the session's
     * next call may go there before that node's PROGRESS report (sent every ProgressReporter.INTERVAL_MILLIS) arrives;
     * counting it as not visible sent the call to a replica that had to wait for the apply.
     */
    @Test
    void aSessionsNextCallMayGoToTheNodeThatRanItsWriteBeforeItReports() {
        Scheduler s = gargamel();
        Placement write = s.place(newOrder(1, 1, 1));
        assertEquals("a", write.worker().node());
        assertEquals("b", s.place(orderStatus(1, 1, 1)).worker().node(), "without a session: b, the least loaded");
        s.reportVisible("b", 2); // the read ran: b idle again
        Placement read = s.place(orderStatus(1, 1, 1), write.txn());
        assertEquals("a", read.worker().node(), "its executing node, though no node has reported the write yet");
        assertArrayEquals(new long[] {write.txn()}, deps(read), "still a back-dependency, visible there already");
    }

    /**
     * An ad-hoc query is placed exactly as a read-only call: out of the graph, no conflict keys, after the session's
     * last write and where that write is visible already, in every mode.
     */
    @Test
    void anAdHocQueryIsPlacedAsAReadOnlyCallAfterItsSessionsWrite() {
        ProcedureCall query = ProcedureCall.adHoc(
                AdHocQuery.run("SELECT * FROM district WHERE d_id = $1", List.of(23), List.of("1")));
        for (Mode mode : Mode.values()) {
            Scheduler s = new Scheduler(RULES, mode, Isolation.PSI);
            s.addNode("b", 2);
            s.addNode("a", 2);
            Placement write = s.place(newOrder(1, 1, 1));
            int graph = s.graphSize();
            s.reportVisible("b", write.txn()); // b applied it; a's report of its execution is not in yet
            Placement read = s.place(query, write.txn());
            assertTrue(read.readOnly(), mode.toString());
            assertEquals(graph, s.graphSize(), mode + ": not in the graph");
            assertArrayEquals(new long[] {write.txn()}, deps(read), mode + ": waits for the session's write");
            assertEquals("b", read.worker().node(), mode + ": where the session's write is visible");
            assertArrayEquals(new long[0], deps(s.place(query)), mode + ": without a session, nothing to wait for");
        }
    }

    @Test
    void loadIsPlacedMinusReportedByTheWorkersNode() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        s.place(newOrder(1, 1, 2));
        assertEquals(2, s.load(t1.worker()));
        s.reportVisible("b", 1); // b applied the write-set: not a's execution
        assertEquals(2, s.load(t1.worker()));
        s.reportVisible("a", 1);
        s.reportVisible("a", 1); // repeated: harmless
        assertEquals(1, s.load(t1.worker()));
        assertEquals(0, s.load(new WorkerRef("nobody", 0)));
    }

    @Test
    void collectedOnceEveryNodeReportedAndChainsRestart() {
        Scheduler s = gargamel();
        Placement t1 = s.place(newOrder(1, 1, 1));
        s.reportVisible("a", 1);
        assertEquals(1, s.graphSize());
        assertEquals(1, s.inFlight());
        s.reportVisible("b", 1);
        assertEquals(0, s.graphSize());
        assertEquals(0, s.indexSize());
        assertEquals(0, s.inFlight());
        assertEquals(0, s.trackedTransactions());
        Placement t2 = s.place(newOrder(1, 1, 1));
        assertArrayEquals(new long[0], deps(t2), "visible everywhere: no dependency needed");
        assertEquals(t1.worker(), t2.worker(), "least loaded again");
        s.reportVisible("a", 99); // unknown id
        s.reportVisible("zz", 2); // unknown node
        assertEquals(1, s.inFlight());
    }

    @Test
    void fullyReportedTransactionWaitsForItsDependencyBeforeLeavingTheGraph() {
        Scheduler s = gargamel();
        s.place(newOrder(1, 1, 1));
        s.place(newOrder(1, 1, 2)); // after 1
        s.reportVisible("a", 2);
        s.reportVisible("b", 2);
        assertEquals(1, s.inFlight(), "2 is visible everywhere");
        assertEquals(2, s.graphSize(), "but stays until 1 leaves");
        assertEquals(2, s.indexSize());
        s.reportVisible("a", 1);
        s.reportVisible("b", 1);
        assertEquals(0, s.graphSize());
        assertEquals(0, s.indexSize());
        assertEquals(0, s.trackedTransactions());
    }

    @Test
    void removeNodeReturnsItsUnreportedPlacementsAndGcProceeds() {
        Scheduler s = gargamel();
        s.addNode("c", 1);
        WorkerRef c0 = new WorkerRef("c", 0);
        Placement t1 = s.place(newOrder(1, 1, 1)); // a#0
        Placement t2 = s.place(newOrder(1, 2, 2)); // b#0: node a is busier
        Placement t3 = s.place(newOrder(1, 3, 3)); // c#0
        Placement t4 = s.place(newOrder(1, 4, 4)); // a#1
        Placement t5 = s.place(orderStatus(1, 1, 1)); // b#1
        Placement t6 = s.place(newOrder(1, 5, 5)); // c#0: one call per worker, node c has the fewest
        assertEquals(
                List.of(A0, B0, c0, A1, B1, c0),
                List.of(t1.worker(), t2.worker(), t3.worker(), t4.worker(), t5.worker(), t6.worker()));
        for (String node : List.of("a", "b", "c")) {
            s.reportVisible(node, 3);
        }
        s.reportVisible("a", 1);
        s.reportVisible("b", 1);
        s.reportVisible("b", 4);
        s.reportVisible("a", 4);
        assertEquals(4, s.graphSize());
        assertEquals(5, s.inFlight());

        List<Placement> rejected = s.removeNode("c");
        assertEquals(List.of(t6), rejected, "c executed 3 and never reported 6");
        assertEquals(2, s.nodeCount());
        assertEquals(0, s.load(c0));
        assertEquals(
                2, s.graphSize(), "1 and 4 were reported by a and b, the nodes left; 2 and 6 stay until both report");
        Placement t7 = s.place(newOrder(1, 5, 6)); // after 6, whose node left: a new chain
        assertArrayEquals(new long[] {6}, deps(t7));
        assertEquals(A0, t7.worker(), "a's workers are idle again");
        List<Placement> rejectedB = s.removeNode("b");
        assertEquals(List.of(t2, t5), rejectedB, "b never reported 2, nor its read-only 5");
        for (long txn : new long[] {2, 6, 7}) {
            s.reportVisible("a", txn);
        }
        assertEquals(0, s.graphSize());
        assertEquals(0, s.inFlight());
        assertEquals(0, s.indexSize());
        assertEquals(0, s.trackedTransactions());
        assertEquals(List.of(), s.removeNode("c"), "already gone");
    }

    @Test
    void removingTheLastReporterCollectsAtOnce() {
        Scheduler s = gargamel();
        s.place(newOrder(1, 1, 1)); // a#0
        s.place(newOrder(1, 1, 2)); // a#0 after 1
        s.reportVisible("a", 1);
        s.reportVisible("a", 2);
        assertEquals(2, s.graphSize());
        assertEquals(List.of(), s.removeNode("b"));
        assertEquals(0, s.graphSize());
        assertEquals(0, s.inFlight());
        assertEquals(0, s.trackedTransactions());
    }

    @Test
    void addNodeIsIdempotentAndLaterNodesCountOnlyForLaterTransactions() {
        Scheduler s = gargamel();
        s.addNode("a", 2);
        assertEquals(2, s.nodeCount());
        assertThrows(IllegalArgumentException.class, () -> s.addNode("a", 3));
        assertThrows(IllegalArgumentException.class, () -> s.addNode("z", 0));
        s.place(newOrder(1, 1, 1));
        s.addNode("c", 1);
        s.place(newOrder(1, 2, 2));
        s.reportVisible("a", 1);
        s.reportVisible("b", 1);
        assertEquals(1, s.inFlight(), "1 was placed before c joined");
        s.reportVisible("a", 2);
        s.reportVisible("b", 2);
        assertEquals(1, s.inFlight(), "2 waits for c too");
        s.reportVisible("c", 2);
        assertEquals(0, s.inFlight());
        assertEquals(0, s.trackedTransactions());
    }

    @Test
    void roundRobinPlacesUpdatesInTurnWithoutDependencies() {
        Scheduler s = new Scheduler(RULES, Mode.ROUND_ROBIN, Isolation.PSI);
        s.addNode("b", 2);
        s.addNode("a", 2);
        List<WorkerRef> expected = List.of(A0, A1, B0, B1, A0, A1);
        for (WorkerRef worker : expected) {
            Placement p = s.place(newOrder(1, 1, 1)); // all conflict
            assertEquals(worker, p.worker());
            assertArrayEquals(new long[0], p.backDependencies());
        }
        Placement r = s.place(orderStatus(1, 1, 1));
        assertEquals(B0, r.worker(), "read-only: least loaded (b#0 and b#1 have 1, a has 2)");
        assertEquals(B0, s.place(newOrder(1, 1, 1)).worker(), "the turn is not disturbed by read-only calls");
        assertEquals(7, s.graphSize());
        for (long txn = 1; txn <= 8; txn++) {
            s.reportVisible("a", txn);
            s.reportVisible("b", txn);
        }
        assertEquals(0, s.graphSize());
        assertEquals(0, s.inFlight());
        assertEquals(0, s.trackedTransactions());
    }

    @Test
    void centralizedPutsEveryUpdateOnOneWorkerAfterThePreviousUpdate() {
        Scheduler s = new Scheduler(RULES, Mode.CENTRALIZED, Isolation.PSI);
        s.addNode("b", 2);
        s.addNode("a", 2);
        Placement t1 = s.place(newOrder(1, 1, 1));
        Placement t2 = s.place(newOrder(2, 2, 2)); // no conflict, still chained
        Placement r = s.place(orderStatus(1, 1, 1));
        Placement t4 = s.place(paymentById(3, 1, 3, 1, 1));
        assertEquals(B0, t1.worker(), "the first worker of the first node to join");
        assertEquals(B0, t2.worker());
        assertEquals(B0, t4.worker());
        assertArrayEquals(new long[0], t1.backDependencies());
        assertArrayEquals(new long[] {1}, t2.backDependencies());
        assertArrayEquals(new long[] {2}, t4.backDependencies(), "read-only calls are skipped");
        assertEquals(A0, r.worker());
        assertArrayEquals(new long[0], r.backDependencies());
        for (long txn : new long[] {1, 2, 3, 4}) {
            s.reportVisible("a", txn);
            s.reportVisible("b", txn);
        }
        assertEquals(0, s.graphSize());
        assertArrayEquals(new long[0], s.place(newOrder(1, 1, 1)).backDependencies(), "4 was collected");
    }

    @Test
    void badCallsAreRejectedWithTheClassifiersMessage() {
        Scheduler s = gargamel();
        ProcedureCall unknown = ProcedureCall.of("launch_rockets", 1);
        ProcedureCall arity = ProcedureCall.of("delivery", 1);
        ProcedureCall type = ProcedureCall.of("delivery", "one", 1, TpccCalls.NOW);
        ProcedureCall zipped = TpccCalls.newOrder(1, 1, List.of(1, 1), List.of(1));
        for (ProcedureCall call : List.of(unknown, arity, type, zipped)) {
            String classifier = assertThrows(RuntimeException.class, () -> RULES.writeKeys(call, Isolation.PSI))
                    .getMessage();
            RejectedCallException e = assertThrows(RejectedCallException.class, () -> s.place(call));
            assertEquals(classifier, e.getMessage());
        }
        assertTrue(assertThrows(RejectedCallException.class, () -> s.place(unknown))
                .getMessage()
                .contains("launch_rockets"));
        assertEquals(0, s.graphSize());
        assertEquals(0, s.indexSize());
        assertEquals(1, s.place(newOrder(1, 1, 1)).txn(), "rejected calls take no transaction id");
    }

    @Test
    void noNodeNoPlacement() {
        Scheduler s = new Scheduler(RULES, Mode.GARGAMEL, Isolation.PSI);
        RejectedCallException e = assertThrows(RejectedCallException.class, () -> s.place(newOrder(1, 1, 1)));
        assertTrue(e.getMessage().startsWith("no node has joined"), e.getMessage());
        s.addNode("a", 1);
        s.removeNode("a");
        assertThrows(RejectedCallException.class, () -> s.place(orderStatus(1, 1, 1)));
        assertEquals(0, s.indexSize());
    }
}
