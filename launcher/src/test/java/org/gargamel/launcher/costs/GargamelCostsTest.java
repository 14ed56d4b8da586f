package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.tpcc.result.RunCpu;
import org.gargamel.tpcc.result.RunDescription;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.result.RunStatistics;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Gargamel run's costs as the bench reads them back from the run's result.json and nodes.json: each Java role with
 * and without its JIT, PostgreSQL, all Java summed; the nodes' executed calls and applied write-sets over the whole run,
 * and their own thread figures weighted by count.
 */
@Tag("unit")
class GargamelCostsTest {
    private static final String NODES = """
            [{"node": "node-1", "committed": 900, "userAborts": 10, "readOnly": 90, "applied": 1600,
              "procedures": {
                "new_order": {"executed": 400, "executeNodeCpuMs": 0.3, "appliedCount": 800,
                              "applyNodeCpuMs": 0.2, "applyPostgresCpuMs": 0.4},
                "payment": {"executed": 600, "executeNodeCpuMs": 0.1, "appliedCount": 800,
                            "applyNodeCpuMs": 0.1, "applyPostgresCpuMs": 0.2}}},
             {"node": "node-2", "committed": 950, "userAborts": 0, "readOnly": 50, "applied": 2000,
              "procedures": {"payment": {"executed": 1000, "executeNodeCpuMs": 0.1, "appliedCount": 0,
                                          "applyNodeCpuMs": 0.0, "applyPostgresCpuMs": null}}}]
            """;

    @Test
    void rolesJitAndTheNodesCountsAreReadBackFromTheRunsFiles(@TempDir Path directory) throws Exception {
        Map<String, Double> seconds = new LinkedHashMap<>();
        seconds.put(RunCpu.HOST, 10.0);
        seconds.put("client", 1.0);
        seconds.put("scheduler", 0.5);
        seconds.put("nodes", 4.0);
        seconds.put("postgres", 3.0);
        RunCpu cpu = RunCpu.of(30, seconds, Map.of("client", 0.2, "scheduler", 0.1, "nodes", 1.0), 1000);
        RunResult result = RunResult.of(
                        new RunDescription(
                                "gargamel",
                                "psi",
                                2,
                                1,
                                10,
                                null,
                                Duration.ofSeconds(5),
                                1,
                                "now",
                                "library",
                                "table61"),
                        new RunStatistics(),
                        30)
                .withCpu(cpu);
        result.write(directory.resolve("result.json"));
        java.nio.file.Files.writeString(directory.resolve("nodes.json"), NODES);

        GargamelCosts costs = GargamelCosts.read(2, directory);

        assertEquals(new RoleCost(1.0, 0.2, 0.8), costs.role("client"));
        assertEquals(new RoleCost(0.5, 0.1, 0.4), costs.role("scheduler"));
        assertEquals(new RoleCost(4.0, 1.0, 3.0), costs.role("nodes"));
        assertEquals(RoleCost.withoutJit(3.0), costs.role(GargamelCosts.POSTGRES));
        assertEquals(new RoleCost(5.5, 1.3, 4.2), costs.role(GargamelCosts.ALL_JAVA));
        assertFalse(costs.roles().containsKey("frontend"), "a run without a front end has no such role");
        assertEquals(1000, costs.calls());
        assertEquals(2000, costs.executedCalls()); // 900 + 10 + 90 + 950 + 0 + 50
        assertEquals(3600, costs.appliedWriteSets());
        assertEquals(1.8, costs.writeSetsPerCall(), 1e-9);
        // (400 × 0.3 + 600 × 0.1 + 1000 × 0.1) / 2000
        assertEquals(0.14, costs.workerCpuMsPerCall(), 1e-9);
        assertEquals(0.15, costs.applyThreadCpuMsPerWriteSet(), 1e-9);
        assertEquals(0.3, costs.postgresBackendCpuMsPerWriteSet(), 1e-9);
    }

    @Test
    void aFigureANodeDidNotMeasureIsUnknownRatherThanZero() throws Exception {
        JsonNode nodes = new ObjectMapper().readTree("""
                [{"committed": 10, "procedures": {"payment": {"executed": 10, "executeNodeCpuMs": 0.1,
                  "appliedCount": 5, "applyNodeCpuMs": 0.1, "applyPostgresCpuMs": null}}}]
                """);
        RunResult result = RunResult.of(
                        new RunDescription("gargamel", "psi", 2, 1, 10, null, Duration.ZERO, 1, "now", null, null),
                        new RunStatistics(),
                        1)
                .withCpu(RunCpu.of(1, Map.of("nodes", 1.0, "postgres", 1.0), 10));

        GargamelCosts costs = GargamelCosts.of(2, result, nodes, Path.of("result.json"));

        assertNull(costs.postgresBackendCpuMsPerWriteSet());
        assertEquals(0.1, costs.applyThreadCpuMsPerWriteSet(), 1e-9);
        assertEquals(new RoleCost(100.0, 0, 100.0), costs.role("nodes"), "no thread readings: no JIT taken out");
    }
}
