package org.gargamel.launcher.command;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.Directories;
import org.gargamel.launcher.cluster.FrontendPlan;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.run.ReplicaAgreement;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.schema.DatabaseState;
import org.gargamel.tpcc.schema.TpccSchema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel serve}: a cluster to connect to with psql or any driver. The replicas (embedded servers loaded with
 * TPC-C, or existing databases holding an application, compared first), the scheduler, one node per replica and one
 * PostgreSQL wire-protocol front end, each a process of its own as in {@code demo}; prints {@code ready:
 * postgresql://...} and runs until Ctrl-C or SIGTERM, then stops every process and removes its temporary directory.
 */
@Command(
        name = "serve",
        description = {
            "run a cluster to connect to with psql or any PostgreSQL driver, until Ctrl-C or SIGTERM",
            "Embedded replicas loaded with TPC-C by default; --jdbc-url with --rules for your own application."
        },
        customSynopsis = {
            "scripts/gargamel serve [--replicas N | --jdbc-url URL ...] [--rules FILE] [--warehouses W] "
                    + "[--isolation psi|si]",
            "       [--host H] [--port P] [--user U --password-file F | --trust] [--workers K] [--out DIR]"
        })
public final class ServeCommand implements Callable<Integer> {
    static final String READY = "ready: ";
    static final String DEFAULT_USER = "gargamel";
    static final int DEFAULT_PORT = 5433;
    private static final long LOAD_SEED = 1;

    @Spec
    private CommandSpec spec;

    @Mixin
    private ReplicaOptions replicaOptions;

    @Option(
            names = "--rules",
            paramLabel = "FILE",
            description = "with --jdbc-url: the rules of the procedures the databases hold (default: TPC-C's, when "
                    + "they hold TPC-C)")
    private Path rules;

    @Option(
            names = "--warehouses",
            paramLabel = "W",
            description = "TPC-C warehouses to load into the replicas (embedded: default 1; --jdbc-url: only empty "
                    + "databases are loaded)")
    private Integer warehouses;

    @Option(names = "--isolation", paramLabel = "LEVEL", defaultValue = "psi", description = "psi (default) or si")
    private String isolation;

    @Option(
            names = "--host",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "the address clients connect to (default ${DEFAULT-VALUE})")
    private String host;

    @Option(
            names = "--port",
            paramLabel = "P",
            description = "the port clients connect to (default " + DEFAULT_PORT + "; 0: any free port)")
    private Integer port;

    @Option(
            names = "--user",
            paramLabel = "U",
            description = "the user clients log in as (default " + DEFAULT_USER + ")")
    private String user;

    @Option(
            names = "--password-file",
            paramLabel = "F",
            description = "a file whose first line is the user's password (default: a fresh password, printed once)")
    private Path passwordFile;

    @Option(names = "--trust", description = "let anyone in without a password (a front end only you can reach)")
    private boolean trust;

    @Option(
            names = "--workers",
            paramLabel = "K",
            description = "workers per node (default " + RunOptions.DEFAULT_WORKERS + ")")
    private Integer workers;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "keep the configuration files and the processes' logs here (default: a temporary directory, "
                    + "removed at exit)")
    private Path out;

    private final PrintStream stdout;
    private final PrintStream err;

    ServeCommand(CommandContext context) {
        this.stdout = context.out();
        this.err = context.err();
    }

    /** What serve will run, every option checked; nothing started. */
    record Request(
            int replicas,
            List<String> jdbcUrls,
            Path rules,
            Integer warehouses,
            Isolation isolation,
            int workers,
            FrontendPlan frontend,
            Path out) {
        boolean embedded() {
            return jdbcUrls.isEmpty();
        }
    }

    Request request() {
        List<String> urls = replicaOptions.urls(spec);
        int replicas = replicaOptions.count(spec);
        if (urls.isEmpty() && rules != null) {
            throw Usage.error(
                    spec,
                    "--rules is for --jdbc-url: embedded replicas are created here and loaded with TPC-C, whose rules "
                            + "are built in; give the databases that hold your application with --jdbc-url");
        }
        if (rules != null && !Files.isRegularFile(rules)) {
            throw Usage.error(spec, "--rules " + rules + " is not a file");
        }
        if (rules != null && warehouses != null) {
            throw Usage.error(spec, "--warehouses loads TPC-C, whose rules are built in; it contradicts --rules");
        }
        if (warehouses != null) {
            Usage.range(spec, "--warehouses", warehouses, 1, TpccCommand.MAX_WAREHOUSES);
        }
        Isolation level;
        try {
            level = Isolation.parse(isolation);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, "option --isolation of 'serve': " + e.getMessage());
        }
        int workerCount =
                Usage.range(spec, "--workers", workers == null ? RunOptions.DEFAULT_WORKERS : workers, 1, 256);
        int listenPort = Usage.range(spec, "--port", port == null ? DEFAULT_PORT : port, 0, 65_535);
        if (trust && passwordFile != null) {
            throw Usage.error(spec, "--trust lets anyone in without a password; it contradicts --password-file");
        }
        String password = trust ? null : passwordFile == null ? FrontendPlan.newPassword() : readPassword();
        if (out != null && Files.exists(out) && !Files.isDirectory(out)) {
            throw Usage.error(spec, "--out " + out + " exists and is not a directory");
        }
        if (user != null && user.isBlank()) {
            throw Usage.error(spec, "--user must not be empty");
        }
        // The catalogue to describe calls from is the first replica's, known once the replicas are.
        FrontendPlan frontend = new FrontendPlan(host, listenPort, user == null ? DEFAULT_USER : user, password, null);
        return new Request(replicas, urls, rules, warehouses, level, workerCount, frontend, out);
    }

    private String readPassword() {
        try (Stream<String> lines = Files.lines(passwordFile, StandardCharsets.UTF_8)) {
            String password = lines.findFirst().orElse("");
            if (password.isEmpty()) {
                throw Usage.error(spec, "--password-file " + passwordFile + ": the first line (the password) is empty");
            }
            return password;
        } catch (IOException | UncheckedIOException e) {
            throw Usage.error(spec, "--password-file " + passwordFile + " cannot be read: " + e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        Request request = request();
        Path directory = request.out() != null
                ? Files.createDirectories(request.out())
                : Files.createTempDirectory("gargamel-serve-");
        boolean temporary = request.out() == null;
        LocalGargamelCluster[] started = new LocalGargamelCluster[1];
        // Ctrl-C and SIGTERM: the JVM runs its hooks (the embedded servers have their own) and exits; this one stops
        // the processes before their directory goes.
        Thread stopOnSignal = new Thread(
                () -> {
                    stop(started[0]);
                    if (temporary) {
                        Directories.deleteRecursively(directory);
                    }
                    err.println("gargamel serve stopped");
                },
                "serve-stop");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        try (PostgresCluster databases = TpccDatabases.start(
                request.embedded() ? PostgresBackend.EMBEDDED : PostgresBackend.EXTERNAL,
                request.replicas(),
                request.jdbcUrls(),
                err)) {
            List<String> urls = databases.jdbcUrls();
            Path rulesFile = prepare(request, urls, directory);
            ClusterPlan plan = new ClusterPlan(
                            Mode.GARGAMEL,
                            request.isolation(),
                            rulesFile,
                            urls,
                            request.workers(),
                            directory,
                            !request.embedded(),
                            1)
                    .withFrontend(new FrontendPlan(
                            request.frontend().host(),
                            request.frontend().port(),
                            request.frontend().user(),
                            request.frontend().password(),
                            urls.get(0)))
                    // A server runs for hours, not one run: both JIT tiers (C1 alone cost a node 0.98 ms of CPU per
                    // call against 0.42 with C2, 1 replica, TPC-C: issue 40; docs/costs.md).
                    .withJit(ChildJit.SERVER);
            LocalGargamelCluster cluster = LocalGargamelCluster.start(plan, err);
            started[0] = cluster;
            CompletableFuture<String> failed = new CompletableFuture<>();
            cluster.onFailure(() -> failed.complete(cluster.failure()));
            describe(plan, rulesFile, cluster.frontendPort(), directory, temporary);
            try {
                String failure = failed.get();
                throw new CommandFailedException("the cluster stopped serving: " + failure);
            } catch (ExecutionException e) {
                throw new CommandFailedException("the cluster stopped serving: " + e.getMessage(), e);
            }
        } finally {
            // Reached on a failure only: a signal ends the JVM while this thread still waits above.
            removeHook(stopOnSignal);
            stop(started[0]);
            if (temporary) {
                Directories.deleteRecursively(directory);
            }
        }
    }

    /** The replicas made ready (loaded, or checked identical); the rules file the cluster classifies with. */
    private Path prepare(Request request, List<String> urls, Path directory) {
        if (request.rules() != null) {
            ClassifierRules.load(request.rules()); // a bad file is named before anything else is looked at
            ReplicaAgreement.requireIdentical(urls, err);
            return request.rules().toAbsolutePath();
        }
        DatabaseState state = TpccDatabases.inspect(urls.get(0));
        if (request.warehouses() == null && !request.embedded() && !state.isLoaded()) {
            throw new CommandFailedException("serve needs --rules FILE for the procedures of the databases given ("
                    + "the first one: " + state.description() + "); or --warehouses W to load TPC-C into empty ones");
        }
        int scale = request.warehouses() != null ? request.warehouses() : request.embedded() ? 1 : warehousesOf(urls);
        TpccDatabases.prepareReplicas(urls, scale, LOAD_SEED, false, err);
        return TpccRules.writeTo(directory);
    }

    private static int warehousesOf(List<String> urls) {
        try (Connection connection = JdbcConnections.connect(urls.get(0))) {
            return TpccSchema.readLoadInfo(connection).warehouses();
        } catch (SQLException e) {
            throw new CommandFailedException("cannot read the TPC-C load of the first database: " + e.getMessage(), e);
        }
    }

    /** The ready line (standard output: what a script reads), then how to use it (standard error). */
    private void describe(ClusterPlan plan, Path rulesFile, int boundPort, Path directory, boolean temporary) {
        FrontendPlan frontend = plan.frontend();
        boolean generated = frontend.password() != null && passwordFile == null;
        String uri = frontend.uri(boundPort, generated);
        stdout.println(READY + uri);
        stdout.flush();
        TreeSet<String> procedures =
                new TreeSet<>(ClassifierRules.load(rulesFile).procedures().keySet());
        err.printf(
                "gargamel serve: %d replica(s), %s; procedures %s%n",
                plan.replicas(), plan.isolation().configName(), String.join(", ", procedures));
        if (generated) {
            err.println("the password in the URI above was made for this run and is shown only once");
        } else if (frontend.password() != null) {
            err.println("log in with the password in " + passwordFile);
        }
        err.println("connect: psql '" + uri + "' -c 'SELECT * FROM " + procedures.first() + "(...)'");
        err.println("logs in " + directory + (temporary ? " (removed at exit)" : "") + "; stop with Ctrl-C or SIGTERM");
        err.flush();
    }

    private static void stop(LocalGargamelCluster cluster) {
        if (cluster != null) {
            cluster.close(); // idempotent
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already: the hook has run or is running.
        }
    }
}
