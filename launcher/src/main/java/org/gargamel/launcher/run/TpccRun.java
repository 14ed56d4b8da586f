package org.gargamel.launcher.run;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.gargamel.common.stats.LatencyHistogram;
import org.gargamel.launcher.chaos.Fault;
import org.gargamel.launcher.chaos.FaultInjector;
import org.gargamel.launcher.chaos.FaultPlan;
import org.gargamel.launcher.cluster.ClusterNetwork;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.ClusterStatistics;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.cluster.NetworkNamespaces;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.launcher.cluster.SitesTopology;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.check.NewOrderLedger;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunCpu;
import org.gargamel.tpcc.result.RunDescription;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.result.RunSummary;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.terminal.RunSettings;
import org.gargamel.tpcc.terminal.TerminalEmulator;

/**
 * One TPC-C run, the same for every target ({@link RunConnection} holds the difference): start or check the
 * PostgreSQL servers, load them or accept their identical loads, open the target, drive the terminals (Ctrl-C stops
 * them and what the run started), print the summary, check the consistency conditions on every database and compare
 * the databases table by table, write {@code result.json} (and {@code nodes.json} when there are nodes). Exit code 0
 * when the checks pass and no call failed, 1 otherwise, 130 when interrupted (the partial run is not checked).
 */
public final class TpccRun {
    private final RunRequest request;
    private final PrintStream out;
    private final PrintStream err;
    /** A chaos run's faults, or null. */
    private FaultPlan faults;
    /** Told when the measurement interval begins and ends. */
    private MeasurementObserver observer = MeasurementObserver.NONE;
    /** How often a long run samples its processes' resources; null: not sampled. */
    private java.time.Duration sampleEvery;

    /** {@code out}: the summary, the checks and the result file's path; {@code err}: progress and status lines. */
    public TpccRun(RunRequest request, PrintStream out, PrintStream err) {
        this.request = request;
        this.out = out;
        this.err = err;
    }

    /** Injects {@code plan}'s faults into the cluster this run starts while the terminals run (a chaos run). */
    public TpccRun withFaults(FaultPlan plan) {
        this.faults = plan;
        return this;
    }

    /**
     * Samples every process's retained heap, threads and open files, each node's data directory and the throughput
     * every {@code every} while the terminals run, and writes {@code resources.json} and {@code resources.svg} beside
     * result.json (a long run: {@code soak}). Only for a cluster this run starts.
     */
    public TpccRun withResourceSampling(java.time.Duration every) {
        this.sampleEvery = every;
        return this;
    }

    /** Tells {@code watcher} when the measurement interval begins and ends ({@link MeasurementObserver}). */
    public TpccRun observedBy(MeasurementObserver watcher) {
        this.observer = watcher;
        return this;
    }

