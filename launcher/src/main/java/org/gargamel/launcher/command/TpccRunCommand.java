package org.gargamel.launcher.command;

import org.gargamel.launcher.GargamelMain;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.command.CommandOptions;
import org.gargamel.launcher.command.UsageException;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunDescription;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.result.RunSummary;
import org.gargamel.tpcc.schema.DatabaseState;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.terminal.RunSettings;
import org.gargamel.tpcc.terminal.TerminalEmulator;
import org.gargamel.tpcc.workload.DirectExecutor;
import org.gargamel.tpcc.workload.DirectIsolation;

/**
 * {@code gargamel tpcc run}: loads the database if it is empty, drives the terminals, checks consistency,
 * prints a summary and writes {@code DIR/result.json}. Every option is validated before anything is
 * started or written.
 */
final class TpccRunCommand {
    static final String DEFAULT_DURATION = "60s";
    static final String TESTCONTAINERS_IMAGE = "postgres:16-alpine";
    static final int DEFAULT_REPLICAS = 3;
    static final int DEFAULT_WORKERS = 4;
    static final List<String> MODES = List.of("gargamel", "round-robin", "centralized", "direct");

    private final PrintStream out;
    private final PrintStream err;

    TpccRunCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    static CommandOptions options(String command) {
        return new CommandOptions(command)
                .value("--mode", "MODE", "gargamel, round-robin (with certification), centralized, or direct (no middleware)")
                .value("--replicas", "N", "PostgreSQL replicas, one node each (default 3, or the number of --jdbc-url)")
                .repeatable("--jdbc-url", "URL", "an existing PostgreSQL server, one per replica (default: embedded servers)")
                .value("--postgres", "BACKEND", "without --jdbc-url: embedded (default) or testcontainers (needs Docker)")
                .value("--warehouses", "W", "number of warehouses (default 1)")
                .value("--terminals", "T", "closed-loop terminals, or open-loop connections with --rate (default 10 per warehouse)")
                .value("--duration", "D", "measurement interval, e.g. 30s, 2m (default " + DEFAULT_DURATION + ")")
                .value("--warmup", "D", "run this long first, unmeasured, e.g. 10s (default: none)")
                .value("--rate", "R", "open loop: R calls per second in total instead of closed-loop terminals")
                .value("--isolation", "LEVEL", "psi (default) or si through Gargamel; direct: read-committed (= psi), "
                        + "repeatable-read (= si) or serializable")
                .value("--scheduler", "HOST:PORT", "join a Gargamel cluster that already runs (give its replicas with "
                        + "--jdbc-url, for the load and the checks) instead of starting one here")
                .value("--bind", "ADDRESS", "with --scheduler: the address this client listens on (default 127.0.0.1)")
                .value("--workers", "K", "workers (connections running chains) per node (default " + DEFAULT_WORKERS + ")")
                .flag("--keying", "keying and think times of clause 5.2.5.7 (off for throughput runs)")
                .value("--seed", "S", "seed of the terminals' random streams (default: from the clock)")
                .value("--load-seed", "S", "seed of the load when the database is empty (default 1)")
                .value("--max-retries", "N", "direct mode: retries after a serialization failure or deadlock (default 10)")
                .value("--out", "DIR", "where result.json and the process logs go (default out/tpcc-<time>)")
                .flag("--help", "this text");
    }

    int run(List<String> arguments) {
        CommandOptions spec = options("tpcc run");
        CommandOptions.Parsed options = spec.parse(arguments);
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel tpcc run [--mode gargamel|round-robin|centralized|direct] [--replicas N] "
                    + "[--jdbc-url URL ...] --warehouses W --terminals T [--warmup D] --duration D [--rate R] "
                    + "[--isolation psi|si] [--out DIR]\n" + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        return execute(parse(options), out, err);
    }

