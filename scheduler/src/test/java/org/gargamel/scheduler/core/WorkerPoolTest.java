package org.gargamel.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The worker pool's choices: the least-loaded worker, ties going to the least-loaded node (so new chains spread over
 * the replicas), a node to avoid skipped while another serves, a joining node given nothing until it serves, and a
 * departed node's bit given to the next node to join.
 */
@Tag("unit")
class WorkerPoolTest {
    private final WorkerPool pool = new WorkerPool();

    @Test
    void equallyLoadedWorkersGoToTheLeastLoadedNode() {
        pool.add("a", 2, true);
        pool.add("b", 2, true);
        assertEquals(new WorkerRef("a", 0), pool.leastLoadedAvoiding(0).ref, "all idle: node name, then index");
        pool.named("a").workers[0].load = 1;
        assertEquals(new WorkerRef("b", 0), pool.leastLoadedAvoiding(0).ref, "a#1 is idle too, but node a is not");
        assertEquals(new WorkerRef("a", 1), pool.leastLoadedAvoiding(pool.named("b").bit).ref, "b avoided");
    }

    @Test
    void aJoiningNodeGetsNoCallUntilItServes() {
        pool.add("a", 1, true);
        pool.add("b", 1, false);
        assertEquals(List.of(new WorkerRef("a", 0)), pool.refs());
        assertEquals(1, pool.servingCount());
        pool.add("b", 1, true);
        assertEquals(List.of(new WorkerRef("a", 0), new WorkerRef("b", 0)), pool.refs());
        assertEquals(2, pool.servingCount());
    }

    @Test
    void aDepartedNodesBitGoesToTheNextNodeToJoin() {
        pool.add("a", 1, true);
        pool.add("b", 1, true);
        long bitOfA = pool.named("a").bit;
        pool.remove("a");
        assertNull(pool.named("a"));
        assertEquals(pool.named("b").bit, pool.liveMask(), "only b is live");
        pool.add("c", 1, true);
        assertEquals(bitOfA, pool.named("c").bit);
        assertEquals(List.of("b", "c"), pool.namesOf(pool.liveMask()));
    }
}
