package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Passwords in JDBC URLs never reach standard output, standard error or the log, whatever the case of
 * {@code password=}: real commands, run in this JVM, fail on an unreachable server, a malformed URL, a URL given
 * twice, a database that holds something else and a database loaded at another scale; each names the problem and
 * the URL with the password masked.
 */
@Tag("integration")
class PasswordMaskingTest {
    private static final String LOWER = "password=Secret1";
    private static final String UPPER = "PASSWORD=Secret2";

    /** Runs a command and also captures what the logging writes (to System.out/err) meanwhile. */
    private static CommandRunner runCapturingLogs(ByteArrayOutputStream logs, String... arguments) {
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        PrintStream capture = new PrintStream(logs, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            return CommandRunner.run(arguments);
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
    }

    private static void assertMasked(int expectedExit, String expectedMessage, String... arguments) {
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        CommandRunner result = runCapturingLogs(logs, arguments);
        String everything = result.out() + result.err() + logs.toString(StandardCharsets.UTF_8);
        assertEquals(expectedExit, result.exitCode(), result.toString());
        assertTrue(
                result.errorLine().contains(expectedMessage),
                "expected '" + expectedMessage + "' in: " + result.errorLine());
        assertTrue(result.errorLine().contains("***"), "the URL is named, masked: " + result.errorLine());
        assertFalse(everything.contains("Secret1"), "the lower-case password leaked:\n" + everything);
        assertFalse(everything.contains("Secret2"), "the upper-case password leaked:\n" + everything);
    }

    @Test
    void unreachableMalformedAndRepeatedUrls(@TempDir Path directory) {
        String unreachable = "jdbc:postgresql://127.0.0.1:" + LoopbackPorts.pick() + "/nowhere?user=postgres&";
        String lower = unreachable + LOWER;
        String upper = unreachable + UPPER;
        String out = directory.resolve("never").toString();
        assertMasked(1, "cannot connect to", "tpcc", "check", "--jdbc-url", lower);
        assertMasked(1, "cannot connect to", "tpcc", "load", "--jdbc-url", upper, "--warehouses", "1");
        assertMasked(1, "cannot connect to", "tpcc", "run", "--mode", "direct", "--jdbc-url", lower, "--out", out);
        assertMasked(1, "cannot connect to", "tpcc", "run", "--jdbc-url", lower, "--jdbc-url", upper, "--out", out);
        assertMasked(
                1,
                "cannot connect to",
                "compare",
                "--jdbc-url",
                lower,
                "--jdbc-url",
                upper,
                "--jdbc-url",
                unreachable + "Password=Secret1",
                "--out",
                out);
        assertMasked(1, "cannot remove write-set capture from", "node", "uninstall-capture", "--jdbc-url", upper);
        assertMasked(1, "malformed JDBC URL", "tpcc", "check", "--jdbc-url", "postgres://localhost/x?" + LOWER);
        assertMasked(
                1,
                "malformed JDBC URL",
                "tpcc",
                "load",
                "--jdbc-url",
                "jdbc:mysql://localhost/x?" + UPPER,
                "--warehouses",
                "1");
        assertMasked(2, "given twice", "tpcc", "run", "--jdbc-url", lower, "--jdbc-url", lower, "--out", out);
        assertMasked(2, "given twice", "tpcc", "check", "--jdbc-url", upper, "--jdbc-url", upper);
    }

    @Test
    void databasesHoldingSomethingElse(@TempDir Path directory) throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(2)) {
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric)");
            }
            String foreign = cluster.jdbcUrl(0) + "&";
            String out = directory.resolve("never").toString();
            assertMasked(1, "refusing to load", "tpcc", "load", "--jdbc-url", foreign + LOWER, "--warehouses", "1");
            assertMasked(
                    1,
                    "refusing to run on",
                    "tpcc",
                    "run",
                    "--mode",
                    "direct",
                    "--jdbc-url",
                    foreign + UPPER,
                    "--out",
                    out);
            assertMasked(1, "cannot check", "tpcc", "check", "--jdbc-url", foreign + LOWER);

            String loaded = cluster.jdbcUrl(1) + "&" + UPPER;
            ByteArrayOutputStream logs = new ByteArrayOutputStream();
            CommandRunner load = runCapturingLogs(logs, "tpcc", "load", "--jdbc-url", loaded, "--warehouses", "1");
            assertEquals(0, load.exitCode(), load.toString());
            assertFalse((load.out() + load.err() + logs).contains("Secret2"), load.toString());
            assertMasked(
                    2,
                    "holds 1 warehouse(s) but --warehouses is 2",
                    "tpcc",
                    "run",
                    "--mode",
                    "direct",
                    "--jdbc-url",
                    loaded,
                    "--warehouses",
                    "2",
                    "--out",
                    out);
        }
    }
}
