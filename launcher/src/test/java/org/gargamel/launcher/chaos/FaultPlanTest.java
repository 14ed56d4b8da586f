package org.gargamel.launcher.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which nodes a chaos run's faults may hit: every node but the spared ones (soak --spare). */
@Tag("unit")
class FaultPlanTest {
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @Test
    void aSparedNodeIsNeverATarget() {
        FaultPlan plan = new FaultPlan(
                Duration.ofSeconds(20),
                Duration.ofSeconds(5),
                7,
                List.of(FaultPlan.Kind.NODE, FaultPlan.Kind.PARTITION),
                List.of("node-1"));

        assertEquals(List.of("node-2", "node-3"), plan.targets(NODES));
    }

    @Test
    void withoutSparedNodesEveryNodeIsATarget() {
        FaultPlan plan = new FaultPlan(Duration.ofSeconds(20), Duration.ofSeconds(5), 7);

        assertEquals(NODES, plan.targets(NODES));
        assertEquals("partition", FaultPlan.Kind.parse("partition").configName());
    }
}
