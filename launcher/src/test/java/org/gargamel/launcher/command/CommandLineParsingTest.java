package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.chaos.FaultPlan;
import org.gargamel.launcher.cluster.Acknowledgement;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.launcher.cluster.SitesTopology;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandExecution;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.workload.DirectIsolation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line as the commands parse it: values, repeats, inline values, flags and durations become a typed run
 * request (a Gargamel mode and isolation, or direct with its own level); bad input is one line naming the option and
 * the command, exit 2, with nothing on standard output. Nothing here starts a server.
 */
@Tag("unit")
class CommandLineParsingTest {
    private final CommandContext context = CommandContext.of(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    /** The request {@code tpcc run ARGS} (or {@code demo ARGS}) asks for, parsed as the command line parses it. */
    private RunRequest request(boolean demo, String... arguments) {
        CommandLine line = new CommandExecution(context)
                .commandLine(demo ? new DemoCommand(context) : new TpccRunCommand(context));
        line.parseArgs(arguments);
        return demo ? ((DemoCommand) line.getCommand()).request() : ((TpccRunCommand) line.getCommand()).request();
    }

    /**
     * A client of a running cluster may name every scheduler (the active one and those standing by): it finds the
     * group through whichever answers, so a run can start, and go on, with any one of them cut off.
     */
    @Test
    void theSchedulerOfARunningClusterCanBeNamedOnceOrForEachScheduler() {
        RunRequest one = request(
                false, "--scheduler", "10.0.0.1:7800", "--bind", "10.0.0.9", "--jdbc-url", "jdbc:postgresql://a/x");
        assertEquals(
                new RunTarget.Gargamel(Mode.GARGAMEL, Isolation.PSI, 4, List.of("10.0.0.1:7800"), "10.0.0.9"),
                one.target());
        RunRequest two = request(
                false,
                "--scheduler",
                "10.0.0.1:7800",
                "--scheduler=10.0.0.2:7800",
                "--jdbc-url",
                "jdbc:postgresql://a/x");
        RunTarget.Gargamel target = (RunTarget.Gargamel) two.target();
        assertEquals(List.of("10.0.0.1:7800", "10.0.0.2:7800"), target.schedulers());
        assertTrue(target.joinsRunningCluster());
        assertFalse(((RunTarget.Gargamel) request(false).target()).joinsRunningCluster());
    }

    @Test
    void valuesRepeatsInlineValuesAndFlagsBecomeATypedRequest() {
        RunRequest request = request(
                false,
                "--mode",
                "round-robin",
                "--jdbc-url",
                "jdbc:postgresql://a/x",
                "--jdbc-url=jdbc:postgresql://b/x",
                "--warehouses",
                "4",
                "--keying",
                "--duration",
                "2m",
                "--warmup=10s",
                "--isolation",
                "si",
                "--workers",
                "3",
                "--rate",
                "150.5",
                "--seed",
                "-7");
        assertEquals(
                new RunTarget.Gargamel(Mode.ROUND_ROBIN, Isolation.SI, 3, List.of(), "127.0.0.1"), request.target());
        assertEquals(List.of("jdbc:postgresql://a/x", "jdbc:postgresql://b/x"), request.jdbcUrls());
        assertEquals(2, request.replicas(), "one replica per --jdbc-url");
        assertEquals(PostgresBackend.EXTERNAL, request.backend());
        assertEquals(4, request.warehouses());
        assertEquals(40, request.terminals(), "10 terminals per warehouse by default");
        assertTrue(request.keying());
        assertEquals(Duration.ofMinutes(2), request.duration());
        assertEquals(Duration.ofSeconds(10), request.warmup());
        assertEquals(150.5, request.rate());
        assertEquals(-7, request.seed());
        assertEquals("round-robin", request.target().modeName());
        assertEquals("si", request.target().isolationName());
    }

    @Test
    void directModeHasItsOwnIsolationLevelsAndAcceptsPsiAndSi() {
        RunRequest plain = request(false, "--mode", "direct");
        assertEquals(new RunTarget.Direct(DirectIsolation.READ_COMMITTED, 10), plain.target());
        assertEquals(1, plain.replicas());
        assertEquals(PostgresBackend.EMBEDDED, plain.backend());
        assertEquals("direct", plain.target().modeName());
        assertEquals("read-committed", plain.target().isolationName());
        assertEquals(
                new RunTarget.Direct(DirectIsolation.REPEATABLE_READ, 3),
                request(false, "--mode", "direct", "--isolation", "si", "--max-retries", "3")
                        .target());
        assertEquals(
                new RunTarget.Direct(DirectIsolation.SERIALIZABLE, 10),
                request(false, "--mode=direct", "--isolation=serializable").target());
    }

    @Test
    void theDemoHasItsOwnDefaults() {
        RunRequest demo = request(true);
        assertEquals(new RunTarget.Gargamel(Mode.GARGAMEL, Isolation.PSI, 4, List.of(), "127.0.0.1"), demo.target());
        assertEquals(2, demo.warehouses());
        assertEquals(20, demo.terminals());
        assertEquals(3, demo.replicas());
        assertEquals(Duration.ofSeconds(60), demo.duration());
        assertEquals(Duration.ZERO, demo.warmup());
        assertTrue(demo.out().toString().startsWith("out/demo-"), demo.out().toString());
        RunRequest run = request(false);
        assertEquals(1, run.warehouses());
        assertTrue(run.out().toString().startsWith("out/tpcc-"), run.out().toString());
    }

    /** soak is chaos for an hour, sampled every 30 s; chaos samples nothing unless asked. */
    @Test
    void soakIsAnHourOfChaosSampledEveryThirtySeconds() {
        CommandLine soak = new CommandExecution(context).commandLine(new SoakCommand(context));
        soak.parseArgs();
        SoakCommand parsed = (SoakCommand) soak.getCommand();
        assertEquals(Duration.ofMinutes(60), parsed.request().duration());
        assertEquals(2, parsed.request().warehouses());
        assertEquals(Duration.ofSeconds(30), parsed.sampleEvery());
        assertEquals(
                List.of(
                        FaultPlan.Kind.NODE,
                        FaultPlan.Kind.POSTGRES,
                        FaultPlan.Kind.SCHEDULER,
                        FaultPlan.Kind.PARTITION),
                parsed.faults(parsed.request()).kinds(),
                "an hour of faults includes partitions");
        CommandLine chaos = new CommandExecution(context).commandLine(new ChaosCommand(context));
        chaos.parseArgs();
        assertEquals(null, ((ChaosCommand) chaos.getCommand()).sampleEvery());
        assertEquals(
                List.of(FaultPlan.Kind.NODE, FaultPlan.Kind.POSTGRES, FaultPlan.Kind.SCHEDULER),
                ((ChaosCommand) chaos.getCommand())
                        .faults(((ChaosCommand) chaos.getCommand()).request())
                        .kinds());
        assertEquals(
                Duration.ofMinutes(2),
                ((ChaosCommand) chaos.getCommand()).request().duration());
    }

    @Test
    void unknownOptionNamesTheOptionAndTheCommandAndStartsNothing() {
        CommandRunner typo = CommandRunner.run("tpcc", "run", "--warehouse", "1");
        assertEquals(2, typo.exitCode(), typo.toString());
        assertTrue(
                typo.errorLine().startsWith("gargamel: error: unknown option '--warehouse' for 'tpcc run'"),
                typo.errorLine());
        assertEquals("", typo.out());
        CommandRunner inline = CommandRunner.run("demo", "--duraton=30s");
        assertTrue(
                inline.errorLine().startsWith("gargamel: error: unknown option '--duraton' for 'demo'"),
                inline.errorLine());
        CommandRunner classify = CommandRunner.run("classify", "--bogus", "a()", "b()");
        assertEquals(2, classify.exitCode(), classify.toString());
        assertTrue(classify.errorLine().contains("'--bogus' for 'classify'"), classify.errorLine());
    }

    @Test
    void outOfRangeMissingMalformedAndRepeatedValuesAreRejected() {
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--warehouses", "0"),
                "option --warehouses of 'tpcc run' must be between 1 and 10000, got 0");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--warehouses", "four"),
                "option --warehouses of 'tpcc run': expected an integer, got 'four'");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--warehouses"), "option --warehouses of 'tpcc run' needs a value");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--warehouses", "1", "--warehouses", "2"),
                "option --warehouses of 'tpcc run' given twice");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--isolation", "psi2"),
                "unknown isolation 'psi2' for direct mode");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--isolation", "serializable"),
                "option --isolation of 'tpcc run' (mode gargamel): unknown isolation 'serializable'");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--workers", "2"),
                "--workers is for the Gargamel nodes");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--replicas", "2", "--jdbc-url", "jdbc:postgresql://a/x"),
                "--replicas 2 contradicts the 1 --jdbc-url given");
        assertUsageError(CommandRunner.run("tpcc", "run", "stray"), "unexpected argument 'stray' for 'tpcc run'");
        assertUsageError(
                CommandRunner.run("tpcc", "load", "--jdbc-url", "jdbc:postgresql://a/x"),
                "'tpcc load' needs option --warehouses");
        assertUsageError(CommandRunner.run("tpcc"), "'tpcc' needs a subcommand: load, run or check");
        assertUsageError(CommandRunner.run("classify", "a()"), "'classify' needs exactly two calls, got 1");
        assertUsageError(
                CommandRunner.run("classify", "--isolation", "ser", "a()", "b()"),
                "option --isolation of 'classify': unknown isolation 'ser' (expected psi or si)");
    }

    /** {@code --sites}: one scheduler per site, --replicas per site, the terminals split by warehouse or shared. */
    @Test
    void sitesAreOneOptionAwayAndTheirOptionsAreChecked() {
        RunRequest sites =
                request(true, "--sites", "2", "--site-delay", "50ms", "--replicas", "2", "--warehouses", "4");
        RunTarget.Gargamel target = (RunTarget.Gargamel) sites.target();
        assertEquals(4, sites.replicas(), "2 sites of 2 replicas");
        assertEquals(2, target.sites().count());
        assertEquals(50, target.sites().delayMillis());
        assertEquals("optimistic", target.sites().agreement());
        assertTrue(target.sites().partitioned());
        assertEquals(0, target.sites().siteOfTerminal(0, 4), "warehouse 1");
        assertEquals(1, target.sites().siteOfTerminal(1, 4), "warehouse 2");
        assertEquals(0, target.sites().siteOfTerminal(6, 4), "warehouse 3");
        assertEquals(1, target.sites().siteOfNode(2), "node-3 is site-2's first");
        RunTarget.Gargamel shared = (RunTarget.Gargamel)
                request(true, "--sites", "3", "--agreement", "pessimistic", "--warehouses-per-site", "shared")
                        .target();
        assertEquals("pessimistic", shared.sites().agreement());
        assertEquals(2, shared.sites().siteOfTerminal(5, 2), "shared: terminal 5 of 3 sites");
        assertEquals(null, ((RunTarget.Gargamel) request(true).target()).sites(), "one site unless asked");
        RunTarget.Gargamel central = (RunTarget.Gargamel)
                request(true, "--sites", "2", "--agreement", "one-scheduler").target();
        assertTrue(central.sites().oneScheduler());
        assertEquals(new SitesTopology.OneScheduler(), central.sites().topology(), "a topology, not an agreement");
        assertEquals("one-scheduler", central.sites().agreement(), "result.json keeps its name");
        assertTrue(!target.sites().oneScheduler());
        RunTarget.Gargamel owned =
                (RunTarget.Gargamel) request(true, "--sites", "2", "--agreement", "owned", "--warehouses", "3")
                        .target();
        assertTrue(owned.sites().owned());
        assertEquals(
                Map.of("site-1", List.of(1L, 3L), "site-2", List.of(2L)),
                owned.sites().owners(),
                "warehouse w is site (w - 1) mod 2's, as its terminals' site when partitioned");
        assertEquals(Acknowledgement.ALL_SITES, owned.sites().acknowledgement());
        assertEquals("all-sites", owned.sites().acknowledgement().spelling());
        RunTarget.Gargamel siteAck =
                (RunTarget.Gargamel) request(true, "--sites", "2", "--agreement", "owned", "--ack", "site")
                        .target();
        assertEquals(
                new SitesTopology.Agreeing("owned", Acknowledgement.SITE),
                siteAck.sites().topology(),
                "--ack site: a write-set log per site");
        assertEquals("site", siteAck.sites().acknowledgement().spelling());
        assertEquals("site", siteAck.sites().acknowledgement().writeSetLog(), "the node's writeSetLog");
        assertThrows(
                IllegalArgumentException.class,
                () -> SitesTopology.of("optimistic", Acknowledgement.SITE),
                "a per-site acknowledgement needs site-owned classes, whoever builds the plan");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--ack", "site"), "--ack site needs --agreement owned");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--agreement", "owned", "--ack", "local"),
                "--ack must be all-sites or site, got 'local'");
        assertUsageError(CommandRunner.run("demo", "--ack", "site"), "--ack is for --sites");

        assertUsageError(CommandRunner.run("demo", "--sites", "1"), "option --sites of 'demo' must be between 2 and 8");
        assertUsageError(CommandRunner.run("demo", "--site-delay", "50ms"), "--site-delay is for --sites");
        assertUsageError(CommandRunner.run("demo", "--agreement", "pessimistic"), "--agreement is for --sites");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--agreement", "eventual"),
                "--agreement must be optimistic, pessimistic, owned, abort-free or one-scheduler");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--warehouses-per-site", "some"),
                "--warehouses-per-site must be partitioned or shared");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--isolation", "si"),
                "--sites needs --mode gargamel and --isolation psi");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "3", "--warehouses", "2"),
                "--warehouses-per-site partitioned needs at least one warehouse per site");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--client", "pgwire"), "not with --scheduler or --client");
        assertUsageError(
                CommandRunner.run("demo", "--sites", "2", "--jdbc-url", "jdbc:postgresql://a/x"),
                "--sites 2 with 1 replica(s) per site needs 2 --jdbc-url, got 1");
    }

    @Test
    void durationsAcceptUnitsAndRejectNonsense() {
        assertEquals(Duration.ofSeconds(60), DurationConverter.parse("60s"));
        assertEquals(Duration.ofSeconds(45), DurationConverter.parse("45"));
        assertEquals(Duration.ofMillis(500), DurationConverter.parse("500ms"));
        assertEquals(Duration.ofMinutes(2), DurationConverter.parse("2m"));
        assertEquals(Duration.ofHours(1), DurationConverter.parse("1h"));
        assertThrows(IllegalArgumentException.class, () -> DurationConverter.parse("0s"));
        assertThrows(IllegalArgumentException.class, () -> DurationConverter.parse("10 parsecs"));
        assertThrows(IllegalArgumentException.class, () -> DurationConverter.parse("s"));
    }

    @Test
    void everyCommandHasHelpAndHelpListsEveryCommand() {
        List<List<String>> commands = List.of(
                List.of("demo"),
                List.of("tpcc"),
                List.of("tpcc", "load"),
                List.of("tpcc", "run"),
                List.of("tpcc", "check"),
                List.of("compare"),
                List.of("classify"),
                List.of("scheduler"),
                List.of("node"),
                List.of("node", "uninstall-capture"),
                List.of("bench"),
                List.of("help"));
        for (List<String> command : commands) {
            String[] arguments = java.util.stream.Stream.concat(command.stream(), java.util.stream.Stream.of("--help"))
                    .toArray(String[]::new);
            CommandRunner help = CommandRunner.run(arguments);
            assertEquals(0, help.exitCode(), help.toString());
            assertTrue(help.out().startsWith("Usage: scripts/gargamel " + String.join(" ", command)), help.out());
            assertEquals("", help.err());
        }
        CommandRunner list = CommandRunner.run("help");
        assertEquals(0, list.exitCode(), list.toString());
        for (String command : List.of(
                "demo",
                "serve",
                "tpcc load",
                "tpcc run",
                "tpcc check",
                "compare",
                "classify",
                "scheduler",
                "node",
                "node uninstall-capture",
                "bench",
                "help")) {
            assertTrue(
                    list.out().contains("\n  " + command + " "), "help does not list " + command + ":\n" + list.out());
        }
        assertEquals(list.out(), CommandRunner.run("--help").out());
        CommandRunner none = CommandRunner.run();
        assertEquals(2, none.exitCode(), "no command is bad usage");
        assertEquals(list.out(), none.out());
        CommandRunner runHelp = CommandRunner.run("help", "tpcc", "run");
        assertEquals(CommandRunner.run("tpcc", "run", "--help").out(), runHelp.out());
        assertFalse(runHelp.out().isEmpty());
    }

    /** {@code --client pgwire} names the front end path in the target; it has no meaning without middleware. */
    @Test
    void theClientOfARunThroughGargamelIsTheLibraryOrPgwire() {
        assertEquals(
                RunTarget.Client.LIBRARY, ((RunTarget.Gargamel) request(false).target()).client());
        RunTarget pgwire = request(true, "--client", "pgwire").target();
        assertEquals(RunTarget.Client.PGWIRE, ((RunTarget.Gargamel) pgwire).client());
        assertEquals("pgwire", pgwire.clientName());
        assertEquals(null, request(false, "--mode", "direct").target().clientName());
        assertUsageError(CommandRunner.run("tpcc", "run", "--client", "odbc"), "'odbc' is not a client");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--client", "pgwire"), "direct mode calls");
        assertUsageError(
                CommandRunner.run(
                        "tpcc",
                        "run",
                        "--client",
                        "pgwire",
                        "--scheduler",
                        "10.0.0.1:7800",
                        "--jdbc-url",
                        "jdbc:postgresql://a/x"),
                "--client pgwire starts a front end");
    }

    /**
     * {@code --tpcc-rules commutative} gives a run, compare and classify the commutative rules (increments); the
     * thesis's rules (Table 6.1) are the default; it has no meaning without middleware, for a running cluster, or
     * beside {@code classify --rules}.
     */
    @Test
    void theThesisRulesAreOneOptionAway() {
        assertEquals(
                TpccRules.Variant.TABLE61, ((RunTarget.Gargamel) request(false).target()).tpccRules());
        assertEquals(
                TpccRules.Variant.COMMUTATIVE,
                ((RunTarget.Gargamel)
                                request(true, "--tpcc-rules", "commutative").target())
                        .tpccRules());
        assertTrue(CompareCommand.plans(true).stream()
                .map(CompareCommand.Plan::target)
                .filter(RunTarget.Gargamel.class::isInstance)
                .allMatch(target -> ((RunTarget.Gargamel) target).tpccRules() == TpccRules.Variant.TABLE61));
        assertTrue(CompareCommand.plans(true, TpccRules.Variant.COMMUTATIVE).stream()
                .map(CompareCommand.Plan::target)
                .filter(RunTarget.Gargamel.class::isInstance)
                .allMatch(target -> ((RunTarget.Gargamel) target).tpccRules() == TpccRules.Variant.COMMUTATIVE));
        assertUsageError(CommandRunner.run("tpcc", "run", "--tpcc-rules", "thesis"), "'thesis' names no TPC-C rules");
        assertUsageError(
                CommandRunner.run("tpcc", "run", "--mode", "direct", "--tpcc-rules", "table61"),
                "direct mode has none");
        assertUsageError(
                CommandRunner.run(
                        "tpcc",
                        "run",
                        "--tpcc-rules",
                        "table61",
                        "--scheduler",
                        "10.0.0.1:7800",
                        "--jdbc-url",
                        "jdbc:postgresql://a/x"),
                "--tpcc-rules contradicts --scheduler");
        String delivery = "delivery(1, 3, '2026-01-01 10:00:00')";
        String payment = "payment(2, 2, 1, 5, 9, NULL, 10.00, '2026-01-01 10:00:00')";
        CommandRunner commutative = CommandRunner.run("classify", "--tpcc-rules", "commutative", delivery, payment);
        assertEquals("NO CONFLICT", commutative.out().strip(), commutative.toString());
        CommandRunner table61 = CommandRunner.run("classify", delivery, payment);
        assertTrue(table61.out().startsWith("CONFLICT on customer(c_w_id=1"), table61.toString());
        assertUsageError(
                CommandRunner.run("classify", "--rules", "x.yaml", "--tpcc-rules", "table61", delivery, payment),
                "it contradicts --rules");
    }

    /** compare, quick or not, runs one row through the front end: the library's 1-replica 1-warehouse row again. */
    @Test
    void compareRunsOneRowThroughTheFrontEnd() {
        for (boolean quick : new boolean[] {true, false}) {
            List<CompareCommand.Plan> plans = CompareCommand.plans(quick);
            List<CompareCommand.Plan> pgwire = plans.stream()
                    .filter(plan -> "pgwire".equals(plan.target().clientName()))
                    .toList();
            assertEquals(1, pgwire.size(), "quick " + quick + ": " + pgwire);
            CompareCommand.Plan row = pgwire.get(0);
            assertEquals("gargamel-pgwire-psi-r1-w1-t10", row.label());
            assertTrue(
                    plans.stream()
                            .anyMatch(plan -> plan.label().equals("gargamel-psi-r1-w1-t10")
                                    && "library".equals(plan.target().clientName())),
                    "the library row beside it");
        }
        assertEquals(17, CompareCommand.plans(true).size());
    }

    /**
     * compare --sites: a single site for reference, then one scheduler, optimistic, pessimistic, abort-free and owned
     * sites, each with the warehouses partitioned and shared; --site-delay only with it.
     */
    @Test
    void compareSitesServesTwoSitesEachWay() {
        List<CompareCommand.Plan> plans = CompareCommand.sitePlans(50, RunTarget.Gargamel.DEFAULT_TPCC_RULES);
        assertEquals(
                List.of(
                        "gargamel-psi-r2-w2-t10",
                        "sites-one-scheduler-partitioned",
                        "sites-optimistic-partitioned",
                        "sites-pessimistic-partitioned",
                        "sites-abort-free-partitioned",
                        "sites-owned-partitioned",
                        "sites-owned-site-ack-partitioned",
                        "sites-one-scheduler-shared",
                        "sites-optimistic-shared",
                        "sites-pessimistic-shared",
                        "sites-abort-free-shared",
                        "sites-owned-shared",
                        "sites-owned-site-ack-shared"),
                plans.stream().map(CompareCommand.Plan::label).toList());
        for (CompareCommand.Plan plan : plans) {
            assertEquals(2, plan.replicas(), plan.label());
            SitesPlan sites = ((RunTarget.Gargamel) plan.target()).sites();
            assertTrue(sites == null || sites.delayMillis() == 50, plan.label());
        }
        assertUsageError(CommandRunner.run("compare", "--site-delay", "20ms"), "--site-delay is for --sites");
        assertUsageError(
                CommandRunner.run("compare", "--sites", "--site-delay", "11s"),
                "--site-delay must be between 0 and 10s");
        assertUsageError(
                CommandRunner.run("chaos", "--sites", "2", "--agreement", "one-scheduler", "--kinds", "scheduler"),
                "chaos --sites needs an agreement among the sites' schedulers");
        assertUsageError(
                CommandRunner.run(
                        "chaos",
                        "--sites",
                        "2",
                        "--agreement",
                        "owned",
                        "--ack",
                        "site",
                        "--replicas",
                        "2",
                        "--kinds",
                        "node"),
                "chaos with --ack site kills a node of a site's own write-set log: it needs --replicas 3 per site");
        assertUsageError(
                CommandRunner.run(
                        "chaos", "--sites", "2", "--replicas", "2", "--agreement", "owned", "--kinds", "site"),
                "option --kinds: site faults need --sites --agreement owned --ack site");
        assertUsageError(
                CommandRunner.run(
                        "chaos", "--sites", "2", "--replicas", "3", "--agreement", "owned", "--kinds", "partition"),
                "option --kinds: partition faults are for a single site");
        assertUsageError(
                CommandRunner.run(
                        "chaos",
                        "--jdbc-url",
                        "jdbc:postgresql://a/x",
                        "--jdbc-url",
                        "jdbc:postgresql://b/x",
                        "--jdbc-url",
                        "jdbc:postgresql://c/x",
                        "--kinds",
                        "partition"),
                "option --kinds: partition faults need embedded servers");
        assertUsageError(
                CommandRunner.run("soak", "--spare", "node-4"), "option --spare: no node node-4 in this cluster");
        assertUsageError(
                CommandRunner.run("soak", "--spare", "node-1,node-2"), "option --spare: at least two nodes must stay");
        CommandLine soak = new CommandExecution(context).commandLine(new SoakCommand(context));
        soak.parseArgs("--spare", "node-1");
        SoakCommand spared = (SoakCommand) soak.getCommand();
        assertEquals(List.of("node-1"), spared.faults(spared.request()).spared());
    }

    /** serve's options, checked before anything starts: what contradicts what, and the defaults. */
    @Test
    void serveChecksItsOptionsBeforeStartingAnything() {
        CommandLine line = new CommandExecution(context).commandLine(new ServeCommand(context));
        line.parseArgs("--replicas", "2", "--trust", "--port", "0");
        ServeCommand.Request request = ((ServeCommand) line.getCommand()).request();
        assertEquals(2, request.replicas());
        assertTrue(request.embedded());
        assertTrue(request.frontend().trust());
        assertEquals(
                "postgresql://gargamel@127.0.0.1:6543/gargamel",
                request.frontend().uri(6543, true));
        CommandLine generated = new CommandExecution(context).commandLine(new ServeCommand(context));
        generated.parseArgs("--user", "app user");
        ServeCommand.Request withPassword = ((ServeCommand) generated.getCommand()).request();
        assertEquals(5433, withPassword.frontend().port());
        assertTrue(
                withPassword
                        .frontend()
                        .uri(5433, true)
                        .matches("postgresql://app%20user:[A-Za-z0-9]{20}@127.0.0.1:5433/gargamel"),
                withPassword.frontend().uri(5433, true));
        assertUsageError(CommandRunner.run("serve", "--rules", "x.yaml"), "--rules is for --jdbc-url");
        assertUsageError(CommandRunner.run("serve", "--trust", "--password-file", "p"), "contradicts --password-file");
        assertUsageError(CommandRunner.run("serve", "--password-file", "/nonexistent/p"), "cannot be read");
        assertUsageError(CommandRunner.run("serve", "--port", "70000"), "--port");
        assertUsageError(CommandRunner.run("serve", "--isolation", "ser"), "--isolation");
    }

    private static void assertUsageError(CommandRunner result, String expected) {
        assertEquals(2, result.exitCode(), result.toString());
        assertTrue(result.errorLine().startsWith("gargamel: error: "), result.toString());
        assertTrue(result.errorLine().contains(expected), "expected '" + expected + "' in: " + result.errorLine());
        assertEquals(1, result.err().strip().split("\n").length, "one line: " + result.err());
        assertEquals("", result.out(), "nothing on standard output for rejected input");
    }
}
