package org.gargamel.launcher.command;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.cluster.Acknowledgement;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.launcher.cluster.SitesTopology;
import org.gargamel.launcher.compare.CompareReport;
import org.gargamel.launcher.compare.CompareRun;
import org.gargamel.launcher.compare.DatabaseCopies;
import org.gargamel.launcher.compare.MachineDescription;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.workload.DirectIsolation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel compare}: the same TPC-C workload through {@code direct}, {@code gargamel}, {@code round-robin}
 * and {@code centralized}, closed loop at 1 and 4 warehouses with 1 and 3 replicas, plus an open-loop sweep of the
 * incoming rate; writes {@code compare.json} and {@code compare.html}. Every run starts from a fresh copy of the
 * same loaded database, so runs do not see each other's orders.
 *
 * <p>{@code compare --sites}: two sites {@code --site-delay} apart served each way (docs/multisite.md): a single
 * site for reference, one scheduler serving both sites, and a scheduler per site agreeing optimistically or
 * pessimistically, with the warehouses partitioned by site and shared.
 */
@Command(
        name = "compare",
        description = "the same workload through every mode, side by side (compare.json, compare.html)",
        customSynopsis =
                "scripts/gargamel compare [--quick] [--sites [--site-delay D]] [--warmup D] [--duration D] [--out DIR]")
