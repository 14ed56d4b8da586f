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
 * Two sites as a user runs them, from the all-in-one jar: {@code gargamel chaos --sites 2} (two embedded replicas, a
 * site scheduler and a node JVM per site, 20 ms apart) drives TPC-C with every site's terminals on the one warehouse,
 * so the sites' Payments collide, while it kills the sites' schedulers in turn: no call may fail or see a conflict
 * abort, nothing acknowledged is lost or run twice, the collisions and each site's latency are reported, and the
 * replicas are consistent and identical. Another test does the same with site-owned classes, and one serves both
 * sites from one scheduler. (A plain {@code demo
 * --sites} run had a test of its own; the chaos run covers all it asserted but that every collision counted by a
 * scheduler is a cancel or a kill at a node, which a killed scheduler's lost counters make untrue here and
 * ReplicationTest's site-scheduler test asserts in one JVM.)
 */
@Tag("e2e")
class SitesIT {

    /**
     * The comparison's third way of serving two sites ({@code --agreement one-scheduler}, docs/multisite.md): site-1's
     * one scheduler and both replicas serve both sites, site-2's terminals calling across the 40 ms delay each way. No
     * agreement runs (no provisional call), every site-2 call pays at least the 80 ms round trip, site-1's do not.
     */
    @Test
    void oneSchedulerServesBothSitesAndTheFarSitesCallsPayTheRoundTrip(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        String output = GargamelProcess.runCleanly(
                directory,
                5,
                "demo",
                "--sites",
                "2",
                "--site-delay",
                "40ms",
                "--agreement",
                "one-scheduler",
                "--warehouses-per-site",
                "shared",
                "--warehouses",
                "1",
                "--terminals",
                "4",
                "--duration",
                "5s",
                "--seed",
                "5",
                "--out",
                out.toString());

        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertEquals(0, result.get("errors").asLong(), output);
        assertTrue(result.get("consistency").get("passed").asBoolean(), output);
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        JsonNode sites = result.get("sites");
        assertEquals("one-scheduler", sites.get("agreement").asText());
        assertEquals(0, sites.get("provisionalCalls").asLong(), "no agreement: " + sites);
        double near = sites.get("latencyMsBySite").get("site-1").get("p50").asDouble();
        double far = sites.get("latencyMsBySite").get("site-2").get("p50").asDouble();
        assertTrue(far >= 80, "site-2's calls cross the 40 ms twice: " + sites);
        assertTrue(near < far, "site-1's calls do not: " + sites);
        assertTrue(output.contains("one scheduler at site-1 serves every site"), output);
    }

    /**
     * A site scheduler's failover (docs/multisite.md): {@code gargamel chaos --sites 2 --kinds scheduler} kills the two
     * sites' schedulers in turn with SIGKILL while every site's terminals share the one warehouse (so calls stall and
     * collide when the kill comes), and starts each again on its configuration and its copy of the schedule log. The
     * other site goes on, the killed site's nodes roll back their stalled calls and follow the new scheduler, its
     * clients resubmit; every call gets its one outcome, every acknowledged New-Order is on every replica, none ran
     * twice, and the replicas are consistent and identical. With two sites the schedule log has no majority while a
     * site's scheduler is out (7-8 s each under CI's load), so both sites stall then: 30 s leaves about 15 s of service
     * (24 s left about 9; in CI runs have acknowledged 17, 21 and 42 New-Orders).
     */
    @Test
    void killedSiteSchedulersFailOverAndNothingIsLostOrRunTwice(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        String output = chaosKillingBothSchedulers(
                directory, out, "scheduler", "--warehouses-per-site", "shared", "--warehouses", "1");

        JsonNode result = bothSchedulersKilledAndNothingLost(out, output, "scheduler");

        // What a multi-site run reports (result.json's sites group), from the optimistic agreement under collisions.
        JsonNode sites = result.get("sites");
        assertEquals(
                List.of("site-1", "site-2"),
                List.of(
                        sites.get("sites").get(0).asText(),
                        sites.get("sites").get(1).asText()));
        assertEquals("optimistic", sites.get("agreement").asText());
        assertEquals("shared", sites.get("warehousesPerSite").asText());
        assertEquals(20, sites.get("siteDelayMs").asInt());
        assertTrue(sites.get("provisionalCalls").asLong() > 0, "update calls ran before their agreement: " + sites);
        assertTrue(sites.get("collisions").asLong() > 0, "two sites paying into one warehouse collide: " + sites);
        assertTrue(sites.get("cancels").asLong() + sites.get("kills").asLong() > 0, sites.toString());
        for (String site : List.of("site-1", "site-2")) {
            JsonNode latency = sites.get("latencyMsBySite").get(site);
            assertTrue(latency.get("calls").asDouble() > 0, site + " had terminals: " + sites);
            assertTrue(latency.get("p50").asDouble() > 0, site + ": " + sites);
        }
        JsonNode wait = sites.get("agreementWaitMs");
        assertTrue(
                wait.get("p50").asDouble() >= 0
                        && wait.get("p99").asDouble() >= wait.get("p50").asDouble(),
                wait.toString());
        assertTrue(
                wait.get("p99").asDouble() > 1,
                "with 20 ms between the sites, the slowest provisional calls wait for their agreement: " + wait);
        assertTrue(output.contains("collisions"), output);
    }

    /**
     * The abort-free agreement ({@code --agreement abort-free}, docs/multisite.md) under the same failover: both sites'
     * schedulers killed in turn while their terminals share one warehouse. A successor places again what its
     * predecessor had not placed, its predecessor's calls no node ran are settled, and every site's placements are read
     * in their scheduler's order (an append sent again after a kill overtook later ones, and a chaos run stalled before
     * that). Nothing is lost or run twice, nothing runs before its place is known, and nothing is cancelled or killed.
     */
    @Test
    void abortFreeSitesFailOverWithoutLosingOrKillingAnything(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory)
            throws Exception {
        Path out = directory.resolve("result");
        String output = chaosKillingBothSchedulers(
                directory,
                out,
                "scheduler",
                "--agreement",
                "abort-free",
                "--warehouses-per-site",
                "shared",
                "--warehouses",
                "1");
        JsonNode sites =
                bothSchedulersKilledAndNothingLost(out, output, "scheduler").get("sites");
        assertEquals("abort-free", sites.get("agreement").asText());
        assertEquals(0, sites.get("provisionalCalls").asLong(), "no call runs before its place is known: " + sites);
        assertEquals(0, sites.get("collisions").asLong(), "nothing cancelled or killed: " + sites);
        // One warehouse shared by both sites: any two Payments conflict on its row (the Table 6.1 rules, the default),
        // and each site places the other's calls 20 ms after its own, so the schedulers resolve cycles within seconds
        // (docs/multisite.md, Abort-free agreement: 5 to 7 in 20 s runs). A count that never reached result.json is 0.
        long cycles = sites.get("dependencyCycles").asLong();
        assertTrue(cycles > 0, "the schedulers counted the dependency cycles they resolved: " + sites);
        assertTrue(
                sites.get("callsInCycles").asLong() >= 2 * cycles
                        && sites.get("largestCycle").asLong() >= 2,
                "a cycle holds two calls or more: " + sites);
        assertTrue(output.contains("abort-free: every site placed every call"), output);
    }

    /**
     * Site-owned classes ({@code --agreement owned}) with a write-set log per site ({@code --ack site},
     * docs/multisite.md), each whole site killed in turn ({@code --kinds site}: its scheduler and its node, kill -9,
     * started again from their disks). Warehouse 1 is site-1's and 2 site-2's, each site's terminals on its own, so most
     * calls are local and acknowledged once their own site's log holds them; the few with a remote supplier or customer
     * go through the schedule log, and their barrier waits for what the other owner had logged, shipped here. A site
     * back ships what it had not shipped and takes what the other shipped meanwhile; no successor knows the local calls
     * its predecessor had dispatched, so a node commits such a call only once its site's log holds it. Nothing fails,
     * nothing acknowledged is lost or run twice, no call is provisional, and the replicas are consistent and identical.
     * (Site-owned classes with one log across the sites are tested in one JVM: ReplicationTest.)
     */
    @Test
    void withAWriteSetLogPerSiteKilledSitesLoseNothing(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory)
            throws Exception {
        Path out = directory.resolve("result");
        String output = chaosKillingBothSchedulers(
                directory, out, "site", "--agreement", "owned", "--ack", "site", "--warehouses", "2");
        JsonNode result = bothSchedulersKilledAndNothingLost(out, output, "site");
        JsonNode sites = result.get("sites");
        assertEquals("owned", sites.get("agreement").asText());
        assertEquals("site", sites.get("acknowledgement").asText());
        // Two kills or three, as fast as the sites come back: each one counted what it had not shipped.
        assertEquals(
                result.get("faults").size(),
                sites.get("unshippedNewOrdersAtSiteKills").size(),
                "each site kill counted: " + sites);
        assertTrue(output.contains("the sites' shipping drained"), output);
        assertEquals(0, sites.get("provisionalCalls").asLong(), "no call runs before its place is known: " + sites);
        assertEquals(0, sites.get("collisions").asLong(), sites.toString());
        assertTrue(sites.get("spanningCalls").asLong() > 0, "remote suppliers and customers span the sites: " + sites);
    }

    /**
     * {@code gargamel chaos} on two sites 20 ms apart, 6 terminals for 30 s, killing a site's scheduler (or, with kind
     * site, the whole site) every 5 s in turn, with {@code siteOptions}; returns its output.
     */
    private static String chaosKillingBothSchedulers(Path directory, Path out, String kind, String... siteOptions)
            throws Exception {
        List<String> arguments = new java.util.ArrayList<>(List.of("chaos", "--sites", "2", "--site-delay", "20ms"));
        arguments.addAll(List.of(siteOptions));
        arguments.addAll(List.of(
                "--terminals",
                "6",
                "--duration",
                "30s",
                "--interval",
                "5s",
                "--downtime",
                "1s",
                "--kinds",
                kind,
                "--seed",
                "5",
                "--fault-seed",
                "1",
                "--out",
                out.toString()));
        return GargamelProcess.runCleanly(directory, 6, arguments.toArray(String[]::new));
    }

    /**
     * The checks of a chaos run that killed both sites' schedulers: the faults, no error or conflict abort, more than
     * 20 acknowledged New-Orders (the sites stall while a scheduler is out, and CI's load has cut a run to 21), each on
     * every replica and none twice, consistent identical replicas.
     */
    private static JsonNode bothSchedulersKilledAndNothingLost(Path out, String output, String kind)
            throws java.io.IOException {
        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        JsonNode faults = result.get("faults");
        java.util.Set<String> killed = new java.util.TreeSet<>();
        for (JsonNode fault : faults) {
            assertEquals(kind, fault.get("kind").asText(), fault.toString());
            assertTrue(fault.get("pid").asLong() > 0, fault.toString());
            assertTrue(fault.get("error") == null, fault.toString());
            killed.add(fault.get("target").asText());
        }
        assertEquals(java.util.Set.of("scheduler-site-1", "scheduler-site-2"), killed, faults.toString());
        assertEquals(0, result.get("errors").asLong(), "no call failed: " + output);
        assertEquals(0, result.get("conflictAborts").asLong(), output);
        assertTrue(result.get("acknowledgedNewOrders").asLong() > 20, output);
        assertEquals(0, result.get("acknowledgedMissing").asLong(), output);
        assertEquals(0, result.get("duplicateOrders").asLong(), output);
        assertTrue(result.get("consistency").get("passed").asBoolean(), output);
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        assertEquals(2, result.get("replicas").asInt(), output);
        return result;
    }
}
