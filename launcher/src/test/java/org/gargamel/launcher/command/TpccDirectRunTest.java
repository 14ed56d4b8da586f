package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.check.ConditionResult;
import org.gargamel.tpcc.workload.TransactionType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The foundation's acceptance test, through the commands a user types: load one warehouse into embedded
 * PostgreSQL, check every condition right after the load (condition 11 included), run 30 s of direct
 * TPC-C, and check again; the mix, the user aborts and result.json are held to the contract.
 */
@Tag("integration")
class TpccDirectRunTest {

    @Test
    void loadCheckRunCheckOnEmbeddedPostgres(@TempDir Path directory) throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1)) {
            String url = cluster.jdbcUrl(0);
            CommandRunner load =
                    CommandRunner.run("tpcc", "load", "--jdbc-url", url, "--warehouses", "1", "--seed", "7");
            assertEquals(0, load.exitCode(), load.toString());

            CheckReport afterLoad = new CheckRunner().run(java.util.List.of(url));
            assertTrue(afterLoad.passed(), afterLoad.render());
            ConditionResult condition11 = afterLoad.consistency().get(0).condition(11);
            assertTrue(
                    condition11.applicable() && condition11.passed(),
                    "condition 11 must apply and hold after the load: " + condition11);
            CommandRunner check = CommandRunner.run("tpcc", "check", "--jdbc-url", url);
            assertEquals(0, check.exitCode(), check.toString());

            Path out = directory.resolve("run");
            CommandRunner run = CommandRunner.run(
                    "tpcc",
                    "run",
                    "--mode",
                    "direct",
                    "--jdbc-url",
                    url,
                    "--warehouses",
                    "1",
                    "--terminals",
                    "4",
                    "--warmup",
                    "5s",
                    "--duration",
                    "25s",
                    "--seed",
                    "3",
                    "--out",
                    out.toString());
            assertEquals(0, run.exitCode(), run.toString());

            JsonNode result =
                    new ObjectMapper().readTree(out.resolve("result.json").toFile());
            assertEquals("direct", result.get("mode").asText());
            assertEquals(1, result.get("warehouses").asInt());
            assertEquals(4, result.get("terminals").asInt());
            assertEquals(5.0, result.get("warmupSeconds").asDouble(), run.toString());
            assertEquals(
                    25.0, result.get("durationSeconds").asDouble(), 1.0, "the measured interval follows the warm-up");
            assertTrue(result.get("consistency").get("passed").asBoolean(), run.out());
            assertTrue(result.get("convergence").get("identical").asBoolean(), run.out());
            assertEquals(0, result.get("errors").asLong(), run.toString());
            assertTrue(result.get("tpmC").asDouble() > 0, "no New-Order committed: " + run.out());
            // The ledger: every acknowledged New-Order (warm-up included) is in the database, none was created twice.
            assertTrue(
                    result.get("acknowledgedNewOrders").asLong()
                            >= result.get("committed").get("NEW_ORDER").asLong(),
                    run.out());
            assertEquals(0, result.get("acknowledgedMissing").asLong(), run.out());
            assertEquals(0, result.get("duplicateOrders").asLong(), run.out());
            assertTrue(run.out().contains("every one on every replica"), run.out());

            long newOrders = result.get("committed").get("NEW_ORDER").asLong();
            long userAborts = result.get("userAborts").asLong();
            double abortPercent = 100.0 * userAborts / (newOrders + userAborts);
            assertTrue(
                    abortPercent > 0.3 && abortPercent < 2.0,
                    "the 1% New-Order rollbacks must be counted as user aborts: " + userAborts + " of "
                            + (newOrders + userAborts));
            Map<TransactionType, Double> expectedMix = Map.of(
                    TransactionType.NEW_ORDER,
                    45.0,
                    TransactionType.PAYMENT,
                    43.0,
                    TransactionType.ORDER_STATUS,
                    4.0,
                    TransactionType.DELIVERY,
                    4.0,
                    TransactionType.STOCK_LEVEL,
                    4.0);
            for (TransactionType type : TransactionType.values()) {
                double measured = result.get("mix").get(type.name()).asDouble();
                assertTrue(
                        Math.abs(measured - expectedMix.get(type)) <= 1.0,
                        type + " is " + measured + "% of the mix, expected " + expectedMix.get(type) + " ± 1");
            }

            CommandRunner checkAfterRun = CommandRunner.run("tpcc", "check", "--jdbc-url", url);
            assertEquals(0, checkAfterRun.exitCode(), checkAfterRun.toString());
        }
    }
}