    public int execute() {
        boolean partitions = faults != null && faults.kinds().contains(FaultPlan.Kind.PARTITION);
        // Partitions: each node in a network namespace of its own, the servers reachable from them. Closed last.
        try (NetworkNamespaces namespaces = partitions ? namespaces(request.replicas()) : null;
                PostgresCluster databases =
                        TpccDatabases.start(request, namespaces == null ? null : namespaces.cidr(), err)) {
            ClusterNetwork network = namespaces == null
                    ? ClusterNetwork.LOOPBACK
                    : new ClusterNetwork.Namespaced(namespaces, ClusterPlan.nodeNames(request.replicas()));
            List<String> urls = databases.jdbcUrls();
            LoadInfo load = TpccDatabases.prepareReplicas(
                    urls,
                    request.warehouses(),
                    request.loadSeed(),
                    request.freshCopies() || databases.copiesOfOneSnapshot(),
                    err);
            NURandConstants runConstants =
                    NURandConstants.forRun(load.loadConstants(), new SplittableRandom(request.seed()));
            // The machine's time zone: the calls' timestamps are the terminals' current local date and time (TPC-C's
            // "current system date and time"), and result.json's startedAt is compared with the user's clock.
            Clock clock = Clock.system(ZoneId.systemDefault());
            RunSettings settings = new RunSettings(
                    request.warehouses(),
                    request.terminals(),
                    request.warmup(),
                    request.duration(),
                    request.rate(),
                    request.keying(),
                    request.seed(),
                    runConstants,
                    clock);
            String startedAt = LocalDateTime.now(clock).toString();
            AtomicBoolean interrupted = new AtomicBoolean();
            // A chaos run that kills the scheduler starts a second one, standing by; a site's is started again instead.
            boolean multiSite = request.target() instanceof RunTarget.Gargamel through && through.sites() != null;
            int schedulers =
                    faults != null && faults.kinds().stream().anyMatch(FaultPlan.Kind::killsAScheduler) && !multiSite
                            ? 2
                            : 1;
            try (RunConnection connection = RunConnection.open(request, urls, schedulers, network, err)) {
                java.util.concurrent.atomic.AtomicLong answered = new java.util.concurrent.atomic.AtomicLong();
                TerminalEmulator emulator = new TerminalEmulator(
                        settings,
                        terminal -> sampleEvery == null
                                ? connection.executor(terminal)
                                : counting(connection.executor(terminal), answered));
                connection.onFailure(emulator::stop);
                Thread stopOnInterrupt = interruptHook(interrupted, emulator, connection);
                Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
                RunStatistics statistics;
                Optional<ClusterStatistics> nodes;
                long nextOrderIdsBefore;
                List<Fault> injected = null;
                List<Long> unshippedAtSiteKills = List.of();
                RunCpu cpu = null;
                org.gargamel.launcher.soak.ResourceReport resources = null;
                try {
                    err.printf(
                            "running TPC-C %s %d warehouse(s), %s, %s%n",
                            connection.description(),
                            request.warehouses(),
                            request.rate() == null
                                    ? request.terminals() + " terminal(s)"
                                    : request.rate() + " calls/s over " + request.terminals() + " connection(s)",
                            request.interval());
                    nextOrderIdsBefore = NewOrderLedger.nextOrderIds(urls.get(0));
                    FaultInjector injector = faults == null ? null : startFaults(connection, databases);
                    org.gargamel.launcher.soak.ResourceSampler sampler = sampleResources(connection, answered);
                    ProcessCpuMeter meter = cpuMeter(connection, databases);
                    AtomicReference<ProcessCpuMeter.Reading> measurementStart = new AtomicReference<>();
                    AtomicBoolean observed = new AtomicBoolean();
                    emulator.atMeasurementStart(() -> {
                        if (meter != null) {
                            measurementStart.set(meter.read());
                        }
                        connection.siteLatencies().ifPresent(SiteLatencies::reset);
                        observer.started();
                        observed.set(true);
                    });
                    try {
                        statistics = emulator.run();
                        if (meter != null && measurementStart.get() != null) {
                            cpu = ProcessCpuMeter.between(measurementStart.get(), meter.read(), statistics.finished());
                        }
                        if (observed.get() && !interrupted.get()) {
                            observer.ended(statistics);
                        }
                    } finally {
                        try {
                            if (injector != null) {
                                injector.stop(); // a node killed last is back before the checks
                                injected = injector.faults();
                                unshippedAtSiteKills = injector.unshippedAtKills();
                            }
                        } finally {
                            if (sampler != null) {
                                sampler.close();
                                resources = new org.gargamel.launcher.soak.ResourceReport(sampler.samples());
                            }
                        }
                    }
                    nodes = connection.finish(interrupted.get());
                } finally {
                    removeHook(stopOnInterrupt);
                }
                RunDescription description = new RunDescription(
                        request.target().modeName(),
                        request.target().isolationName(),
                        urls.size(),
                        request.warehouses(),
                        request.terminals(),
                        request.rate(),
                        request.warmup(),
                        request.seed(),
                        startedAt,
                        request.target().clientName(),
                        request.target().tpccRulesName());
                RunResult measured = RunResult.of(description, statistics, emulator.measuredSeconds());
                RunResult counted = nodes.map(
                                byNodes -> measured.withServerCounters(byNodes.conflictAborts(), byNodes.retries())
                                        .withUnsoundWrites(byNodes.sum("unsoundWrites")))
                        .orElse(measured);
                RunResult result = (injected == null ? counted : counted.withFaults(injected)).withCpu(cpu);
                if (request.target() instanceof RunTarget.Gargamel through && through.sites() != null) {
                    result = result.withSites(siteFigures(
                            through.sites(),
                            nodes.orElseThrow(),
                            connection.siteLatencies().orElseThrow(),
                            connection
                                    .localCluster()
                                    .map(LocalGargamelCluster::shippingDrain)
                                    .orElse(null),
                            unshippedAtSiteKills,
                            connection
                                    .localCluster()
                                    .map(LocalGargamelCluster::schedulerStatistics)
                                    .orElse(new ClusterStatistics(List.of()))));
                }
                out.print(RunSummary.render(result));
                if (result.sites() instanceof Map<?, ?> sites) {
                    out.print(renderSites(sites));
                }
                if (injected != null) {
                    out.printf("faults injected: %d%n", injected.size());
                    FaultInjector.describe(injected).forEach(out::println);
                }
                nodes.ifPresent(byNodes -> out.print(byNodes.render()));
                if (resources != null) {
                    java.nio.file.Files.createDirectories(request.out());
                    resources.write(request.out());
                    out.println("resources (heap retained after a full GC, 10 min into each process's longest life"
                            + " against its end; " + request.out().resolve("resources.svg") + "):");
                    resources.summary().forEach(out::println);
                }
                out.flush();
                if (interrupted.get()) {
                    return reportInterrupted(err);
                }
                boolean faultUnrecovered =
                        injected != null && injected.stream().anyMatch(fault -> fault.error() != null);
                return check(urls, result, nodes, connection, emulator.ledger(), nextOrderIdsBefore, faultUnrecovered);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        } catch (IOException e) {
            throw new CommandFailedException(
                    "cannot write the results under " + request.out() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A multi-site run's figures for result.json (docs/multisite.md): the sites and their agreement; what the nodes
     * counted of it (a collided call is cancelled before it started or killed after, so collisions = cancels + kills;
     * a stall is a provisional call that ran to its end before its agreement came, its mean length the agreement wait
     * that the call could not overlap); and the terminals' latency by site.
     */
    static Map<String, Object> siteFigures(
            SitesPlan plan,
            ClusterStatistics nodes,
            SiteLatencies latencies,
            java.time.Duration shippingDrain,
            List<Long> unshippedAtSiteKills,
            ClusterStatistics schedulers) {
        long cancels = nodes.sum("cancelled");
        long kills = nodes.sum("killed");
        long stalls = nodes.sum("stalled");
        double stallMillis = 0;
        for (com.fasterxml.jackson.databind.JsonNode node : nodes.nodes()) {
            stallMillis +=
                    node.path("stallMs").asDouble() * node.path("stalled").asLong();
        }
        Map<String, Object> figures = new java.util.LinkedHashMap<>();
        figures.put("sites", plan.names());
        figures.put("replicasPerSite", plan.replicasPerSite());
        figures.put("siteDelayMs", plan.delayMillis());
        figures.put("agreement", plan.agreement());
        figures.put("acknowledgement", plan.acknowledgement().spelling());
        if (shippingDrain != null) {
            // A log per site: how long after the schedulers were quiet every replica had what the sites shipped.
            figures.put("shippingDrainMs", shippingDrain.toMillis());
        }
        if (!unshippedAtSiteKills.isEmpty()) {
            // chaos --kinds site: at each site kill, the New-Orders it had committed that the other sites lacked.
            figures.put("unshippedNewOrdersAtSiteKills", unshippedAtSiteKills);
        }
        figures.put("warehousesPerSite", plan.warehousesPerSite());
        figures.put("provisionalCalls", nodes.sum("provisionalCalls"));
        figures.put("collisions", cancels + kills);
        figures.put("cancels", cancels);
        figures.put("kills", kills);
        figures.put("stalls", stalls);
        LatencyHistogram agreementWait = new LatencyHistogram();
        for (com.fasterxml.jackson.databind.JsonNode node : nodes.nodes()) {
            agreementWait.add(agreementWaitOf(node));
        }
        Map<String, Object> wait = new java.util.LinkedHashMap<>();
        wait.put("p50", Math.round(agreementWait.percentileMillis(50) * 1000) / 1000.0);
        wait.put("p99", Math.round(agreementWait.percentileMillis(99) * 1000) / 1000.0);
        wait.put("meanOfStalls", stalls == 0 ? 0.0 : Math.round(stallMillis / stalls * 1000) / 1000.0);
        figures.put("agreementWaitMs", wait);
        // Site-owned classes: the calls spanning sites (run behind a barrier) and their mean wait behind it.
        long barriers = nodes.sum("barriers");
        double barrierMillis = 0;
        for (com.fasterxml.jackson.databind.JsonNode node : nodes.nodes()) {
            barrierMillis +=
                    node.path("barrierMs").asDouble() * node.path("barriers").asLong();
        }
        figures.put("spanningCalls", barriers);
        figures.put("barrierMs", barriers == 0 ? 0.0 : Math.round(barrierMillis / barriers * 1000) / 1000.0);
        if (SitesPlan.ABORT_FREE.equals(plan.agreement())) {
            // Every site resolves every dependency cycle: the most any one site's scheduler counted (a scheduler
            // started again counts only from then on).
            figures.put("dependencyCycles", maxOf(schedulers, "groups"));
            figures.put("callsInCycles", maxOf(schedulers, "grouped"));
            figures.put("largestCycle", maxOf(schedulers, "largestGroup"));
        }
        figures.put("latencyMsBySite", latencies.summary());
        return figures;
    }

    /** The largest value of the site schedulers' agreement counter {@code counter}. */
    private static long maxOf(ClusterStatistics schedulers, String counter) {
        long most = 0;
        for (com.fasterxml.jackson.databind.JsonNode scheduler : schedulers.nodes()) {
            most = Math.max(most, scheduler.path("agreement").path(counter).asLong(0));
        }
        return most;
    }

    /** A node's agreement waits as its statistics file has them (none from a node that wrote none). */
    private static LatencyHistogram agreementWaitOf(com.fasterxml.jackson.databind.JsonNode node) {
        com.fasterxml.jackson.databind.JsonNode written = node.path("agreementWait");
        Map<Integer, Long> buckets = new java.util.HashMap<>();
        for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> bucket :
                written.path("buckets").properties()) {
            buckets.put(Integer.parseInt(bucket.getKey()), bucket.getValue().asLong());
        }
        return LatencyHistogram.of(buckets, written.path("maxMicros").asLong());
    }

    /** The summary's lines for a multi-site run. */
    static String renderSites(Map<?, ?> sites) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                "sites: %s, %s ms apart, %s agreement, warehouses %s%n",
                sites.get("sites"), sites.get("siteDelayMs"), sites.get("agreement"), sites.get("warehousesPerSite")));
        if (SitesTopology.OneScheduler.NAME.equals(sites.get("agreement"))) {
            text.append("  one scheduler at site-1 serves every site; the other sites' clients call it across the"
                    + " delay\n");
        } else if (SitesPlan.OWNED.equals(sites.get("agreement"))) {
            text.append(String.format(
                    "  each warehouse owned by one site: %s call(s) spanning sites, placed by their owners through the"
                            + " schedule log and run behind a barrier (mean %s ms); the others never waited for the"
                            + " log%n",
                    sites.get("spanningCalls"), sites.get("barrierMs")));
        } else if (SitesPlan.ABORT_FREE.equals(sites.get("agreement"))) {
            text.append(String.format(
                    "  abort-free: every site placed every call as it came; %s dependency cycle(s) (%s calls, the"
                            + " largest %s) run in id order; %s calls killed or cancelled%n",
                    sites.get("dependencyCycles"),
                    sites.get("callsInCycles"),
                    sites.get("largestCycle"),
                    sites.get("collisions")));
        } else {
            text.append(String.format(
                    "  %s provisional calls, %s collisions (%s cancelled, %s killed), %s stalls (mean %s ms); agreement"
                            + " wait after the run p50 %s ms, p99 %s ms%n",
                    sites.get("provisionalCalls"),
                    sites.get("collisions"),
                    sites.get("cancels"),
                    sites.get("kills"),
                    sites.get("stalls"),
                    ((Map<?, ?>) sites.get("agreementWaitMs")).get("meanOfStalls"),
                    ((Map<?, ?>) sites.get("agreementWaitMs")).get("p50"),
                    ((Map<?, ?>) sites.get("agreementWaitMs")).get("p99")));
        }
        ((Map<?, ?>) sites.get("latencyMsBySite")).forEach((site, figures) -> {
            Map<?, ?> latency = (Map<?, ?>) figures;
            text.append(String.format(
                    "  %-8s p50 %8.1f ms  p99 %8.1f ms  (%.0f calls)%n",
                    site, (Double) latency.get("p50"), (Double) latency.get("p99"), (Double) latency.get("calls")));
        });
        return text.toString();
    }

