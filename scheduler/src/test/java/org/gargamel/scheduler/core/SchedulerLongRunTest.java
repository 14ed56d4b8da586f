package org.gargamel.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One million calls with prompt reports from 3 nodes: the graph, the index and the bookkeeping stay bounded. */
@Tag("unit")
class SchedulerLongRunTest {
    private static final int CALLS = 1_000_000;
    private static final int LAG = 100;
    private static final List<String> NODES = List.of("n1", "n2", "n3");

    @Test
    void aMillionCallsLeaveNothingBehind() {
        ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
        SplittableRandom random = new SplittableRandom(2026);
        List<ProcedureCall> mix = new ArrayList<>();
        for (int i = 0; i < 4096; i++) {
            mix.add(TpccCalls.random(random, 3));
        }
        Scheduler scheduler = new Scheduler(rules, Mode.GARGAMEL, Isolation.PSI);
        for (String node : NODES) {
            scheduler.addNode(node, 2);
        }
        ArrayDeque<Placement> inFlight = new ArrayDeque<>();
        int maxGraph = 0;
        long withDependencies = 0;
        for (int i = 0; i < CALLS; i++) {
            Placement placement = scheduler.place(mix.get(i & 4095));
            if (placement.backDependencies().length > 0) {
                withDependencies++;
            }
            inFlight.add(placement);
            if (inFlight.size() > LAG) {
                reportEverywhere(scheduler, inFlight.poll());
            }
            maxGraph = Math.max(maxGraph, scheduler.graphSize());
            if ((i & 1023) == 0) {
                assertEquals(scheduler.graphSize(), scheduler.indexSize());
                assertTrue(scheduler.trackedTransactions() <= LAG + 1, "tracked " + scheduler.trackedTransactions());
            }
        }
        assertTrue(maxGraph <= LAG + 1, "graph reached " + maxGraph);
        assertTrue(withDependencies > CALLS / 10, "the mix conflicts: " + withDependencies);
        assertEquals(LAG, scheduler.inFlight());
        while (!inFlight.isEmpty()) {
            reportEverywhere(scheduler, inFlight.poll());
        }
        assertEquals(0, scheduler.inFlight());
        assertEquals(0, scheduler.graphSize());
        assertEquals(0, scheduler.indexSize());
        assertEquals(0, scheduler.trackedTransactions());
        for (String node : NODES) {
            for (int w = 0; w < 2; w++) {
                assertEquals(0, scheduler.load(new WorkerRef(node, w)));
            }
        }
    }

    private static void reportEverywhere(Scheduler scheduler, Placement placement) {
        scheduler.reportVisible(placement.worker().node(), placement.txn());
        for (String node : NODES) {
            scheduler.reportVisible(node, placement.txn());
        }
    }
}