public final class CompareCommand implements Callable<Integer> {
    private static final long LOAD_SEED = 1;
    private static final long RUN_SEED = 42;
    private static final int REPLICAS = 3;
    private static final int MAX_RETRIES = 10;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--quick",
            description = "17 runs of 8 s (the baselines with 3 replicas only, Gargamel through the front end at 1 "
                    + "replica and 1 warehouse) and a short rate sweep: about 10 minutes on 2 cores")
    private boolean quick;

    @Option(
            names = "--sites",
            description = "the multi-site comparison instead: 7 runs of 2 sites (a single site for reference; one "
                    + "scheduler for both sites; a scheduler per site, optimistic and pessimistic; warehouses "
                    + "partitioned by site and shared), 2 warehouses, 10 terminals")
    private boolean sites;

    @Option(
            names = "--site-delay",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "with --sites: the one-way delay between the sites (default 50ms)")
    private Duration siteDelay;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "length of each run (default 60s, 8s with --quick)")
    private Duration duration;

    @Option(
            names = "--warmup",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "run each run this long first, unmeasured (default: none)")
    private Duration warmup;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "three existing servers to use instead of embedded "
                    + "ones (databases are created and dropped on them; the user needs CREATEDB); repeatable")
    private List<String> servers = new ArrayList<>();

    @Option(
            names = "--tpcc-rules",
            paramLabel = "RULES",
            converter = RunOptions.TpccRulesConverter.class,
            description = "the classifier rules of the runs through Gargamel: table61 (default: the thesis's, Table "
                    + "6.1) or commutative (increments do not conflict)")
    private TpccRules.Variant tpccRules;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where compare.json, compare.html and each run's result go (default out/compare-<time>)")
    private Path out;

    private final PrintStream stdout;
    private final PrintStream err;

    CompareCommand(CommandContext context) {
        this.stdout = context.out();
        this.err = context.err();
    }

    /** One run of the comparison, before it is executed. */
    record Plan(RunTarget target, int replicas, int warehouses, int terminals, Double rate) {
        String label() {
            if (target instanceof RunTarget.Gargamel through && through.sites() != null) {
                return "sites-" + through.sites().agreement()
                        + (through.sites().acknowledgement() == Acknowledgement.SITE ? "-site-ack" : "") + "-"
                        + through.sites().warehousesPerSite();
            }
            return String.format(
                    Locale.ROOT,
                    "%s%s-%s-r%d-w%d-%s",
                    target.modeName(),
                    target.clientName() == null || target.clientName().equals("library")
                            ? ""
                            : "-" + target.clientName(),
                    target.isolationName(),
                    replicas,
                    warehouses,
                    rate == null ? "t" + terminals : "rate" + rate.intValue());
        }
    }

    @Override
    public Integer call() {
        Duration runDuration = duration != null ? duration : Duration.ofSeconds(quick ? 8 : 60);
        Duration runWarmup = warmup != null ? warmup : Duration.ZERO;
        if (!servers.isEmpty() && servers.size() != REPLICAS) {
            throw Usage.error(
                    spec, "compare needs exactly " + REPLICAS + " --jdbc-url (one per replica), got " + servers.size());
        }
        TpccCommand.requireDistinct(spec, servers);
        // Named after the user's wall-clock time: the machine's time zone.
        Path directory = out != null
                ? out
                : Path.of("out/compare-"
                        + LocalDateTime.now(ZoneId.systemDefault())
                                .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw Usage.error(spec, "--out " + directory + " exists and is not a directory");
        }
        if (siteDelay != null && !sites) {
            throw Usage.error(spec, "--site-delay is for --sites");
        }
        int delayMillis = RunOptions.siteDelayMillis(spec, siteDelay == null ? Duration.ofMillis(50) : siteDelay);
        List<Plan> plans = sites
                ? sitePlans(delayMillis, RunTarget.Gargamel.tpccRulesOrDefault(tpccRules))
                : plans(quick, RunTarget.Gargamel.tpccRulesOrDefault(tpccRules));
        String machine = MachineDescription.describe();
        err.printf(
                "compare: %d runs of %s each on %s%n",
                plans.size(), RunRequest.interval(runWarmup, runDuration), machine);
        List<CompareRun> results = new ArrayList<>();
        try (PostgresCluster cluster =
                servers.isEmpty() ? PostgresCluster.embedded(REPLICAS) : PostgresCluster.external(servers)) {
            DatabaseCopies copies = new DatabaseCopies(cluster.jdbcUrls(), err);
            int loadedWarehouses = 0;
            for (int i = 0; i < plans.size(); i++) {
                Plan plan = plans.get(i);
                if (plan.warehouses() != loadedWarehouses) {
                    err.printf("loading the %d-warehouse template into %d servers ...%n", plan.warehouses(), REPLICAS);
                    copies.loadTemplates(plan.warehouses(), LOAD_SEED);
                    loadedWarehouses = plan.warehouses();
                }
                results.add(runOne(i + 1, plans.size(), plan, runWarmup, runDuration, copies, directory));
                new CompareReport(results, machine).write(directory);
            }
        } catch (SQLException e) {
            throw new CommandFailedException("cannot prepare the databases: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CommandFailedException("cannot write under " + directory + ": " + e.getMessage(), e);
        }
        CompareReport report = new CompareReport(results, machine);
        stdout.print(report.table());
        stdout.println("compare: " + directory.resolve("compare.json") + " and " + directory.resolve("compare.html"));
        boolean allGood = results.stream().allMatch(run -> run.consistent() && run.identical() && run.errors() == 0);
        if (!allGood) {
            err.println("gargamel: error: a run was inconsistent, diverged or had errors (see the table)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /**
     * The comparison's runs, ordered by warehouse count so each template is loaded once. Quick: Gargamel with 1 and 3
     * replicas, the baselines with 3 (each run costs about 25 s of setting up and checking besides its duration).
     */
    static List<Plan> plans(boolean quick) {
        return plans(quick, RunTarget.Gargamel.DEFAULT_TPCC_RULES);
    }

    static List<Plan> plans(boolean quick, TpccRules.Variant rules) {
        List<Plan> plans = new ArrayList<>();
        for (int warehouses : new int[] {1, 4}) {
            int terminals = 10 * warehouses;
            plans.add(new Plan(direct(), 1, warehouses, terminals, null));
            for (Mode mode : Mode.values()) {
                for (int replicas : new int[] {1, REPLICAS}) {
                    if (!quick || mode == Mode.GARGAMEL || replicas == REPLICAS) {
                        plans.add(new Plan(through(mode, Isolation.PSI, rules), replicas, warehouses, terminals, null));
                    }
                }
            }
            if (warehouses == 1) {
                // The front end's cost: the library row above, called through pgjdbc and a front end instead.
                plans.add(new Plan(
                        new RunTarget.Gargamel(
                                Mode.GARGAMEL,
                                Isolation.PSI,
                                RunOptions.DEFAULT_WORKERS,
                                List.of(),
                                RunOptions.DEFAULT_BIND,
                                RunTarget.Client.PGWIRE,
                                rules),
                        1,
                        warehouses,
                        terminals,
                        null));
            }
            if (!quick) {
                plans.add(new Plan(through(Mode.GARGAMEL, Isolation.SI, rules), REPLICAS, warehouses, terminals, null));
            }
        }
        double[] rates = quick ? new double[] {150, 600} : new double[] {100, 200, 400, 800, 1200};
        for (double rate : rates) {
            plans.add(new Plan(direct(), 1, 1, 20, rate));
            plans.add(new Plan(through(Mode.GARGAMEL, Isolation.PSI, rules), REPLICAS, 1, 20, rate));
            plans.add(new Plan(through(Mode.ROUND_ROBIN, Isolation.PSI, rules), REPLICAS, 1, 20, rate));
        }
        plans.sort((a, b) -> Integer.compare(a.warehouses(), b.warehouses()));
        return plans;
    }

    /**
     * The multi-site comparison (docs/multisite.md), 2 warehouses and 10 terminals each: a single site with 2
     * replicas, the reference the latency target names; then, with the warehouses partitioned by site and
     * shared by both: one scheduler at site-1 with both replicas (site-2's terminals call it across the delay), and a
     * scheduler and a replica per site agreeing optimistically, pessimistically, abort-free, and with site-owned
     * classes (with one write-set log, and with one per site).
     */
    static List<Plan> sitePlans(int delayMillis, TpccRules.Variant rules) {
        int warehouses = 2;
        int terminals = 10;
        List<Plan> plans = new ArrayList<>();
        plans.add(new Plan(through(Mode.GARGAMEL, Isolation.PSI, rules), 2, warehouses, terminals, null));
        for (boolean partitioned : new boolean[] {true, false}) {
            for (String agreement : List.of(
                    SitesTopology.OneScheduler.NAME,
                    "optimistic",
                    "pessimistic",
                    SitesPlan.ABORT_FREE,
                    SitesPlan.OWNED)) {
                SitesPlan sites = new SitesPlan(
                        2,
                        1,
                        delayMillis,
                        SitesTopology.of(agreement, Acknowledgement.ALL_SITES),
                        partitioned,
                        warehouses);
                plans.add(new Plan(acrossSites(sites, rules), 2, warehouses, terminals, null));
            }
            // Site-owned classes with a write-set log per site: acknowledged once the call's own site holds it.
            SitesPlan siteAck = new SitesPlan(
                    2,
                    1,
                    delayMillis,
                    new SitesTopology.Agreeing(SitesPlan.OWNED, Acknowledgement.SITE),
                    partitioned,
                    warehouses);
            plans.add(new Plan(acrossSites(siteAck, rules), 2, warehouses, terminals, null));
        }
        return plans;
    }

    private static RunTarget acrossSites(SitesPlan sites, TpccRules.Variant rules) {
        return new RunTarget.Gargamel(
                Mode.GARGAMEL,
                Isolation.PSI,
                RunOptions.DEFAULT_WORKERS,
                List.of(),
                RunOptions.DEFAULT_BIND,
                RunTarget.Client.LIBRARY,
                rules,
                1,
                org.gargamel.node.NodeConfig.DEFAULT_APPLY_GROUP,
                sites,
                ChildJit.QUICK_START);
    }

    private static RunTarget direct() {
        return new RunTarget.Direct(DirectIsolation.READ_COMMITTED, MAX_RETRIES);
    }

    private static RunTarget through(Mode mode, Isolation isolation, TpccRules.Variant rules) {
        return new RunTarget.Gargamel(
                mode,
                isolation,
                RunOptions.DEFAULT_WORKERS,
                List.of(),
                RunOptions.DEFAULT_BIND,
                RunTarget.Client.LIBRARY,
                rules);
    }

    private CompareRun runOne(
            int index, int total, Plan plan, Duration warmup, Duration duration, DatabaseCopies copies, Path directory)
            throws SQLException, IOException {
        List<String> urls = copies.copy(plan.warehouses(), plan.replicas());
        Path runDirectory =
                directory.resolve("runs").resolve(String.format(Locale.ROOT, "%02d-%s", index, plan.label()));
        Files.createDirectories(runDirectory);
        RunRequest request = new RunRequest(
                plan.target(),
                plan.replicas(),
                urls,
                PostgresBackend.EXTERNAL,
                plan.warehouses(),
                plan.terminals(),
                warmup,
                duration,
                plan.rate(),
                false,
                RUN_SEED,
                LOAD_SEED,
                runDirectory,
                true);
        err.printf(
                "[%d/%d] %-15s %-14s %d replica(s), %d wh, %s ... ",
                index,
                total,
                plan.label().startsWith("sites-")
                        ? plan.label()
                        : plan.target().modeName()
                                + (plan.target().clientName() == null
                                                || plan.target().clientName().equals("library")
                                        ? ""
                                        : " " + plan.target().clientName()),
                plan.target().isolationName(),
                plan.replicas(),
                plan.warehouses(),
                plan.rate() == null ? plan.terminals() + " terminals" : plan.rate() + " calls/s");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int code;
        try (PrintStream runOut = new PrintStream(log, true, StandardCharsets.UTF_8)) {
            try {
                code = new TpccRun(request, runOut, runOut).execute();
            } catch (RuntimeException e) {
                runOut.println("gargamel: error: " + e.getMessage());
                code = ExitCodes.FAILED;
            }
        }
        Files.write(runDirectory.resolve("run.log"), log.toByteArray());
        copies.drop(urls);
        Path resultFile = runDirectory.resolve("result.json");
        if (!Files.exists(resultFile)) {
            err.println("FAILED");
            throw new CommandFailedException(
                    "run " + plan.label() + " failed (exit " + code + "); see " + runDirectory.resolve("run.log"));
        }
        RunResult result = RunResult.read(resultFile);
        Map<String, Double> overall = result.latencyMs().get(RunResult.ALL_TYPES);
        @SuppressWarnings("unchecked")
        boolean consistent = result.consistency() instanceof Map<?, ?> map
                && Boolean.TRUE.equals(((Map<String, Object>) map).get("passed"));
        @SuppressWarnings("unchecked")
        boolean identical = result.convergence() instanceof Map<?, ?> map2
                && Boolean.TRUE.equals(((Map<String, Object>) map2).get("identical"));
        CompareRun run = CompareRun.of(
                result,
                overall,
                consistent,
                identical,
                directory.relativize(resultFile).toString());
        err.printf(
                Locale.ROOT,
                "tpmC %.0f, p99 %.2f ms, conflict aborts %d%s%n",
                run.tpmC(),
                overall.get("p99"),
                run.conflictAborts(),
                consistent && identical ? "" : "  (CHECK FAILED)");
        return run;
    }
}
