package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gargamel serve} as a user runs it: the printed URI works in psql as it is (a read-only call's rows, a
 * payment's row), issue 38's three attacks are refused (42501) and {@code gargamel verify} finds the two replicas
 * identical after them, and SIGTERM stops every process and removes every temporary file; and a standalone scheduler's
 * {@code frontend:} section, whose front end answers psql.
 */
@Tag("e2e")
class ServeIT {
    private static final String READY = "ready: postgresql://";
    /** Where the project's machines have psql (the PostgreSQL client is part of their set-up). */
    private static final Path PSQL = Path.of("/usr/bin/psql");

    /**
     * serve, and a standalone scheduler with a {@code frontend:} section, started together (the scheduler's check
     * runs while serve loads TPC-C, to keep the test short).
     */
    @Test
    void psqlCallsProceduresWithThePrintedUriAndSigtermLeavesNothing(@TempDir Path directory) throws Exception {
        assertTrue(
                Files.isExecutable(PSQL),
                PSQL + " is missing: this test needs the PostgreSQL client (apt-get install postgresql-client)");
        Path serveDirectory = Files.createDirectories(directory.resolve("serve"));
        GargamelProcess serve = GargamelProcess.start(serveDirectory, "serve", "--replicas", "2", "--port", "0");
        List<ProcessHandle> children = Orphans.watchDescendants(serve.process);
        try {
            aSchedulerWithAFrontEndSectionServesPsql(Files.createDirectories(directory.resolve("scheduler")));

            serve.awaitOutput(READY, 240);
            String uri = serve.output()
                    .lines()
                    .filter(line -> line.startsWith(READY))
                    .findFirst()
                    .orElseThrow()
                    .substring("ready: ".length());
            assertTrue(uri.matches("postgresql://gargamel:[A-Za-z0-9]{20}@127\\.0\\.0\\.1:\\d+/gargamel"), uri);

            // order_status of customer 1 of district 1: one row per line of the customer's last order, which the
            // load gave 5 to 15 lines; the first column is the customer's id.
            List<String> rows = psql(directory, uri, "SELECT * FROM order_status(1, 1, 1, NULL)");
            assertTrue(rows.size() >= 5 && rows.size() <= 15, "rows: " + rows);
            assertTrue(rows.stream().allMatch(row -> row.startsWith("1|")), "rows: " + rows);

            List<String> paid =
                    psql(directory, uri, "SELECT * FROM payment(1, 2, 1, 2, 7, NULL, 12.50, '2026-01-01 10:00:00')");
            assertEquals(1, paid.size(), "payment's rows: " + paid);

            // Issue 38's three attacks, as psql sends them: the user's role may do none of them (docs/frontend.md,
            // Security), and the cluster serves on.
            for (String attack : List.of(
                    "SELECT set_config('session_replication_role', 'replica', false)",
                    "SELECT pg_read_file('/etc/hostname')",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename <> current_user")) {
                String refused = psqlFailing(directory, uri, attack);
                assertTrue(refused.contains("ERROR:  42501"), attack + ": " + refused);
            }
            assertEquals(List.of("gargamel|gargamel"), psql(directory, uri, "SELECT current_user, session_user"));
            assertEquals(
                    1,
                    psql(directory, uri, "SELECT * FROM payment(1, 3, 1, 3, 8, NULL, 1.50, '2026-01-01 10:00:01')")
                            .size());
            // The two replicas hold the same rows, as `verify` compares them beside the running cluster.
            String logs = serve.output()
                    .lines()
                    .filter(line -> line.startsWith("logs in "))
                    .findFirst()
                    .orElseThrow();
            Path serveLogs = Path.of(logs.substring("logs in ".length()).split("[ ;]", 2)[0]);
            List<String> verify = new java.util.ArrayList<>(List.of("verify"));
            for (String node : List.of("node-1.yaml", "node-2.yaml")) {
                String url = Files.readAllLines(serveLogs.resolve(node)).stream()
                        .filter(line -> line.startsWith("jdbcUrl: "))
                        .findFirst()
                        .orElseThrow()
                        .substring("jdbcUrl: ".length())
                        .replace("\"", "");
                verify.addAll(List.of("--jdbc-url", url));
            }
            String verified = GargamelProcess.runCleanly(
                    Files.createDirectories(directory.resolve("verify")), 3, verify.toArray(String[]::new));
            assertTrue(verified.contains("verify: 2 replicas identical"), verified);

            serve.signal("TERM");
            serve.waitFor(90, TimeUnit.SECONDS);
            String output = serve.output();
            assertTrue(output.contains("gargamel serve stopped"), output);
            Orphans.assertAllGone(children, output);
            assertEquals(List.of(), serve.leftovers(), "temporary files left behind");
        } finally {
            serve.process.descendants().forEach(ProcessHandle::destroyForcibly);
            serve.process.destroyForcibly();
        }
    }

    /** A standalone scheduler with a {@code frontend:} section serves psql from its own process. */
    private static void aSchedulerWithAFrontEndSectionServesPsql(Path directory) throws Exception {
        Path config = directory.resolve("scheduler.yaml");
        String bind = "127.0.0.1:" + LoopbackPorts.pick();
        Files.writeString(
                config,
                "control: {bind: " + bind + ", initialHosts: [" + bind + "]}\n"
                        + "rules: " + TpccRules.writeTo(directory) + "\n"
                        + "frontend: {listen: 127.0.0.1:0, authentication: trust}\n");
        GargamelProcess scheduler = GargamelProcess.start(directory, "scheduler", "--config", config.toString());
        try {
            scheduler.awaitOutput("gargamel frontend ready: postgresql://", 120);
            String uri = scheduler
                    .output()
                    .lines()
                    .filter(line -> line.startsWith("gargamel frontend ready: "))
                    .findFirst()
                    .orElseThrow()
                    .substring("gargamel frontend ready: ".length())
                    .replace("postgresql://", "postgresql://app@");
            List<String> version = psql(directory, uri, "SELECT version()");
            assertEquals(1, version.size(), "version(): " + version);
            assertTrue(version.get(0).contains("Gargamel"), version.get(0));
            scheduler.signal("TERM");
            scheduler.waitFor(60, TimeUnit.SECONDS);
        } finally {
            scheduler.process.destroyForcibly();
        }
    }

    /** psql with {@code uri} running {@code sql}, which must fail: its output, errors verbose (with the SQLSTATE). */
    private static String psqlFailing(Path directory, String uri, String sql) throws IOException, InterruptedException {
        Path output = directory.resolve("psql-error.out");
        Process psql = new ProcessBuilder(
                        PSQL.toString(),
                        "-X",
                        "-At",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-v",
                        "VERBOSITY=verbose",
                        uri,
                        "-c",
                        sql)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish: " + sql);
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertTrue(psql.exitValue() != 0, "psql succeeded on " + sql + ":\n" + text);
        return text;
    }

    /** psql with {@code uri} as it is, unaligned and without headers: the rows, one line each. */
    private static List<String> psql(Path directory, String uri, String sql) throws IOException, InterruptedException {
        Path output = directory.resolve("psql.out");
        Process psql = new ProcessBuilder(PSQL.toString(), "-X", "-At", "-v", "ON_ERROR_STOP=1", uri, "-c", sql)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish: " + sql);
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertEquals(0, psql.exitValue(), "psql failed on " + sql + ":\n" + text);
        return text.lines().filter(line -> !line.isEmpty()).toList();
    }
}
