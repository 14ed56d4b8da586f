package org.gargamel.launcher.command;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.launcher.cluster.Acknowledgement;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.launcher.cluster.SitesTopology;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.server.Usage;
import org.gargamel.node.NodeConfig;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.workload.DirectIsolation;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * The options of a TPC-C run, shared by {@code tpcc run} and {@code demo} (whose defaults differ: the demo's command
 * provides its own). {@link #request} checks them together, before anything is started or written.
 */
final class RunOptions {
    static final int DEFAULT_REPLICAS = 3;
    static final int DEFAULT_WORKERS = 4;
    static final int DEFAULT_MAX_RETRIES = 10;
    static final String DEFAULT_BIND = "127.0.0.1";

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = ModeChoice.Converter.class,
            defaultValue = "gargamel",
            description = "gargamel, round-robin (with certification), centralized, or direct (no middleware)")
    private ModeChoice mode;

    @Mixin
    private ReplicaOptions replicaOptions;

    @Option(
            names = "--client",
            paramLabel = "CLIENT",
            description = "how the terminals call through Gargamel: library (default: the client library) or pgwire "
                    + "(pgjdbc through a PostgreSQL wire-protocol front end the run starts)")
    private String client;

    @Option(
            names = "--postgres",
            paramLabel = "BACKEND",
            converter = BackendConverter.class,
            description = "without --jdbc-url: embedded (default) or testcontainers (needs Docker)")
    private PostgresBackend postgres;

    @Option(
            names = "--warehouses",
            paramLabel = "W",
            defaultValue = "1",
            description = "number of warehouses (default ${DEFAULT-VALUE})")
    private int warehouses;

    @Option(
            names = "--terminals",
            paramLabel = "T",
            description = "closed-loop terminals, or open-loop connections with --rate (default 10 per warehouse)")
    private Integer terminals;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "60s",
            description = "measurement interval, e.g. 30s, 2m (default ${DEFAULT-VALUE})")
    private Duration duration;

    @Option(
            names = "--warmup",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "run this long first, unmeasured, e.g. 10s (default: none)")
    private Duration warmup;

    @Option(
            names = "--rate",
            paramLabel = "R",
            description = "open loop: R calls per second in total instead of closed-loop terminals")
    private Double rate;

    @Option(
            names = "--isolation",
            paramLabel = "LEVEL",
            description = "psi (default) or si through Gargamel; direct: "
                    + "read-committed (= psi), repeatable-read (= si) or serializable")
    private String isolation;

    @Option(
            names = "--scheduler",
            paramLabel = "HOST:PORT",
            description = "join a Gargamel cluster that already runs "
                    + "(give its replicas with --jdbc-url, for the load and the checks) instead of starting one here; "
                    + "repeat it for each scheduler (active or standing by): the client finds the group through any")
    private List<String> schedulers = new ArrayList<>();

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            description = "with --scheduler: the address this client listens on (default " + DEFAULT_BIND + ")")
    private String bind;

    @Option(
            names = "--workers",
            paramLabel = "K",
            description = "workers (connections running chains) per node (default " + DEFAULT_WORKERS + ")")
    private Integer workers;

    @Option(
            names = "--appliers",
            paramLabel = "K",
            description = "connections per node applying the other replicas' write-sets in parallel, row by row "
                    + "(default 1: one by one, in log order; docs/node.md, Parallel apply)")
    private Integer appliers;

    @Option(
            names = "--apply-group",
            paramLabel = "N",
            description = "at most N write-sets already delivered are applied in one transaction (default "
                    + NodeConfig.DEFAULT_APPLY_GROUP + "; 1: each in its own; docs/node.md, Apply groups)")
    private Integer applyGroup;

    @Option(
            names = "--tpcc-rules",
            paramLabel = "RULES",
            converter = TpccRulesConverter.class,
            description = "the kit's classifier rules: table61 (default: the thesis's, reproducing its Table 6.1) or "
                    + "commutative (increments do not conflict; docs/classifier.md)")
    private TpccRules.Variant tpccRules;

    @Option(
            names = "--sites",
            paramLabel = "S",
            description = "several sites on this machine, each a scheduler with --replicas nodes (default 1 per site) "
                    + "and its own terminals, agreeing through the schedule log (docs/multisite.md)")
    private Integer sites;

    @Option(
            names = "--site-delay",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "with --sites: the one-way delay between two sites' schedulers (default 0s; e.g. 50ms)")
    private Duration siteDelay;

    @Option(
            names = "--agreement",
            paramLabel = "A",
            description = "with --sites: optimistic (default: run at once, commit once placed), pessimistic (run "
                    + "once placed), owned (each warehouse's rows owned by one site: a call on its site's rows alone "
                    + "never waits for the schedule log), abort-free (every site places every call as it comes; a "
                    + "collision waits, never kills: Janus) or one-scheduler (for comparison: site-1's scheduler and "
                    + "every node serve every site, the others' clients calling across the delay)")
    private String agreement;

    @Option(
            names = "--ack",
            paramLabel = "K",
            description = "with --sites --agreement owned: all-sites (default: a call is acknowledged once a majority"
                    + " of every replica holds its write-set) or site (a write-set log per site: once a majority of"
                    + " its site's replicas do; each site's write-sets are shipped to the others, and what a whole"
                    + " site lost before shipping it is lost)")
    private String ack;

    @Option(
            names = "--warehouses-per-site",
            paramLabel = "P",
            description = "with --sites: partitioned (default: each warehouse's terminals at one site) or shared "
                    + "(every site has terminals on every warehouse)")
    private String warehousesPerSite;

    @Option(names = "--keying", description = "keying and think times of clause 5.2.5.7 (off for throughput runs)")
    private boolean keying;

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "seed of the terminals' random streams (default: from " + "the clock)")
    private Long seed;

    @Option(
            names = "--load-seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "seed of the load when the database is empty (default ${DEFAULT-VALUE})")
    private long loadSeed;

    @Option(
            names = "--max-retries",
            paramLabel = "N",
            description = "direct mode: retries after a serialization " + "failure or deadlock (default "
                    + DEFAULT_MAX_RETRIES + ")")
    private Integer maxRetries;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description =
                    "where result.json and the process logs go (default " + "out/tpcc-<time>; demo: out/demo-<time>)")
    private Path out;

    /**
     * The run these options ask for, every option checked against the others; an error names the option. Without
     * {@code --out}, results go to {@code out/<outPrefix>-<time>}.
     */
    RunRequest request(String outPrefix) {
        boolean direct = mode instanceof ModeChoice.Direct;
        List<String> urls = replicaOptions.urls(spec);
        int replicaCount;
        if (direct) {
            Integer replicas = replicaOptions.replicas;
            replicaCount = Usage.range(spec, "--replicas", replicas == null ? 1 : replicas, 1, 1);
            if (urls.size() > 1) {
                throw Usage.error(spec, "direct mode runs against one server; got " + urls.size() + " --jdbc-url");
            }
        } else if (sites != null) {
            replicaCount = siteReplicas(urls);
        } else {
            replicaCount = replicaOptions.count(spec);
        }
        PostgresBackend backend = urls.isEmpty() ? PostgresBackend.EMBEDDED : PostgresBackend.EXTERNAL;
        if (postgres != null) {
            backend = postgres;
            if (backend == PostgresBackend.EXTERNAL || !urls.isEmpty()) {
                throw Usage.error(
                        spec,
                        "--postgres " + backend.cliName() + " contradicts --jdbc-url: give existing "
                                + "servers with --jdbc-url, or choose --postgres embedded|testcontainers without it");
            }
        }
        int warehouseCount = Usage.range(spec, "--warehouses", warehouses, 1, TpccCommand.MAX_WAREHOUSES);
        int terminalCount =
                Usage.range(spec, "--terminals", terminals == null ? 10 * warehouseCount : terminals, 1, 2_000);
        if (rate != null) {
            Usage.range(spec, "--rate", rate, 0.001, 1_000_000);
        }
        int retries =
                Usage.range(spec, "--max-retries", maxRetries == null ? DEFAULT_MAX_RETRIES : maxRetries, 0, 1_000);
        RunTarget target = direct ? directTarget(retries) : gargamelTarget(((ModeChoice.Through) mode), urls);
        if (target instanceof RunTarget.Gargamel through && through.sites() != null) {
            checkSitesAgainstWarehouses(through.sites(), warehouseCount, terminalCount);
        }
        Path outDirectory = outDirectory(spec, out, outPrefix);
        return new RunRequest(
                target,
                replicaCount,
                urls,
                backend,
                warehouseCount,
                terminalCount,
                warmup == null ? Duration.ZERO : warmup,
                duration,
                rate,
                keying,
                seed == null ? System.nanoTime() : seed,
                loadSeed,
                outDirectory,
                false);
    }

    /** With --sites: every replica of every site (--replicas per site, default 1); --jdbc-url gives them all. */
    private int siteReplicas(List<String> urls) {
        int siteCount = Usage.range(spec, "--sites", sites, 2, 8);
        int perSite =
                Usage.range(spec, "--replicas", replicaOptions.replicas == null ? 1 : replicaOptions.replicas, 1, 8);
        if (!urls.isEmpty() && urls.size() != siteCount * perSite) {
            throw Usage.error(
                    spec,
                    "--sites " + siteCount + " with " + perSite + " replica(s) per site needs " + siteCount * perSite
                            + " --jdbc-url, got " + urls.size());
        }
        return siteCount * perSite;
    }

    /** The sites' options, or null without --sites (then none of them may be given). */
    private SitesPlan sitesPlan(Mode chosen, Isolation level, RunTarget.Client clientKind) {
        if (sites == null) {
            for (String option : List.of("--site-delay", "--agreement", "--ack", "--warehouses-per-site")) {
                Object given = switch (option) {
                    case "--site-delay" -> siteDelay;
                    case "--agreement" -> agreement;
                    case "--ack" -> ack;
                    default -> warehousesPerSite;
                };
                if (given != null) {
                    throw Usage.error(spec, option + " is for --sites");
                }
            }
            return null;
        }
        if (chosen != Mode.GARGAMEL || level != Isolation.PSI) {
            throw Usage.error(
                    spec,
                    "--sites needs --mode gargamel and --isolation psi (a call commits only once the "
                            + "schedule log placed it)");
        }
        if (!schedulers.isEmpty() || clientKind != RunTarget.Client.LIBRARY) {
            throw Usage.error(
                    spec,
                    "--sites starts its sites here and calls through the library: not with "
                            + "--scheduler or --client pgwire");
        }
        String agreed = agreement == null ? "optimistic" : agreement;
        if (!SitesPlan.AGREEMENTS.contains(agreed)) {
            throw Usage.error(
                    spec,
                    "--agreement must be optimistic, pessimistic, owned, abort-free or one-scheduler, got '" + agreed
                            + "'");
        }
        String placement = warehousesPerSite == null ? "partitioned" : warehousesPerSite;
        if (!placement.equals("partitioned") && !placement.equals("shared")) {
            throw Usage.error(spec, "--warehouses-per-site must be partitioned or shared, got '" + placement + "'");
        }
        int delayMillis = siteDelayMillis(spec, siteDelay == null ? Duration.ZERO : siteDelay);
        int siteCount = Usage.range(spec, "--sites", sites, 2, 8);
        int perSite = replicaOptions.replicas == null ? 1 : replicaOptions.replicas;
        Acknowledgement acknowledged = Acknowledgement.parse(ack == null ? "all-sites" : ack)
                .orElseThrow(() -> Usage.error(spec, "--ack must be all-sites or site, got '" + ack + "'"));
        if (acknowledged == Acknowledgement.SITE && !agreed.equals(SitesPlan.OWNED)) {
            throw Usage.error(
                    spec,
                    "--ack site needs --agreement owned (only a site's own calls may commit without the other"
                            + " sites), got --agreement " + agreed);
        }
        return new SitesPlan(
                siteCount,
                perSite,
                delayMillis,
                SitesTopology.of(agreed, acknowledged),
                placement.equals("partitioned"),
                warehouses);
    }

    /** {@code --site-delay} in milliseconds, once checked (demo's and compare's): 0 to 10 s. */
    static int siteDelayMillis(CommandSpec spec, Duration delay) {
        if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(10)) > 0) {
            throw Usage.error(spec, "--site-delay must be between 0 and 10s, got " + delay);
        }
        return (int) delay.toMillis();
    }

    private void checkSitesAgainstWarehouses(SitesPlan plan, int warehouseCount, int terminalCount) {
        if (plan.partitioned() && warehouseCount < plan.count()) {
            throw Usage.error(
                    spec,
                    "--warehouses-per-site partitioned needs at least one warehouse per site: " + warehouseCount
                            + " warehouse(s) for " + plan.count() + " sites (or --warehouses-per-site shared)");
        }
        if (terminalCount < plan.count()) {
            throw Usage.error(
                    spec, "--sites " + plan.count() + " needs at least one terminal per site, got " + terminalCount);
        }
    }

    /** {@code --out}, or {@code out/<prefix>-<time>}; an error if it names something that is not a directory. */
    static Path outDirectory(CommandSpec spec, Path out, String prefix) {
        // Named after the user's wall-clock time: the machine's time zone.
        Path directory = out != null
                ? out
                : Path.of("out/" + prefix + "-"
                        + LocalDateTime.now(ZoneId.systemDefault())
                                .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw Usage.error(spec, "--out " + directory + " exists and is not a directory");
        }
        return directory;
    }

    private RunTarget.Direct directTarget(int retries) {
        if (workers != null) {
            throw Usage.error(spec, "--workers is for the Gargamel nodes; direct mode has none");
        }
        if (appliers != null) {
            throw Usage.error(spec, "--appliers is for the Gargamel nodes; direct mode has none");
        }
        if (applyGroup != null) {
            throw Usage.error(spec, "--apply-group is for the Gargamel nodes; direct mode has none");
        }
        if (!schedulers.isEmpty()) {
            throw Usage.error(spec, "--scheduler joins a Gargamel cluster; direct mode has none");
        }
        if (client != null) {
            throw Usage.error(spec, "--client is how terminals call through Gargamel; direct mode calls PostgreSQL");
        }
        if (bind != null) {
            throw Usage.error(spec, "--bind is for --scheduler");
        }
        if (tpccRules != null) {
            throw Usage.error(spec, "--tpcc-rules are Gargamel's classifier rules; direct mode has none");
        }
        try {
            return new RunTarget.Direct(
                    isolation == null ? DirectIsolation.READ_COMMITTED : DirectIsolation.parse(isolation), retries);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, "option --isolation of '" + Usage.commandName(spec) + "': " + e.getMessage());
        }
    }

    private RunTarget.Gargamel gargamelTarget(ModeChoice.Through choice, List<String> urls) {
        Isolation level;
        try {
            level = isolation == null ? Isolation.PSI : Isolation.parse(isolation);
        } catch (IllegalArgumentException e) {
            throw Usage.error(
                    spec,
                    "option --isolation of '" + Usage.commandName(spec) + "' (mode " + choice.mode() + "): "
                            + e.getMessage());
        }
        int workerCount = Usage.range(spec, "--workers", workers == null ? DEFAULT_WORKERS : workers, 1, 256);
        int applierCount = Usage.range(spec, "--appliers", appliers == null ? 1 : appliers, 1, 64);
        int groupLimit = Usage.range(
                spec, "--apply-group", applyGroup == null ? NodeConfig.DEFAULT_APPLY_GROUP : applyGroup, 1, 1000);
        RunTarget.Client clientKind;
        try {
            clientKind = client == null ? RunTarget.Client.LIBRARY : RunTarget.Client.parse(client);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, "option --client of '" + Usage.commandName(spec) + "': " + e.getMessage());
        }
        if (clientKind == RunTarget.Client.PGWIRE && !schedulers.isEmpty()) {
            throw Usage.error(
                    spec,
                    "--client pgwire starts a front end beside the cluster it starts; with --scheduler, run "
                            + "`gargamel frontend` next to the cluster and point your own client at it");
        }
        if (!schedulers.isEmpty()) {
            if (urls.isEmpty()) {
                throw Usage.error(
                        spec,
                        "--scheduler needs the cluster's replicas as --jdbc-url (one per node) for the "
                                + "load and the checks");
            }
            if (workers != null) {
                throw Usage.error(spec, "--workers contradicts --scheduler: the running nodes have their own workers");
            }
            if (appliers != null) {
                throw Usage.error(
                        spec, "--appliers contradicts --scheduler: the running nodes have their own appliers");
            }
            if (applyGroup != null) {
                throw Usage.error(
                        spec, "--apply-group contradicts --scheduler: the running nodes have their own setting");
            }
            for (String scheduler : schedulers) {
                try {
                    GroupConfig.parseHostPort(scheduler);
                } catch (IllegalArgumentException e) {
                    throw Usage.error(spec, "--scheduler: " + e.getMessage());
                }
            }
        } else if (bind != null) {
            throw Usage.error(spec, "--bind is for --scheduler");
        }
        if (tpccRules != null && !schedulers.isEmpty()) {
            throw Usage.error(spec, "--tpcc-rules contradicts --scheduler: the running cluster has its own rules");
        }
        return new RunTarget.Gargamel(
                choice.mode(),
                level,
                workerCount,
                List.copyOf(schedulers),
                bind == null ? DEFAULT_BIND : bind,
                clientKind,
                RunTarget.Gargamel.tpccRulesOrDefault(tpccRules),
                applierCount,
                groupLimit,
                sitesPlan(choice.mode(), level, clientKind),
                ChildJit.QUICK_START);
    }

    /** {@code --tpcc-rules}: by {@link TpccRules.Variant#parse}. */
    static final class TpccRulesConverter implements ITypeConverter<TpccRules.Variant> {
        @Override
        public TpccRules.Variant convert(String text) {
            try {
                return TpccRules.Variant.parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code --postgres}: by {@link PostgresBackend#parse}. */
    static final class BackendConverter implements ITypeConverter<PostgresBackend> {
        @Override
        public PostgresBackend convert(String text) {
            try {
                return PostgresBackend.parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
