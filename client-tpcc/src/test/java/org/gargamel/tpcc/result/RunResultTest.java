package org.gargamel.tpcc.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gargamel.tpcc.workload.ExecutionOutcome;
import org.gargamel.tpcc.workload.TransactionType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class RunResultTest {

    @Test
    void resultJsonHoldsEveryContractField(@TempDir Path directory) throws Exception {
        RunStatistics statistics = new RunStatistics();
        for (int i = 0; i < 90; i++) {
            statistics.record(TransactionType.NEW_ORDER, ExecutionOutcome.committed(0, 0), 2_000_000);
        }
        statistics.record(
                TransactionType.NEW_ORDER,
                new ExecutionOutcome(ExecutionOutcome.Kind.USER_ABORT, 0, 0, "GA001", "Item number is not valid"),
                1_000_000);
        statistics.record(TransactionType.PAYMENT, ExecutionOutcome.committed(2, 2), 3_000_000);
        RunDescription run = new RunDescription(
                "direct", "read-committed", 1, 2, 8, null, java.time.Duration.ofSeconds(5), 42, "2026-01-01T10:00");
        RunResult result =
                RunResult.of(run, statistics, 30.0).withChecks(Map.of("passed", true), Map.of("identical", true));
        Path file = directory.resolve("out/result.json");
        result.write(file);

        JsonNode json = new ObjectMapper().readTree(Files.readString(file));
        for (String field : new String[] {
            "mode",
            "isolation",
            "client",
            "tpccRules",
            "replicas",
            "warehouses",
            "terminals",
            "warmupSeconds",
            "durationSeconds",
            "tpmC",
            "committed",
            "userAborts",
            "conflictAborts",
            "retries",
            "latencyMs",
            "consistency",
            "convergence"
        }) {
            assertTrue(json.has(field), "result.json lacks " + field + ": " + json);
        }
        for (TransactionType type : TransactionType.values()) {
            assertTrue(json.get("committed").has(type.name()), "committed lacks " + type);
            for (String percentile : new String[] {"p50", "p95", "p99", "max"}) {
                assertTrue(json.get("latencyMs").get(type.name()).has(percentile), type + " lacks " + percentile);
            }
        }
        assertTrue(json.get("client").isNull(), "a direct run has no Gargamel client");
        assertTrue(json.get("tpccRules").isNull(), "nor classifier rules");
        assertEquals(180.0, json.get("tpmC").asDouble(), 1e-9, "90 New-Orders in half a minute");
        assertEquals(5.0, json.get("warmupSeconds").asDouble(), 1e-9);
        assertEquals(1, json.get("userAborts").asLong());
        assertEquals(2, json.get("conflictAborts").asLong());
        assertEquals(2, json.get("retries").asLong());
        assertEquals(2.0, json.get("latencyMs").get("NEW_ORDER").get("p50").asDouble(), 0.03);
        assertTrue(json.get("consistency").get("passed").asBoolean());
        assertEquals(result, RunResult.read(file).withChecks(result.consistency(), result.convergence()));
    }
}