    /**
     * A validated run request: everything the run needs, nothing started yet. {@code isolation} is the name in
     * result.json (psi/si through Gargamel, the PostgreSQL level in direct mode, where {@code directIsolation}
     * is the level used). {@code freshCopies}: the replicas were just copied from one template database (compare), so
     * the table-by-table comparison before the run (35 s at 4 warehouses here) is skipped.
     */
    record Request(String mode, int replicas, List<String> jdbcUrls, PostgresBackend backend, int warehouses,
            int terminals, Duration warmup, Duration duration, Double rate, String isolation,
            DirectIsolation directIsolation, int workers, boolean keying, long seed, long loadSeed, int maxRetries, Path out,
            String scheduler, String bind, boolean freshCopies) {

        boolean direct() {
            return mode.equals("direct");
        }

        /** How long the terminals run, for the log line (see {@link #interval(Duration, Duration)}). */
        String interval() {
            return TpccRunCommand.interval(warmup, duration);
        }
    }

    /** How long terminals run, for log lines: "PT1M", or "PT10S warm-up + PT1M measured". */
    static String interval(Duration warmup, Duration duration) {
        return warmup.isZero() ? duration.toString() : warmup + " warm-up + " + duration + " measured";
    }

    static Request parse(CommandOptions.Parsed options) {
        return parse(options, "gargamel");
    }