    /** The resource sampler of a long run, started; null if not asked for or the cluster is not started here. */
    private org.gargamel.launcher.soak.ResourceSampler sampleResources(
            RunConnection connection, java.util.concurrent.atomic.AtomicLong answered) {
        if (sampleEvery == null) {
            return null;
        }
        return connection
                .localCluster()
                .map(cluster -> new org.gargamel.launcher.soak.ResourceSampler(
                                () -> {
                                    Map<String, Long> byName = new java.util.LinkedHashMap<>();
                                    byName.put("client", ProcessHandle.current().pid());
                                    byName.putAll(cluster.processIdsByName());
                                    return byName;
                                },
                                cluster.nodeDataDirectories(),
                                answered::get,
                                sampleEvery)
                        .start())
                .orElse(null);
    }

    /** {@code executor}, counting the calls it has answered into {@code answered}. */
    private static org.gargamel.tpcc.workload.CallExecutor counting(
            org.gargamel.tpcc.workload.CallExecutor executor, java.util.concurrent.atomic.AtomicLong answered) {
        return new org.gargamel.tpcc.workload.CallExecutor() {
            @Override
            public org.gargamel.tpcc.workload.ExecutionOutcome execute(org.gargamel.common.call.ProcedureCall call) {
                org.gargamel.tpcc.workload.ExecutionOutcome outcome = executor.execute(call);
                answered.incrementAndGet();
                return outcome;
            }

            @Override
            public void close() {
                executor.close();
            }
        };
    }

