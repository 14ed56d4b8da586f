package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.frontend.FrontendConfig;
import org.gargamel.frontend.FrontendServer;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.node.NodeServer;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15's pgbench acceptance test: the real pgbench (the PostgreSQL client tools) drives the five TPC-C procedures
 * with random arguments through the front end for a minute, in front of the real scheduler and two nodes on embedded
 * PostgreSQL replicas loaded with one warehouse. pgbench reports no failed transaction, and afterwards both replicas
 * pass the TPC-C consistency conditions and are identical table by table.
 */
@Tag("integration")
class PgbenchTpccTest {
    private static final int REPLICAS = 2;
    private static final String DURATION_SECONDS = "60";
    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)");
    private static final Pattern FAILED = Pattern.compile("number of failed transactions: (\\d+)");

    /** pgbench scripts, one per transaction type, with TPC-C's mix as weights; arguments drawn by pgbench. */
    private static final Map<String, String> SCRIPTS = Map.of(
            "new_order.sql@45",
            """
            \\set d random(1, 10)
            \\set c random(1, 3000)
            \\set i1 random(1, 20000)
            \\set i2 random(20001, 40000)
            \\set i3 random(40001, 60000)
            \\set i4 random(60001, 80000)
            \\set i5 random(80001, 100000)
            \\set q random(1, 10)
            SELECT * FROM new_order(1, :d, :c, ARRAY[:i1, :i2, :i3, :i4, :i5], ARRAY[1, 1, 1, 1, 1], \
            ARRAY[:q, :q, 1, 2, 3], '2026-11-25 12:00:00');
            """,
            "payment.sql@43",
            """
            \\set d random(1, 10)
            \\set c random(1, 3000)
            \\set amount random(100, 500000) / 100.0
            SELECT * FROM payment(1, :d, 1, :d, :c, NULL, :amount, '2026-11-25 12:00:00');
            """,
            "order_status.sql@4",
            """
            \\set d random(1, 10)
            \\set c random(1, 3000)
            SELECT * FROM order_status(1, :d, :c, NULL);
            """,
            "delivery.sql@4",
            """
            \\set carrier random(1, 10)
            SELECT * FROM delivery(1, :carrier, '2026-11-25 12:00:00');
            """,
            "stock_level.sql@4",
            """
            \\set d random(1, 10)
            \\set threshold random(10, 20)
            SELECT * FROM stock_level(1, :d, :threshold);
            """);

    @Test
    void pgbenchRunsTpccThroughTheFrontEndWithoutAFailureAndTheReplicasConverge(@TempDir Path directory)
            throws Exception {
        String pgbench = onPath("pgbench");
        Assumptions.assumeTrue(
                pgbench != null,
                "pgbench is not on PATH: this test did not run (install the PostgreSQL client tools, Debian:"
                        + " postgresql-client)");
        List<String> command = new ArrayList<>(List.of(pgbench, "-n", "-M", "prepared", "-c", "4", "-j", "2"));
        command.addAll(List.of("-T", DURATION_SECONDS));
        for (Map.Entry<String, String> script : SCRIPTS.entrySet()) {
            String file = script.getKey().substring(0, script.getKey().indexOf('@'));
            Files.writeString(directory.resolve(file), script.getValue(), StandardCharsets.UTF_8);
            command.addAll(List.of("-f", directory.resolve(script.getKey()).toString()));
        }
        PrintStream loadProgress = System.err; // not closed: the test only lends it to the load
        try (PostgresCluster replicas = TpccDatabases.startEmbeddedLoaded(REPLICAS, 1, 11, loadProgress)) {
            String rules = TpccRules.temporaryFile();
            String output;
            try (InProcessGargamel cluster = InProcessGargamel.forFrontendUser(replicas.jdbcUrls(), 2, rules, "tpcc");
                    FrontendServer frontend = startFrontEnd(replicas, rules)) {
                command.addAll(
                        List.of("-h", "127.0.0.1", "-p", Integer.toString(frontend.port()), "-U", "tpcc", "tpcc"));
                Process process =
                        new ProcessBuilder(command).redirectErrorStream(true).start();
                output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(process.waitFor(3, TimeUnit.MINUTES), "pgbench did not finish:\n" + output);
                assertEquals(0, process.exitValue(), "pgbench failed:\n" + output);
                cluster.client.awaitQuiescence(Duration.ofSeconds(60));
                for (NodeServer node : cluster.nodes) {
                    assertTrue(
                            !node.failure().isDone(),
                            node.name() + " stopped: " + node.failure().getNow(null));
                }
            }
            System.out.println("pgbench through the front end:\n" + output);
            assertEquals(0, count(FAILED, output), "pgbench counted failed transactions:\n" + output);
            assertTrue(count(PROCESSED, output) > 100, "too few transactions:\n" + output);
            CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
            assertTrue(check.passed(), check.render());
            assertTrue(check.convergence().identical(), check.render());
        }
    }

    /** A front end in this JVM, letting anyone in (trust): pgbench connects as user tpcc. */
    private static FrontendServer startFrontEnd(PostgresCluster replicas, String rules) throws Exception {
        FrontendServer frontend = new FrontendServer(new FrontendConfig(
                "127.0.0.1:0",
                GroupSettings.inMemory(),
                rules,
                FrontendConfig.Authentication.TRUST,
                List.of(),
                replicas.jdbcUrl(0),
                null,
                null,
                null,
                null));
        frontend.start();
        return frontend;
    }

    private static long count(Pattern pattern, String output) {
        Matcher matcher = pattern.matcher(output);
        assertTrue(matcher.find(), "pgbench printed no '" + pattern.pattern() + "':\n" + output);
        return Long.parseLong(matcher.group(1));
    }

    private static String onPath(String program) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator, -1)) {
            Path candidate = Path.of(directory, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }
}
