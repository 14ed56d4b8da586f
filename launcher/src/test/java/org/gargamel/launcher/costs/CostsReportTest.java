package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * costs.json's shape, as written and read back (what a user's script and the next round's comparison read), and the
 * table the bench prints.
 */
@Tag("unit")
class CostsReportTest {
    private final GargamelCosts one = CostFixtures.run(1, 0.05, 0.2, 0.9, 0);
    private final GargamelCosts three = CostFixtures.run(3, 0.07, 2.4, 1.3, 1840);
    private final List<ForeignWriteSetCost> derived =
            List.of(ForeignWriteSetCost.derive(one, three).orElseThrow());

    private CostsReport report(NativeCosts nativeCosts) {
        return new CostsReport(
                new CostsReport.Header(
                        "scripts/gargamel bench costs --replicas 1,3",
                        "2 vCPU test machine",
                        "2026-11-29T10:00",
                        Map.of("warehouses", 1),
                        Map.of("schedulerAndNodes", "server")),
                List.of(one, three),
                derived,
                nativeCosts,
                CostTargets.evaluate(List.of(one, three), derived, nativeCosts));
    }

    @Test
    void costsJsonHoldsEveryFigureByReplicaCountTheNativeOnesAndTheTargetsBesideTheirFigures(@TempDir Path directory)
            throws Exception {
        Path file = directory.resolve("costs.json");
        report(CostFixtures.nativeRun()).write(file);

        JsonNode json = new ObjectMapper().readTree(file.toFile());

        assertEquals(
                "scripts/gargamel bench costs --replicas 1,3",
                json.get("command").asText());
        assertEquals("2 vCPU test machine", json.get("machine").asText());
        assertEquals("server", json.at("/jit/schedulerAndNodes").asText());
        for (String replicas : List.of("1", "3")) {
            JsonNode run = json.at("/gargamel/" + replicas);
            assertEquals(Integer.parseInt(replicas), run.get("replicas").asInt());
            assertTrue(run.has("tpmC") && run.has("calls"), run.toString());
            for (String role : List.of("client", "scheduler", "nodes", "postgres", "allJava")) {
                JsonNode cost = run.at("/roles/" + role);
                assertTrue(
                        cost.has("msPerCall") && cost.has("jitMsPerCall") && cost.has("msPerCallLessJit"),
                        role + ": " + cost);
            }
        }
        assertEquals(
                0.05, json.at("/gargamel/1/roles/scheduler/msPerCallLessJit").asDouble(), 1e-9);
        assertEquals(0.06, json.at("/gargamel/1/roles/scheduler/msPerCall").asDouble(), 1e-9);
        assertEquals(
                1840, json.at("/gargamel/3/nodeStatistics/appliedWriteSets").asLong());
        assertEquals(
                1.196, json.at("/perForeignWriteSet/3/nodeJvm/msPerWriteSet").asDouble(), 1e-9);
        assertEquals(
                0.2, // (1.3 - 0.9) / 2
                json.at("/perForeignWriteSet/3/postgres/msPerCallPerOtherReplica")
                        .asDouble(),
                1e-9);
        assertEquals(0.27, json.at("/native/perCall/applyMs").asDouble(), 1e-9);
        assertTrue(json.at("/native/converged").asBoolean());

        // Beside each figure a target is about: the target and whether it passed.
        assertTrue(json.at("/gargamel/1/roles/scheduler/target/pass").asBoolean());
        assertEquals(false, json.at("/gargamel/3/roles/scheduler/target/pass").asBoolean());
        assertEquals(
                0.15, json.at("/perForeignWriteSet/3/nodeJvm/target/limitMs").asDouble(), 1e-9);
        assertEquals(false, json.at("/perForeignWriteSet/3/nodeJvm/target/pass").asBoolean());
        assertTrue(json.at("/gargamel/1/roles/postgres/target/pass").isBoolean());
        assertTrue(json.at("/gargamel/3/roles/allJava/target/pass").isBoolean());
        // And all of them in one list, each with its pass.
        assertEquals(9, json.get("targets").size(), json.get("targets").toString());
        for (JsonNode target : json.get("targets")) {
            assertTrue(target.get("pass").isBoolean(), target.toString());
            assertTrue(json.at(target.get("figure").asText()).isNumber(), "a figure where it says: " + target);
        }
        for (String derivation : List.of("msPerCall", "jitMsPerCall", "perForeignWriteSet", "native")) {
            assertTrue(json.at("/derivations/" + derivation).asText().length() > 40, derivation);
        }
    }

    @Test
    void withoutTheNativeRunItsPlaceIsNullAndItsTargetsAreNotMeasured(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("costs.json");
        report(null).write(file);

        JsonNode json = new ObjectMapper().readTree(file.toFile());

        assertTrue(json.get("native").isNull());
        long unmeasured = 0;
        for (JsonNode target : json.get("targets")) {
            if (target.get("pass").isNull()) {
                unmeasured++;
                assertTrue(target.get("limit").asText().contains("native"), target.toString());
            }
        }
        assertEquals(2, unmeasured);
    }

    @Test
    void theTableShowsEachRoleByReplicaCountWithTheJitInBracketsThenTheNativeLineAndTheTargets() {
        String table = report(CostFixtures.nativeRun()).table();

        assertTrue(table.contains("1 replica") && table.contains("3 replicas"), table);
        // nodes at 1 replica: 0.2 without the JIT, 0.3 with it.
        assertTrue(table.lines().anyMatch(line -> line.startsWith("nodes") && line.contains("0.200 (0.300)")), table);
        assertTrue(table.lines().anyMatch(line -> line.startsWith("postgres") && line.contains("0.900")), table);
        assertTrue(table.contains("node JVM 1.196 ms"), table);
        assertTrue(table.contains("execute 0.760  decode 0.150  apply 0.270 ms"), table);
        assertTrue(table.contains("FAIL  node JVM CPU per foreign write-set at 3 replicas: 1.196 ms"), table);
        assertTrue(table.contains("PASS  scheduler CPU per call at 1 replica"), table);
    }
}