    /**
     * What measures the run's CPU by role, on Linux; null in a chaos run, whose restarted processes would make the
     * readings meaningless.
     */
    private ProcessCpuMeter cpuMeter(RunConnection connection, PostgresCluster databases) {
        if (faults != null || !ProcessCpuMeter.available()) {
            return null;
        }
        Map<String, List<Long>> processes = connection
                .localCluster()
                .map(LocalGargamelCluster::processIdsByRole)
                .orElse(Map.of());
        List<Long> postmasters = databases.postmasterPids();
        return new ProcessCpuMeter(processes, postmasters.isEmpty() ? Map.of() : Map.of("postgres", postmasters));
    }

    /** The checks after the run, result.json (and nodes.json), and the exit code. */
    private int check(
            List<String> urls,
            RunResult measured,
            Optional<ClusterStatistics> nodes,
            RunConnection connection,
            NewOrderLedger ledger,
            long nextOrderIdsBefore,
            boolean faultUnrecovered)
            throws IOException {
        err.println(connection.checkingMessage());
        CheckReport check = new CheckRunner().run(urls);
        NewOrderLedger.Report acknowledged = ledger.check(urls, nextOrderIdsBefore);
        Map<String, Object> checks = check.toResultMap();
        RunResult result = measured.withChecks(checks.get("consistency"), checks.get("convergence"))
                .withLedger(acknowledged.acknowledged(), acknowledged.missing(), acknowledged.duplicates());
        Path resultFile = request.out().resolve("result.json");
        result.write(resultFile);
        if (nodes.isPresent()) {
            nodes.get().write(request.out().resolve("nodes.json"));
        }
        out.print(check.render());
        out.print(acknowledged.render());
        out.println("result: " + resultFile);
        if (!check.passed()) {
            err.println("gargamel: error: " + connection.checkFailedMessage());
            return ExitCodes.FAILED;
        }
        if (faultUnrecovered) {
            err.println("gargamel: error: a node killed by the chaos run did not come back (see the faults above)");
            return ExitCodes.FAILED;
        }
        if (!acknowledged.passed()) {
            err.println("gargamel: error: " + acknowledged.missing() + " acknowledged New-Order(s) missing from some "
                    + "replica, " + acknowledged.duplicates() + " order(s) created twice");
            return ExitCodes.FAILED;
        }
        if (result.errors() > 0) {
            err.println("gargamel: error: " + result.errors() + " call(s) failed unexpectedly; first: "
                    + result.firstError());
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /**
     * With a site killed: the New-Orders of the warehouses it owns that its replica holds and the other sites' replicas
     * lack (the fewest of any other replica): committed there and not yet shipped.
     */
    private static long unshippedNewOrders(LocalGargamelCluster cluster, List<String> urls, int site)
            throws java.sql.SQLException {
        SitesPlan plan = cluster.sites();
        List<Long> owned = plan.owners().get(plan.names().get(site));
        String count = "SELECT count(*) FROM orders WHERE o_w_id = ANY (?)";
        long atSite = -1;
        long elsewhere = Long.MAX_VALUE;
        for (int node = 0; node < urls.size(); node++) {
            try (java.sql.Connection connection = java.sql.DriverManager.getConnection(urls.get(node));
                    java.sql.PreparedStatement statement = connection.prepareStatement(count)) {
                statement.setArray(
                        1,
                        connection.createArrayOf(
                                "integer", owned.stream().map(Long::intValue).toArray()));
                try (java.sql.ResultSet row = statement.executeQuery()) {
                    row.next();
                    if (plan.siteOfNode(node) == site) {
                        atSite = Math.max(atSite, row.getLong(1));
                    } else {
                        elsewhere = Math.min(elsewhere, row.getLong(1));
                    }
                }
            }
        }
        return Math.max(0, atSite - elsewhere);
    }

    /** A network namespace per node, for partition faults; a clear error where this machine cannot make them. */
    private NetworkNamespaces namespaces(int nodes) {
        err.println("making a network namespace for each of the " + nodes + " nodes (partition faults) ...");
        try {
            return NetworkNamespaces.create(nodes);
        } catch (IOException e) {
            throw new CommandFailedException(
                    "partition faults need a network namespace per node: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted while making the network namespaces", e);
        }
    }

    /**
     * Ctrl-C during a run (the JVM is shutting down and embedded servers are being stopped by their own hook): says so
     * and returns the exit code.
     */
    static int reportInterrupted(PrintStream err) {
        err.println("gargamel: interrupted; the partial run above is not checked and no result.json is written");
        return ExitCodes.INTERRUPTED;
    }

    private FaultInjector startFaults(RunConnection connection, PostgresCluster databases) {
        LocalGargamelCluster cluster = connection
                .localCluster()
                .orElseThrow(() -> new CommandFailedException(
                        "faults can only be injected into a cluster this run starts (not with --scheduler or direct)"));
        FaultInjector.Databases servers = faults.kinds().contains(FaultPlan.Kind.POSTGRES)
                ? new FaultInjector.Databases() {
                    @Override
                    public long kill(int index) {
                        return databases.kill(index);
                    }

                    @Override
                    public void restart(int index) {
                        databases.restart(index);
                    }
                }
                : null;
        FaultInjector injector = new FaultInjector(cluster, servers, faults, err);
        if (faults.kinds().contains(FaultPlan.Kind.SITE)) {
            injector.countUnshippedWith(site -> unshippedNewOrders(cluster, databases.jdbcUrls(), site));
        }
        injector.start();
        return injector;
    }

    /**
     * The Ctrl-C hook: stops the terminals and what the run started, from the JVM's shutdown thread while the run still
     * holds {@code connection} (its close is idempotent).
     */
    private static Thread interruptHook(
            AtomicBoolean interrupted, TerminalEmulator emulator, RunConnection connection) {
        return new Thread(
                () -> {
                    interrupted.set(true);
                    emulator.stop();
                    connection.close();
                },
                "tpcc-run-interrupt");
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already (Ctrl-C): the hook has run.
        }
    }
}
