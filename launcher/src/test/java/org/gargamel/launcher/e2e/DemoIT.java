package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path as a user runs it: {@code gargamel demo} from the all-in-one jar starts three embedded PostgreSQL
 * replicas, the scheduler and three node JVMs, drives TPC-C through them for 20 s, and must report zero conflict
 * aborts, every consistency condition on every replica, identical replicas, and leave no process or file behind.
 */
@Tag("e2e")
class DemoIT {

    @Test
    void shortDemoConvergesWithoutConflictAbortsAndLeavesNothingBehind(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        String output = GargamelProcess.runCleanly(
                directory,
                5,
                "demo",
                "--warehouses",
                "1",
                "--terminals",
                "8",
                "--duration",
                "20s",
                "--seed",
                "5",
                "--out",
                out.toString());

        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertEquals("gargamel", result.get("mode").asText());
        assertEquals("psi", result.get("isolation").asText());
        assertEquals(3, result.get("replicas").asInt());
        assertEquals(0, result.get("conflictAborts").asLong(), output);
        assertEquals(0, result.get("errors").asLong(), output);
        assertTrue(result.get("committed").get("NEW_ORDER").asLong() > 0, output);
        assertTrue(result.get("consistency").get("passed").asBoolean(), output);
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        assertEquals(3, result.get("convergence").get("databases").size(), output);
        assertTrue(output.contains("conflict aborts 0"), output);
        assertEquals("table61", result.get("tpccRules").asText(), "the commands' default rules, named in result.json");

        // Each node's CPU per New-Order, its own and its PostgreSQL backend's (on this machine, so measured).
        JsonNode nodes = new ObjectMapper().readTree(out.resolve("nodes.json").toFile());
        assertEquals(3, nodes.size(), nodes.toString());
        for (JsonNode node : nodes) {
            JsonNode newOrder = node.get("procedures").get("new_order");
            assertTrue(newOrder.get("executeNodeCpuMs").asDouble() > 0, newOrder.toString());
            assertTrue(newOrder.get("executePostgresCpuMs").asDouble() > 0, newOrder.toString());
            assertTrue(newOrder.get("applyPostgresCpuMs").asDouble() > 0, newOrder.toString());
            assertTrue(node.get("logCommitMs").asDouble() > 0, "the write-set log's commit latency: " + node);
        }

        // Where the run's CPU went, process by process (the simulator's calibration).
        JsonNode cpu = result.get("cpu");
        assertTrue(cpu.get("hostCores").asInt() >= 1 && cpu.get("hostBusyCores").asDouble() > 0, cpu.toString());
        assertTrue(cpu.get("calls").asLong() > 0, cpu.toString());
        JsonNode perCall = cpu.get("msPerCall");
        double roles = 0;
        for (String role : new String[] {"client", "scheduler", "nodes", "postgres"}) {
            assertTrue(perCall.get(role).asDouble() > 0, role + " measured: " + cpu);
            roles += perCall.get(role).asDouble();
        }
        // Ticks are 10 ms each: the roles' sum may pass the host's by a tick's rounding per process, no more.
        assertTrue(roles <= perCall.get("host").asDouble() * 1.1 + 0.5, "no role counted twice: " + cpu);
        assertTrue(output.contains("CPU ") && output.contains("core(s) busy"), output);
    }
}
