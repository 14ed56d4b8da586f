package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Issue 40's targets against the bench's figures: which pass, which fail, which the bench could not measure. */
@Tag("unit")
class CostTargetsTest {
    private final GargamelCosts one = CostFixtures.run(1, 0.05, 0.2, 0.9, 0);
    // Per write-set: node JVM (2.4 - 0.2) / 1.84 = 1.196, PostgreSQL (1.3 - 0.9) / 1.84 = 0.217.
    private final GargamelCosts three = CostFixtures.run(3, 0.07, 2.4, 1.3, 1840);
    private final List<ForeignWriteSetCost> derived =
            List.of(ForeignWriteSetCost.derive(one, three).orElseThrow());

    @Test
    void eachTargetIsCheckedAgainstItsFigure() {
        List<CostTargets.Target> targets = CostTargets.evaluate(List.of(one, three), derived, CostFixtures.nativeRun());

        CostTargets.Target nodeWriteSet = find(targets, "node JVM CPU per foreign write-set", 3);
        assertEquals(1.196, nodeWriteSet.measuredMs(), 1e-9);
        assertEquals(false, nodeWriteSet.pass());
        assertEquals("/perForeignWriteSet/3/nodeJvm/msPerWriteSet", nodeWriteSet.figure());
        // 0.217 against 1.3 × the native apply per update transaction, 0.3: 0.39.
        CostTargets.Target postgresWriteSet = find(targets, "PostgreSQL CPU per applied write-set", 3);
        assertEquals(0.39, postgresWriteSet.limitMs(), 1e-9);
        assertEquals(true, postgresWriteSet.pass());
        assertEquals(true, find(targets, "node JVM CPU per executed call", 1).pass()); // 0.2 <= 0.25
        // 0.9 against 1.25 × the native execute per call, 0.76: 0.95.
        CostTargets.Target postgresCall = find(targets, "PostgreSQL CPU per executed call", 1);
        assertEquals(0.95, postgresCall.limitMs(), 1e-9);
        assertEquals(true, postgresCall.pass());
        assertEquals(true, find(targets, "scheduler CPU per call", 1).pass()); // 0.05
        assertEquals(false, find(targets, "scheduler CPU per call", 3).pass()); // 0.07
        assertEquals(false, find(targets, "client library CPU per call", 3).pass());
        // All Java at 3 replicas: 0.07 + 0.07 + 2.4 = 2.54 against half of PostgreSQL's 1.3.
        CostTargets.Target java = find(targets, "all Java CPU per call against all PostgreSQL's", 3);
        assertEquals(2.54, java.measuredMs(), 1e-9);
        assertEquals(0.65, java.limitMs(), 1e-9);
        assertEquals(false, java.pass());
        assertTrue(targets.stream().allMatch(target -> target.pass() != null), "everything measured: " + targets);
    }

    @Test
    void whatTheBenchDidNotRunIsListedAsNotMeasuredAndWhy() {
        List<CostTargets.Target> targets = CostTargets.evaluate(List.of(three), List.of(), null);

        CostTargets.Target nodeWriteSet = find(targets, "node JVM CPU per foreign write-set", null);
        assertNull(nodeWriteSet.pass());
        assertTrue(nodeWriteSet.limit().contains("--replicas 1,3"), nodeWriteSet.limit());
        assertNull(find(targets, "PostgreSQL CPU per executed call", null).pass());
        // What a run of 3 replicas alone does measure is still checked.
        assertEquals(
                false,
                find(targets, "all Java CPU per call against all PostgreSQL's", 3)
                        .pass());
        assertEquals(false, find(targets, "scheduler CPU per call", 3).pass());
    }

    @Test
    void withoutTheNativeRunTheTargetsAgainstItAreNotMeasured() {
        List<CostTargets.Target> targets = CostTargets.evaluate(List.of(one, three), derived, null);

        CostTargets.Target postgresWriteSet = find(targets, "PostgreSQL CPU per applied write-set", null);
        assertNull(postgresWriteSet.pass());
        assertTrue(postgresWriteSet.limit().contains("--no-native"), postgresWriteSet.limit());
        assertEquals(
                false, find(targets, "node JVM CPU per foreign write-set", 3).pass());
    }

    private static CostTargets.Target find(List<CostTargets.Target> targets, String name, Integer replicas) {
        return targets.stream()
                .filter(target -> target.name().equals(name) && java.util.Objects.equals(target.replicas(), replicas))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no target '" + name + "' at " + replicas + ": " + targets));
    }
}
