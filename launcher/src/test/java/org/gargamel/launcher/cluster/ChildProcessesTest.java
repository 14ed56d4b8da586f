package org.gargamel.launcher.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The child JVMs' compilers: C1 only for the scheduler and nodes unless the plan asks for a server's JIT, both tiers
 * for the front end always.
 */
@Tag("unit")
class ChildProcessesTest {
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    @Test
    void theSchedulerAndNodesCompileWithC1OnlyUnlessThePlanAsksForAServersJit() {
        assertTrue(new ChildProcesses(ChildJit.QUICK_START).jvmOptions("node-1").contains(C1_ONLY));
        assertTrue(
                new ChildProcesses(ChildJit.QUICK_START).jvmOptions("scheduler").contains(C1_ONLY));
        assertFalse(new ChildProcesses(ChildJit.SERVER).jvmOptions("node-1").contains(C1_ONLY));
        assertFalse(new ChildProcesses(ChildJit.SERVER).jvmOptions("scheduler").contains(C1_ONLY));
        assertFalse(
                new ChildProcesses(ChildJit.QUICK_START)
                        .jvmOptions(ChildProcesses.FRONTEND)
                        .contains(C1_ONLY),
                "the front end always has both tiers");
    }

    @Test
    void aPlanKeepsItsJitThroughItsOtherWithers() {
        ClusterPlan plan = new ClusterPlan(
                        org.gargamel.common.config.Mode.GARGAMEL,
                        org.gargamel.common.config.Isolation.PSI,
                        java.nio.file.Path.of("rules.yaml"),
                        java.util.List.of("jdbc:postgresql://a/x"),
                        4,
                        java.nio.file.Path.of("logs"),
                        false,
                        1)
                .withJit(ChildJit.SERVER)
                .withApply(2, 10)
                .withSites(null);

        assertTrue(plan.jit() == ChildJit.SERVER, plan.toString());
        assertTrue(
                new ClusterPlan(
                                        org.gargamel.common.config.Mode.GARGAMEL,
                                        org.gargamel.common.config.Isolation.PSI,
                                        java.nio.file.Path.of("rules.yaml"),
                                        java.util.List.of("jdbc:postgresql://a/x"),
                                        4,
                                        java.nio.file.Path.of("logs"),
                                        false,
                                        1)
                                .jit()
                        == ChildJit.QUICK_START,
                "C1 only unless asked");
    }
}
