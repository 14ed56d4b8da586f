package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gargamel bench costs} from the all-in-one jar, as short as it goes: one replica through Gargamel with the
 * scheduler and node compiling as servers, then PostgreSQL's own logical replication of the same workload. Every role's
 * CPU per call must be measured and positive, the JIT's share apart, the native execute, decode and apply too, and the
 * subscriber must end equal to the publisher; the table is printed and nothing is left behind.
 */
@Tag("e2e")
class BenchCostsIT {

    @Test
    void oneReplicaAndTheNativeReplicationAreMeasuredAndTheSubscriberConverges(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("costs");
        String output = GargamelProcess.runCleanly(
                directory,
                4,
                "bench",
                "costs",
                "--replicas",
                "1",
                "--warmup",
                "5s",
                "--duration",
                "5s",
                "--out",
                out.toString());

        JsonNode costs = new ObjectMapper().readTree(out.resolve("costs.json").toFile());
        assertEquals("server", costs.at("/jit/schedulerAndNodes").asText(), costs.toString());
        JsonNode run = costs.at("/gargamel/1");
        assertTrue(run.get("tpmC").asDouble() > 0, run.toString());
        assertTrue(run.get("calls").asLong() > 0, run.toString());
        for (String role : List.of("client", "scheduler", "nodes", "postgres", "allJava")) {
            JsonNode cost = run.at("/roles/" + role);
            assertTrue(cost.get("msPerCall").asDouble() > 0, role + ": " + cost);
            assertTrue(cost.get("msPerCallLessJit").asDouble() > 0, role + ": " + cost);
            assertTrue(
                    cost.get("jitMsPerCall").asDouble() <= cost.get("msPerCall").asDouble(), role + ": " + cost);
        }
        // C2 compiles for much longer than 10 s: some of the node JVM's CPU is the JIT's.
        assertTrue(run.at("/roles/nodes/jitMsPerCall").asDouble() > 0, run.toString());
        assertTrue(Files.exists(out.resolve("gargamel-1/result.json"))
                && Files.exists(out.resolve("gargamel-1/nodes.json")));

        JsonNode nativeRun = costs.get("native");
        assertTrue(nativeRun.get("converged").asBoolean(), "the subscriber equals the publisher: " + output);
        assertTrue(nativeRun.get("walsenders").asInt() >= 1, nativeRun.toString());
        assertTrue(nativeRun.get("calls").asLong() > 0 && nativeRun.get("tpmC").asDouble() > 0, nativeRun.toString());
        for (String figure : List.of("executeMs", "decodeMs", "applyMs")) {
            assertTrue(nativeRun.at("/perCall/" + figure).asDouble() > 0, figure + ": " + nativeRun);
            assertTrue(nativeRun.at("/perUpdateTransaction/" + figure).asDouble() > 0, figure + ": " + nativeRun);
        }
        assertTrue(output.contains("convergence of 2 databases: identical"), output);

        // With one replica count, the targets about foreign write-sets are named but not measured.
        boolean someMeasured = false;
        for (JsonNode target : costs.get("targets")) {
            someMeasured |= target.get("pass").isBoolean();
        }
        assertTrue(someMeasured, costs.get("targets").toString());
        assertTrue(output.contains("CPU per call in ms, JIT excluded"), output);
        assertTrue(output.contains("native (PostgreSQL"), output);
    }
}
