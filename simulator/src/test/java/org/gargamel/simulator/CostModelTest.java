package org.gargamel.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Calibration from a measured run: weighted means across nodes, and the replicas' CPU the nodes did not measure. */
@Tag("unit")
class CostModelTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Two nodes: node-1 executed 100 payments at 1.0 ms and applied 300 at 0.4 ms; node-2 executed 300 at 2.0 ms and
     * applied 100 at 0.8 ms, and 50 read-only calls at 0.5 ms. Payment: execute (100·1 + 300·2)/400 = 1.75, apply
     * (300·0.4 + 100·0.8)/400 = 0.5. The nodes measured 100 + 600 + 120 + 80 + 25 = 925 ms over 450 calls: 2.056 ms a
     * call; the replicas' processes spent 3.2 + 1.8 = 5.0 ms a call, so 2.944 ms a call is overhead, spread over 2
     * replicas and the 400/450 of calls that are updates: 1.656 ms per write-set per replica.
     */
    @Test
    void costsAreWeightedByCountAndTheUnmeasuredRestIsSpreadOverWriteSetsAndReplicas() throws Exception {
        JsonNode nodes = JSON.readTree("""
                [{"node":"node-1","procedures":{
                   "payment":{"executed":100,"executeCpuMs":1.0,"appliedCount":300,"applyCpuMs":0.4}}},
                 {"node":"node-2","procedures":{
                   "payment":{"executed":300,"executeCpuMs":2.0,"appliedCount":100,"applyCpuMs":0.8},
                   "order_status":{"executed":50,"executeCpuMs":0.5,"appliedCount":0,"applyCpuMs":null}}}]
                """);
        JsonNode result = JSON.readTree("""
                {"mode":"gargamel","replicas":2,"cpu":{"hostBusyCores":1.5,
                 "msPerCall":{"host":6.0,"client":0.6,"scheduler":0.3,"nodes":3.2,"postgres":1.8}}}
                """);
        CostModel costs = CostModel.from(nodes, result, "test");
        assertEquals(1.75, costs.cost("payment").executeCpuMs(), 1e-9);
        assertEquals(0.5, costs.cost("payment").applyCpuMs(), 1e-9);
        assertEquals(0.5, costs.cost("order_status").executeCpuMs(), 1e-9);
        assertEquals(0.0, costs.cost("order_status").applyCpuMs(), 1e-9);
        assertEquals(0.6, costs.clientCpuMs(), 1e-9);
        assertEquals(0.3, costs.schedulerCpuMs(), 1e-9);
        assertEquals(1.5, costs.hostBusyCores(), 1e-9);
        double measuredPerCall = 925.0 / 450;
        assertEquals(
                (5.0 - measuredPerCall) / (2 * 400.0 / 450), costs.replicaOverheadCpuMs(), 5e-4); // to the microsecond
    }

    @Test
    void aRunThatCannotCalibrateIsRefusedNamingWhy() throws Exception {
        JsonNode nodes = JSON.readTree("""
                [{"node":"node-1","procedures":{"payment":{"executed":10,"executeCpuMs":1.0,"appliedCount":0}}}]""");
        String cpu = "\"cpu\":{\"msPerCall\":{\"nodes\":1,\"postgres\":1}}";
        IllegalArgumentException direct = assertThrows(
                IllegalArgumentException.class,
                () -> CostModel.from(nodes, JSON.readTree("{\"mode\":\"direct\",\"replicas\":1," + cpu + "}"), "d"));
        assertTrue(direct.getMessage().contains("not a run through Gargamel"), direct.getMessage());
        IllegalArgumentException noCpu = assertThrows(
                IllegalArgumentException.class,
                () -> CostModel.from(nodes, JSON.readTree("{\"mode\":\"gargamel\",\"replicas\":2}"), "old"));
        assertTrue(noCpu.getMessage().contains("no 'cpu'"), noCpu.getMessage());
        JsonNode unmeasured = JSON.readTree("""
                [{"node":"node-1","procedures":{"payment":{"executed":10,"executeCpuMs":null,"appliedCount":0}}}]""");
        IllegalArgumentException noPostgres = assertThrows(
                IllegalArgumentException.class,
                () -> CostModel.from(
                        unmeasured, JSON.readTree("{\"mode\":\"gargamel\",\"replicas\":2," + cpu + "}"), "external"));
        assertTrue(noPostgres.getMessage().contains("payment has no executeCpuMs"), noPostgres.getMessage());
        CostModel single =
                CostModel.from(nodes, JSON.readTree("{\"mode\":\"gargamel\",\"replicas\":1," + cpu + "}"), "r1");
        IllegalArgumentException noApplies =
                assertThrows(IllegalArgumentException.class, () -> Calibration.of(java.util.List.of(single)));
        assertTrue(noApplies.getMessage().contains("2 or more replicas"), noApplies.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> Calibration.builtIn().perReplicaMachines().cost("no_such_procedure"));
    }

    /**
     * Two runs, at 1 and 3 replicas: a shared-host prediction at 2 takes each cost halfway, at 4 one step beyond the
     * 3-replica run's; applies come from the run that has them; machines of their own take the 3-replica costs.
     */
    @Test
    void costsBetweenAndBeyondTheCalibratedReplicaCountsLieOnTheLineThroughThem() {
        CostModel one = new CostModel(
                1, java.util.Map.of("payment", new CostModel.ProcedureCost(1.0, 0)), 0.2, 0.1, 0.5, 1.4, "r1");
        CostModel three = new CostModel(
                3, java.util.Map.of("payment", new CostModel.ProcedureCost(1.2, 0.6)), 0.6, 0.3, 0.9, 1.6, "r3");
        Calibration calibration = Calibration.of(java.util.List.of(three, one));
        CostModel two = calibration.sharedHostAt(2);
        assertEquals(1.1, two.cost("payment").executeCpuMs(), 1e-9);
        assertEquals(0.6, two.cost("payment").applyCpuMs(), 1e-9);
        assertEquals(0.4, two.clientCpuMs(), 1e-9);
        assertEquals(0.2, two.schedulerCpuMs(), 1e-9);
        assertEquals(0.7, two.replicaOverheadCpuMs(), 1e-9);
        assertEquals(1.6, two.hostBusyCores(), 1e-9, "the most the host delivered");
        CostModel four = calibration.sharedHostAt(4);
        assertEquals(0.8, four.clientCpuMs(), 1e-9);
        assertEquals(1.1, four.replicaOverheadCpuMs(), 1e-9);
        assertEquals(three, calibration.perReplicaMachines());
        assertThrows(IllegalArgumentException.class, () -> Calibration.of(java.util.List.of(three, three)));
    }
}
