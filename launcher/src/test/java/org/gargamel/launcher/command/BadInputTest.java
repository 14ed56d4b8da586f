package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets one line naming the problem and a non-zero exit, and writes nothing. */
@Tag("integration")
class BadInputTest {

    private static void assertRejected(CommandRunner result, String expectedInMessage) {
        assertNotEquals(0, result.exitCode(), result.toString());
        assertTrue(result.errorLine().startsWith("gargamel: error: "), result.toString());
        assertTrue(
                result.errorLine().contains(expectedInMessage),
                "expected '" + expectedInMessage + "' in: " + result.errorLine());
        assertEquals("", result.out(), "nothing is printed on standard output for rejected input");
    }

    @Test
    void unknownOptionAndZeroWarehousesAreRejectedBeforeAnythingRuns(@TempDir Path directory) {
        Path out = directory.resolve("never");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--warehouse", "1", "--out", out.toString()),
                "unknown option '--warehouse'");
        assertRejected(CommandRunner.run("tpcc", "run", "--warehouses", "0", "--out", out.toString()), "--warehouses");
        assertRejected(
                CommandRunner.run("tpcc", "load", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--warehouses", "0"),
                "--warehouses");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--mode", "turbo", "--out", out.toString()), "unknown mode 'turbo'");
        assertRejected(CommandRunner.run("tpcc", "frobnicate"), "unknown subcommand 'tpcc frobnicate'");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--postgres", "oracle", "--out", out.toString()),
                "unknown PostgreSQL backend 'oracle'");
        assertRejected(
                CommandRunner.run(
                        "tpcc",
                        "run",
                        "--postgres",
                        "embedded",
                        "--jdbc-url",
                        "jdbc:postgresql://127.0.0.1:1/x",
                        "--out",
                        out.toString()),
                "contradicts --jdbc-url");
        assertRejected(CommandRunner.run("launch"), "unknown command 'launch'");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--warmup", "soon", "--out", out.toString()),
                "option --warmup of 'tpcc run': expected a duration such as 30s");
        assertRejected(
                CommandRunner.run("demo", "--warmup", "0s", "--out", out.toString()), "duration must be positive");
        assertRejected(CommandRunner.run("compare", "--warmup", "-5s", "--out", out.toString()), "--warmup");
        assertRejected(
                CommandRunner.run("chaos", "--kinds", "node,disk", "--out", out.toString()),
                "option --kinds: unknown fault kind 'disk' (expected node, postgres, partition, scheduler, scheduler-machine or site)");
        assertRejected(
                CommandRunner.run("chaos", "--kinds", "scheduler-machine", "--out", out.toString()),
                "option --kinds: scheduler-machine faults need --sites");
        assertRejected(
                CommandRunner.run("chaos", "--sites", "2", "--kinds", "node", "--out", out.toString()),
                "chaos needs at least 3 replicas (a killed node must leave a majority of the write-set log); got 2"
                        + " (--kinds scheduler needs none)");
        String url = "jdbc:postgresql://127.0.0.1:1/x";
        String url2 = "jdbc:postgresql://127.0.0.1:2/x";
        String url3 = "jdbc:postgresql://127.0.0.1:3/x";
        assertRejected(
                CommandRunner.run(
                        "chaos",
                        "--kinds",
                        "postgres",
                        "--jdbc-url",
                        url,
                        "--jdbc-url",
                        url2,
                        "--jdbc-url",
                        url3,
                        "--out",
                        out.toString()),
                "postgres faults need embedded servers");
        assertFalse(Files.exists(out), "a rejected run must not create its output directory");
    }

    @Test
    void badApplierCountsAndApplyLagOptionsAreRejectedBeforeAnythingRuns(@TempDir Path directory) {
        Path out = directory.resolve("never");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--appliers", "0", "--out", out.toString()),
                "option --appliers of 'tpcc run' must be between 1 and 64, got 0");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--appliers", "2", "--out", out.toString()),
                "--appliers is for the Gargamel nodes");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--apply-group", "0", "--out", out.toString()),
                "option --apply-group of 'tpcc run' must be between 1 and 1000, got 0");
        assertRejected(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--apply-group", "4", "--out", out.toString()),
                "--apply-group is for the Gargamel nodes");
        assertRejected(
                CommandRunner.run("apply-lag", "--apply-group", "1001", "--out", out.toString()),
                "option --apply-group of 'apply-lag' must be between 1 and 1000, got 1001");
        assertRejected(
                CommandRunner.run("apply-lag", "--replicas", "1", "--out", out.toString()),
                "--replicas must be at least 2");
        assertRejected(
                CommandRunner.run("apply-lag", "--appliers", "65", "--out", out.toString()),
                "option --appliers of 'apply-lag' must be between 1 and 64, got 65");
        assertRejected(
                CommandRunner.run("apply-lag", "--hot-percent", "101", "--out", out.toString()), "--hot-percent");
        assertRejected(
                CommandRunner.run("apply-lag", "--duration", "1s", "--out", out.toString()),
                "--duration must be at least 2s");
        assertFalse(Files.exists(out), "a rejected run must not create its output directory");
    }

    @Test
    void malformedAndUnreachableUrlsAreNamed(@TempDir Path directory) {
        Path out = directory.resolve("never");
        assertRejected(
                CommandRunner.run("tpcc", "load", "--jdbc-url", "postgres://localhost/x", "--warehouses", "1"),
                "malformed JDBC URL 'postgres://localhost/x'");
        String unreachable = "jdbc:postgresql://127.0.0.1:1/nowhere?user=postgres";
        assertRejected(
                CommandRunner.run("tpcc", "check", "--jdbc-url", unreachable), "cannot connect to " + unreachable);
        assertRejected(
                CommandRunner.run(
                        "tpcc", "run", "--jdbc-url", unreachable, "--duration", "5s", "--out", out.toString()),
                "cannot connect to " + unreachable);
        assertFalse(Files.exists(out), "a rejected run must not create its output directory");
    }

    @Test
    void databaseHoldingAnotherSchemaIsRefusedAndLeftAsItWas(@TempDir Path directory) throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(2)) {
            String foreign = cluster.jdbcUrl(0);
            String empty = cluster.jdbcUrl(1);
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric)");
                statement.execute("INSERT INTO accounts VALUES (1, 10.00)");
            }
            // Two targets, one of them foreign: the load is refused before the empty one is touched.
            assertRejected(
                    CommandRunner.run("tpcc", "load", "--jdbc-url", empty, "--jdbc-url", foreign, "--warehouses", "1"),
                    "accounts");
            Path out = directory.resolve("never");
            assertRejected(
                    CommandRunner.run(
                            "tpcc", "run", "--jdbc-url", foreign, "--duration", "5s", "--out", out.toString()),
                    "accounts");
            assertRejected(CommandRunner.run("tpcc", "check", "--jdbc-url", foreign), "accounts");
            assertFalse(Files.exists(out));
            assertEquals(1, countTables(cluster, 0), "the foreign database must keep only its own table");
            assertEquals(
                    0, countTables(cluster, 1), "the empty database must not be loaded when another target is refused");
        }
    }

    private static int countTables(PostgresCluster cluster, int index) throws Exception {
        try (Connection connection = cluster.connect(index);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
