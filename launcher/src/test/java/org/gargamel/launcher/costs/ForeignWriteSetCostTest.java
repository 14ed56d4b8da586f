package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CPU per foreign write-set: what a call costs at R replicas beyond its cost at 1, per other replica (issue 40's
 * reading) and per write-set the nodes applied; the node JVMs' figures without their JIT, and with it.
 */
@Tag("unit")
class ForeignWriteSetCostTest {
    @Test
    void theExtraCostAtThreeReplicasIsSplitPerOtherReplicaAndPerAppliedWriteSet() {
        GargamelCosts one = CostFixtures.run(1, 0.1, 0.4, 1.4, 0);
        // 1840 write-sets applied for 1000 calls: 2 other replicas times 92% update calls.
        GargamelCosts three = CostFixtures.run(3, 0.2, 2.4, 3.0, 1840);

        ForeignWriteSetCost cost = ForeignWriteSetCost.derive(one, three).orElseThrow();

        assertEquals(3, cost.replicas());
        assertEquals(1.84, cost.writeSetsPerCall(), 1e-9);
        assertEquals(2.0, cost.nodeJvm().extraMsPerCall(), 1e-9);
        assertEquals(1.0, cost.nodeJvm().msPerCallPerOtherReplica(), 1e-9);
        assertEquals(1.087, cost.nodeJvm().msPerWriteSet(), 1e-9); // 2.0 / 1.84
        // With the JIT: 2.5 - 0.5 over 1.84 (both runs' JIT shares are the same here).
        assertEquals(1.087, cost.nodeJvm().msPerWriteSetWithJit(), 1e-9);
        assertEquals(1.6, cost.postgres().extraMsPerCall(), 1e-9);
        assertEquals(0.8, cost.postgres().msPerCallPerOtherReplica(), 1e-9);
        assertEquals(0.870, cost.postgres().msPerWriteSet(), 1e-9); // 1.6 / 1.84
    }

    @Test
    void theJitIsLeftOutOfTheSteadyStateFigureOnly() {
        GargamelCosts one = CostFixtures.run(1, 0.1, 0.4, 1.4, 0);
        GargamelCosts two = new GargamelCosts(
                2,
                0,
                1000,
                30,
                java.util.Map.of(
                        "nodes", new RoleCost(2.0, 1.0, 1.0), GargamelCosts.POSTGRES, RoleCost.withoutJit(2.0)),
                1000,
                1000,
                null,
                null,
                null,
                java.nio.file.Path.of("r"));

        ForeignWriteSetCost cost = ForeignWriteSetCost.derive(one, two).orElseThrow();

        assertEquals(0.6, cost.nodeJvm().msPerWriteSet(), 1e-9); // 1.0 - 0.4
        assertEquals(1.5, cost.nodeJvm().msPerWriteSetWithJit(), 1e-9); // 2.0 - 0.5
    }

    @Test
    void onlyARunOfMoreReplicasAgainstOneOfOneGivesFigures() {
        GargamelCosts one = CostFixtures.run(1, 0.1, 0.4, 1.4, 0);
        GargamelCosts three = CostFixtures.run(3, 0.2, 2.4, 3.0, 1840);
        GargamelCosts five = CostFixtures.run(5, 0.2, 4.4, 5.0, 3680);

        assertTrue(ForeignWriteSetCost.derive(one, one).isEmpty());
        assertTrue(ForeignWriteSetCost.derive(three, five).isEmpty(), "only against 1 replica");
        assertEquals(
                1.0,
                ForeignWriteSetCost.derive(one, five).orElseThrow().nodeJvm().msPerCallPerOtherReplica(),
                1e-9);
    }
}