    static Request parse(CommandOptions.Parsed options, String defaultMode) {
        TpccCommand.requireNoPositional(options);
        String mode = options.string("--mode", defaultMode);
        if (!MODES.contains(mode)) {
            throw new UsageException("unknown mode '" + mode + "' (expected gargamel, round-robin, centralized or direct)");
        }
        boolean direct = mode.equals("direct");
        List<String> urls = options.all("--jdbc-url");
        TpccCommand.requireDistinct(urls);
        int replicas;
        if (direct) {
            replicas = options.integer("--replicas", 1, 1, 1);
            if (urls.size() > 1) {
                throw new UsageException("direct mode runs against one server; got " + urls.size() + " --jdbc-url");
            }
        } else {
            replicas = options.integer("--replicas", urls.isEmpty() ? DEFAULT_REPLICAS : urls.size(), 1, 16);
            if (!urls.isEmpty() && urls.size() != replicas) {
                throw new UsageException("--replicas " + replicas + " contradicts the " + urls.size()
                        + " --jdbc-url given (one server per replica)");
            }
        }
        PostgresBackend backend = urls.isEmpty() ? PostgresBackend.EMBEDDED : PostgresBackend.EXTERNAL;
        if (options.has("--postgres")) {
            try {
                backend = PostgresBackend.parse(options.string("--postgres", null));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            if (backend == PostgresBackend.EXTERNAL || !urls.isEmpty()) {
                throw new UsageException("--postgres " + backend.cliName() + " contradicts --jdbc-url: give existing "
                        + "servers with --jdbc-url, or choose --postgres embedded|testcontainers without it");
            }
        }
        int warehouses = options.integer("--warehouses", 1, 1, TpccCommand.MAX_WAREHOUSES);
        int terminals = options.integer("--terminals", 10 * warehouses, 1, 2_000);
        Duration duration = options.duration("--duration", CommandOptions.parseDuration(DEFAULT_DURATION));
        Duration warmup = options.duration("--warmup", Duration.ZERO);
        Double rate = options.has("--rate") ? options.decimal("--rate", 0, 0.001, 1_000_000) : null;
        String isolationName = options.string("--isolation", direct ? "read-committed" : "psi");
        DirectIsolation directIsolation = null;
        if (direct) {
            try {
                directIsolation = DirectIsolation.parse(switch (isolationName) {
                    case "psi" -> "read-committed";
                    case "si" -> "repeatable-read";
                    default -> isolationName;
                });
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage() + "; psi and si are accepted as read-committed and repeatable-read");
            }
            isolationName = directIsolation.cliName();
        } else if (!isolationName.equals("psi") && !isolationName.equals("si")) {
            throw new UsageException("unknown isolation '" + isolationName + "' for mode " + mode + " (expected psi or si)");
        }
        int workers = options.integer("--workers", DEFAULT_WORKERS, 1, 256);
        if (direct && options.has("--workers")) {
            throw new UsageException("--workers is for the Gargamel nodes; direct mode has none");
        }
        long seed = options.longValue("--seed", System.nanoTime());
        long loadSeed = options.longValue("--load-seed", 1L);
        int maxRetries = options.integer("--max-retries", 10, 0, 1_000);
        Path outDirectory = Path.of(options.string("--out",
                "out/tpcc-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        if (Files.exists(outDirectory) && !Files.isDirectory(outDirectory)) {
            throw new UsageException("--out " + outDirectory + " exists and is not a directory");
        }
        String scheduler = options.has("--scheduler") ? options.string("--scheduler", null) : null;
        if (scheduler != null) {
            if (direct) {
                throw new UsageException("--scheduler joins a Gargamel cluster; direct mode has none");
            }
            if (urls.isEmpty()) {
                throw new UsageException("--scheduler needs the cluster's replicas as --jdbc-url (one per node) for the "
                        + "load and the checks");
            }
            if (options.has("--workers")) {
                throw new UsageException("--workers contradicts --scheduler: the running nodes have their own workers");
            }
            try {
                org.gargamel.common.group.GroupConfig.parseHostPort(scheduler);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--scheduler: " + e.getMessage());
            }
        } else if (options.has("--bind")) {
            throw new UsageException("--bind is for --scheduler");
        }
        return new Request(mode, replicas, urls, backend, warehouses, terminals, warmup, duration, rate, isolationName,
                directIsolation, workers, options.flag("--keying"), seed, loadSeed, maxRetries, outDirectory, scheduler,
                options.string("--bind", "127.0.0.1"), false);
    }

    static int execute(Request request, PrintStream out, PrintStream err) {
        if (!request.direct()) {
            return new ReplicatedRun(request, out, err).execute();
        }
        try (PostgresCluster cluster = startCluster(request, err)) {
            String url = cluster.jdbcUrl(0);
            LoadInfo load = prepare(url, request, err);
            NURandConstants runConstants = NURandConstants.forRun(load.loadConstants(), new SplittableRandom(request.seed()));
            RunSettings settings = new RunSettings(request.warehouses(), request.terminals(), request.warmup(),
                    request.duration(), request.rate(), request.keying(), request.seed(), runConstants,
                    Clock.systemDefaultZone());
            TerminalEmulator emulator = new TerminalEmulator(settings, terminal -> {
                try {
                    return new DirectExecutor(url, request.directIsolation(), request.maxRetries());
                } catch (SQLException e) {
                    throw new CommandFailedException("terminal " + (terminal + 1) + " cannot connect to " + url + ": "
                            + e.getMessage(), e);
                }
            });
            java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
            Thread stopOnInterrupt = new Thread(() -> {
                interrupted.set(true);
                emulator.stop();
            }, "tpcc-run-interrupt");
            Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
            String startedAt = LocalDateTime.now().toString();
            err.printf("running TPC-C direct on %s: %d warehouse(s), %s, %s%n", url, request.warehouses(),
                    request.rate() == null ? request.terminals() + " terminal(s)"
                            : request.rate() + " calls/s over " + request.terminals() + " connection(s)",
                    request.interval());
            RunStatistics statistics = emulator.run();
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnInterrupt);
            } catch (IllegalStateException e) {
                // Shutting down already (Ctrl-C): the hook has run.
            }
            RunDescription description = new RunDescription("direct", request.isolation(), 1,
                    request.warehouses(), request.terminals(), request.rate(), request.warmup(), request.seed(),
                    startedAt);
            RunResult result = RunResult.of(description, statistics, emulator.measuredSeconds());

            out.print(RunSummary.render(result));
            out.flush();
            if (interrupted.get()) {
                // Ctrl-C: the JVM is shutting down and embedded servers are being stopped by their own hook.
                err.println("gargamel: interrupted; the partial run above is not checked and no result.json is written");
                return GargamelMain.EXIT_INTERRUPTED;
            }
            err.println("checking consistency and computing table checksums ...");
            CheckReport check = new CheckRunner().run(List.of(url));
            java.util.Map<String, Object> checks = check.toResultMap();
            result = result.withChecks(checks.get("consistency"), checks.get("convergence"));
            Path resultFile = request.out().resolve("result.json");
            result.write(resultFile);

            out.print(check.render());
            out.println("result: " + resultFile);
            if (!check.passed()) {
                err.println("gargamel: error: the TPC-C consistency check failed after the run");
                return GargamelMain.EXIT_FAILED;
            }
            if (result.errors() > 0) {
                err.println("gargamel: error: " + result.errors() + " call(s) failed unexpectedly; first: "
                        + result.firstError());
                return GargamelMain.EXIT_FAILED;
            }
            return GargamelMain.EXIT_OK;
        } catch (IOException e) {
            throw new CommandFailedException("cannot write result.json under " + request.out() + ": " + e.getMessage(), e);
        }
    }

    static PostgresCluster startCluster(Request request, PrintStream err) {
        int count = request.replicas();
        return switch (request.backend()) {
            case EXTERNAL -> PostgresCluster.external(request.jdbcUrls());
            case EMBEDDED -> {
                err.println("starting " + (count == 1 ? "an embedded PostgreSQL server" : count + " embedded PostgreSQL servers")
                        + " ...");
                yield PostgresCluster.embedded(count);
            }
            case TESTCONTAINERS -> {
                err.println("starting " + count + " PostgreSQL container(s) with Testcontainers ...");
                yield PostgresCluster.testcontainers(count, TESTCONTAINERS_IMAGE);
            }
        };
    }

    /**
     * Makes every replica hold the same TPC-C database: loads them all when all are empty; accepts them when
     * all hold a load of the requested scale and are identical table by table; refuses anything else, naming
     * the database and what it holds, before anything is written.
     */
    static LoadInfo prepareReplicas(List<String> urls, Request request, PrintStream err) {
        if (urls.size() == 1) {
            return prepare(urls.get(0), request, err);
        }
        List<DatabaseState> states = urls.stream().map(TpccCommand::inspect).toList();
        for (int i = 0; i < urls.size(); i++) {
            if (!states.get(i).isEmpty() && !states.get(i).isLoaded()) {
                throw new CommandFailedException("refusing to run on " + urls.get(i) + ": " + states.get(i).description());
            }
        }
        if (states.stream().allMatch(DatabaseState::isEmpty)) {
            return new TpccLoader(new LoadOptions(request.warehouses(), request.loadSeed(), LoadOptions.defaultThreads()),
                    LoadProgress.toStandardError()).load(urls);
        }
        for (int i = 0; i < urls.size(); i++) {
            if (states.get(i).isEmpty()) {
                throw new CommandFailedException("refusing to run: " + urls.get(i) + " is empty but other replicas hold "
                        + "TPC-C data; give replicas that are all empty (they are loaded) or all loaded identically");
            }
        }
        LoadInfo load = null;
        for (String url : urls) {
            load = prepare(url, request, err);
        }
        if (request.freshCopies()) {
            return load;  // copies of one template database, made for this run (compare): identical by construction
        }
        err.println("comparing the replicas before the run ...");
        org.gargamel.tpcc.check.CheckReport before = new CheckRunner().run(urls);
        if (!before.convergence().identical()) {
            throw new CommandFailedException("refusing to run: the replicas differ before the run:\n" + before.render());
        }
        return load;
    }

    /** Loads an empty database; accepts a loaded one of the same scale; refuses anything else. */
    static LoadInfo prepare(String url, Request request, PrintStream err) {
        DatabaseState state = TpccCommand.inspect(url);
        if (state.isEmpty()) {
            return new TpccLoader(new LoadOptions(request.warehouses(), request.loadSeed(), LoadOptions.defaultThreads()),
                    LoadProgress.toStandardError()).load(url);
        }
        if (!state.isLoaded()) {
            throw new CommandFailedException("refusing to run on " + url + ": " + state.description());
        }
        try (Connection connection = JdbcConnections.connect(url)) {
            LoadInfo load = TpccSchema.readLoadInfo(connection);
            if (load.warehouses() != request.warehouses()) {
                throw new UsageException("the database at " + url + " holds " + load.warehouses()
                        + " warehouse(s) but --warehouses is " + request.warehouses());
            }
            err.printf("using the TPC-C database at %s (%d warehouse(s), loaded with seed %d)%n", url,
                    load.warehouses(), load.seed());
            return load;
        } catch (SQLException e) {
            throw new CommandFailedException("cannot read tpcc_load_info at " + url + ": " + e.getMessage(), e);
        }
    }
}
