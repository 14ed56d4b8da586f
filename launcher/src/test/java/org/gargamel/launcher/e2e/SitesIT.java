package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sites as a user runs them: {@code gargamel demo --sites 2} from the all-in-one jar starts two embedded replicas,
 * a site scheduler and a node JVM per site (30 ms apart on the schedule log), and drives TPC-C with every site's
 * terminals on the one warehouse (shared), so the sites' Payments collide. No call may fail or see a conflict abort;
 * the collisions are counted (each one a cancel or a kill at its node); each site's latency is reported; the replicas
 * are consistent and identical.
 */
@Tag("e2e")
class SitesIT {

    @Test
    void twoSitesSharingAWarehouseCollideWithoutAbortsAndConverge(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        String output = GargamelProcess.runCleanly(
                directory,
                5,
                "demo",
                "--sites",
                "2",
                "--site-delay",
                "30ms",
                "--warehouses-per-site",
                "shared",
                "--warehouses",
                "1",
                "--terminals",
                "4",
                "--duration",
                "8s",
                "--seed",
                "5",
                "--out",
                out.toString());

        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertEquals(2, result.get("replicas").asInt(), output);
        assertEquals(0, result.get("conflictAborts").asLong(), output);
        assertEquals(0, result.get("errors").asLong(), output);
        assertTrue(result.get("committed").get("NEW_ORDER").asLong() > 0, output);
        assertTrue(result.get("consistency").get("passed").asBoolean(), output);
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);

        JsonNode sites = result.get("sites");
        assertEquals(
                List.of("site-1", "site-2"),
                List.of(
                        sites.get("sites").get(0).asText(),
                        sites.get("sites").get(1).asText()));
        assertEquals("optimistic", sites.get("agreement").asText());
        assertEquals("shared", sites.get("warehousesPerSite").asText());
        assertEquals(30, sites.get("siteDelayMs").asInt());
        assertTrue(sites.get("provisionalCalls").asLong() > 0, "update calls ran before their agreement: " + sites);
        long collisions = sites.get("collisions").asLong();
        assertTrue(collisions > 0, "two sites paying into one warehouse collide: " + sites);
        assertEquals(
                collisions, sites.get("cancels").asLong() + sites.get("kills").asLong(), sites.toString());
        for (String site : List.of("site-1", "site-2")) {
            JsonNode latency = sites.get("latencyMsBySite").get(site);
            assertTrue(latency.get("calls").asDouble() > 0, site + " had terminals: " + sites);
            assertTrue(latency.get("p50").asDouble() > 0, site + ": " + sites);
        }
        assertTrue(output.contains("collisions"), output);
    }
}
