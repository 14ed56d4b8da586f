package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.group.ClusterSecurity;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.GargamelExecutor;

/**
 * Gargamel on this machine: the scheduler and one node per replica, each a separate JVM started from our own class
 * path, talking JGroups over TCP on 127.0.0.1 with static discovery; plus the client library in this JVM. Writes
 * their configuration files and logs under the plan's directory. If a process dies during the run the cluster
 * reports it ({@link #failure()}) and calls the registered listeners, so the run stops at once instead of hanging.
 * {@link #close()} stops every process, also on failure and Ctrl-C.
 */
public final class LocalGargamelCluster implements GargamelCluster {
    /** The scheduler and nodes run the server entry point, from gargamel-server.jar (see {@link ServerClassPath}). */
    static final String MAIN_CLASS = "org.gargamel.launcher.server.ServerMain";

    static final String SCHEDULER_READY = "gargamel scheduler ready";
    static final String NODE_READY = "gargamel node ready";
    static final String FRONTEND_READY = "gargamel frontend ready";
    /** The front end's process name (its log, its JVM options). */
    private static final String FRONTEND = "frontend";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** Extra options for the scheduler and node JVMs (profiling, say), split on spaces. */
    static final String CHILD_JAVA_OPTIONS_VARIABLE = "GARGAMEL_CHILD_JAVA_OPTS";

    private static final List<String> CHILD_JVM_OPTIONS = childJvmOptions(true);
    /**
     * The front end keeps both JIT tiers: its per-call work (Netty, the protocol, its client's JGroups) is what the
     * library does in the terminals' own JVM, which has C2, so pgwire and library runs compare like with like; with
     * C1 it spent more CPU per call than the library and lost about a tenth of the tpmC on a saturated machine
     * (docs/frontend.md).
     */
    private static final List<String> FRONTEND_JVM_OPTIONS = childJvmOptions(false);

    private static List<String> childJvmOptions(boolean c1Only) {
        // C1 only: these JVMs live for one run on the same cores as PostgreSQL and each other, and C2 compiling
        // JGroups, pgjdbc and Jackson took most of their CPU for the first 30 s of a run; with C1 alone a 20 s run of
        // one replica at 4 warehouses made 11,460 tpmC against 7,923 (docs/node.md). Long-lived deployments
        // (`scripts/gargamel node`) keep the default tiers.
        List<String> options = new ArrayList<>(List.of("-Xmx768m", "-XX:+UseSerialGC"));
        if (c1Only) {
            options.add("-XX:TieredStopAtLevel=1");
        }
        options.add("-Djava.net.preferIPv4Stack=true");
        String extra = System.getenv(CHILD_JAVA_OPTIONS_VARIABLE);
        if (extra != null && !extra.isBlank()) {
            options.addAll(List.of(extra.trim().split("\\s+")));
        }
        return List.copyOf(options);
    }

    private final ClusterPlan plan;
    private final List<ChildProcess> processes = new CopyOnWriteArrayList<>();
    /** How each process was started, by name, to start it again after a fault ({@link #restart}). */
    private final Map<String, Launch> launches = new ConcurrentHashMap<>();
    /** Processes this cluster killed on purpose and has not started again: their death is not a failure. */
    private final Set<String> downOnPurpose = ConcurrentHashMap.newKeySet();

    private final List<Path> statisticsFiles = new ArrayList<>();
    private final List<Runnable> failureListeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile String failure;
    private GargamelClient client;
    private Thread monitor;
    /** The port the front end listens on, once started; 0 without one. */
    private volatile int frontendPort;

    private record Launch(List<String> arguments, Path log, String readyMarker) {}

    private LocalGargamelCluster(ClusterPlan plan) {
        this.plan = plan;
    }

    /** Starts the scheduler and the nodes, waits until the scheduler sees every node, and connects the client. */
    public static LocalGargamelCluster start(ClusterPlan plan, PrintStream err)
            throws IOException, InterruptedException {
        LocalGargamelCluster cluster = new LocalGargamelCluster(plan);
        try {
            cluster.launch(err);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void launch(PrintStream err) throws IOException, InterruptedException {
        Path directory = Files.createDirectories(plan.directory());
        List<String> schedulerNames = plan.schedulerNames();
        int[] schedulerPorts = new int[schedulerNames.size()];
        List<String> controlHosts = new ArrayList<>();
        for (int i = 0; i < schedulerPorts.length; i++) {
            schedulerPorts[i] = LoopbackPorts.pick();
            controlHosts.add("127.0.0.1:" + schedulerPorts[i]);
        }
        int[] controlPorts = new int[plan.replicas()];
        int[] writeSetPorts = new int[plan.replicas()];
        List<String> writeSetHosts = new ArrayList<>();
        for (int i = 0; i < plan.replicas(); i++) {
            controlPorts[i] = LoopbackPorts.pick();
            writeSetPorts[i] = LoopbackPorts.pick();
            controlHosts.add("127.0.0.1:" + controlPorts[i]);
            writeSetHosts.add("127.0.0.1:" + writeSetPorts[i]);
        }
        // A fresh secret per run: the cluster's groups are authenticated and encrypted unless switched off for a
        // measurement (docs/protocol.md, Cluster security).
        Path secret = securityOff() ? null : ClusterSecurity.writeNewSecret(directory.resolve("cluster.secret"));
        Map<String, Object> security = secret == null
                ? null
                : Map.of("secretFile", secret.toAbsolutePath().toString());
        err.printf(
                "starting %s and %d node(s) (logs in %s) ...%n",
                schedulerNames.size() == 1 ? "the scheduler" : schedulerNames.size() + " schedulers (one standing by)",
                plan.replicas(),
                directory);
        // One after the other: the first to join is the active one, the others stand by (docs/protocol.md).
        for (int i = 0; i < schedulerNames.size(); i++) {
            String name = schedulerNames.get(i);
            Map<String, Object> scheduler = new LinkedHashMap<>();
            scheduler.put("control", Map.of("bind", "127.0.0.1:" + schedulerPorts[i], "initialHosts", controlHosts));
            scheduler.put("rules", plan.rules().toAbsolutePath().toString());
            scheduler.put("mode", plan.mode().configName());
            scheduler.put("isolation", plan.isolation().configName());
            if (security != null) {
                scheduler.put("clusterSecurity", security);
            }
            Path schedulerConfig = directory.resolve(name + ".yaml");
            ConfigFiles.write(schedulerConfig, scheduler);
            ChildProcess schedulerProcess = launch(
                    name,
                    new Launch(
                            List.of("scheduler", "--config", schedulerConfig.toString()),
                            directory.resolve(name + ".log"),
                            SCHEDULER_READY));
            awaitReady(schedulerProcess, SCHEDULER_READY, 0);
        }

        List<ChildProcess> nodes = new ArrayList<>();
        for (int i = 0; i < plan.replicas(); i++) {
            String name = "node-" + (i + 1);
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("name", name);
            node.put("jdbcUrl", plan.jdbcUrls().get(i));
            node.put("workers", plan.workers());
            node.put("appliers", plan.appliers());
            node.put("applyGroup", plan.applyGroup());
            node.put("rules", plan.rules().toAbsolutePath().toString());
            node.put("mode", plan.mode().configName());
            node.put("isolation", plan.isolation().configName());
            node.put("control", Map.of("bind", "127.0.0.1:" + controlPorts[i], "initialHosts", controlHosts));
            node.put("writeSets", Map.of("bind", "127.0.0.1:" + writeSetPorts[i], "initialHosts", writeSetHosts));
            node.put("replicas", plan.nodeNames());
            Path dataDir = directory.resolve(name + "-data");
            // A local cluster always starts a new write-set log. A copy an earlier run left in this directory (the
            // same --out) would be replayed into these databases, which never held it.
            Directories.deleteRecursively(dataDir);
            node.put("dataDir", dataDir.toAbsolutePath().toString());
            node.put("logFsync", plan.durableLog());
            List<String> peers = new ArrayList<>(plan.jdbcUrls());
            peers.remove(i);
            node.put("peers", peers); // to rebuild from, should this replica ever hold what they do not
            Path statistics = directory.resolve(name + "-stats.json");
            Files.deleteIfExists(statistics);
            statisticsFiles.add(statistics);
            node.put("statsFile", statistics.toString());
            if (security != null) {
                node.put("clusterSecurity", security);
            }
            Path config = directory.resolve(name + ".yaml");
            ConfigFiles.write(config, node);
            nodes.add(launch(
                    name,
                    new Launch(
                            List.of("node", "--config", config.toString()),
                            directory.resolve(name + ".log"),
                            NODE_READY)));
        }
        for (ChildProcess node : nodes) {
            awaitReady(node, NODE_READY, 0);
        }
        try {
            client = GargamelClient.connect(
                    GroupConfig.tcp("127.0.0.1", 0, schedulerHosts(schedulerPorts))
                            .withSecurity(secret == null ? null : ClusterSecurity.fromSecretFile(secret)),
                    ClientOptions.defaults());
            client.awaitNodes(plan.replicas(), START_TIMEOUT);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "the cluster did not come together: " + e.getMessage() + "; see the logs in " + directory, e);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot connect to the scheduler: " + e.getMessage(), e);
        }
        if (plan.frontend() != null) {
            launchFrontend(directory, controlHosts, security);
        }
        monitor = new Thread(this::watch, "cluster-monitor");
        monitor.setDaemon(true);
        monitor.start();
    }

    /**
     * The front end, a client of the control group like the library: started once the nodes serve, so that its
     * first clients find a cluster. Its configuration holds the password (the front end keeps only a verifier of it),
     * so the file is readable by its owner only.
     */
    private void launchFrontend(Path directory, List<String> controlHosts, Map<String, Object> security)
            throws IOException, InterruptedException {
        FrontendPlan frontend = plan.frontend();
        int port = frontend.port() == 0 ? LoopbackPorts.pick() : frontend.port();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("listen", frontend.host() + ":" + port);
        config.put("control", Map.of("bind", "127.0.0.1:" + LoopbackPorts.pick(), "initialHosts", controlHosts));
        config.put("rules", plan.rules().toAbsolutePath().toString());
        if (frontend.trust()) {
            config.put("authentication", "trust");
        } else {
            config.put("users", List.of(Map.of("name", frontend.user(), "password", frontend.password())));
        }
        if (frontend.catalog() != null) {
            config.put("catalog", frontend.catalog());
        }
        if (security != null) {
            config.put("clusterSecurity", security);
        }
        Path file = directory.resolve("frontend.yaml");
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory's own protection is all there is.
        }
        ConfigFiles.write(file, config);
        ChildProcess process = launch(
                FRONTEND,
                new Launch(
                        List.of("frontend", "--config", file.toString()),
                        directory.resolve("frontend.log"),
                        FRONTEND_READY));
        awaitReady(process, FRONTEND_READY, 0);
        frontendPort = port;
    }

    /** The port the front end listens on; an IllegalStateException when the plan has none. */
    public int frontendPort() {
        if (frontendPort == 0) {
            throw new IllegalStateException("this cluster runs no front end");
        }
        return frontendPort;
    }

    private ChildProcess launch(String name, Launch launch) throws IOException {
        ChildProcess process = ChildProcess.startJava(
                name,
                ServerClassPath.get(),
                MAIN_CLASS,
                launch.arguments(),
                name.equals(FRONTEND) ? FRONTEND_JVM_OPTIONS : CHILD_JVM_OPTIONS,
                launch.log());
        launches.put(name, launch);
        processes.add(process);
        return process;
    }

    /**
     * {@value #SECURITY_VARIABLE}{@code =off} starts the cluster with open groups, to measure what security costs;
     * anything else, or nothing, secures them.
     */
    private static boolean securityOff() {
        return "off".equalsIgnoreCase(System.getenv(SECURITY_VARIABLE));
    }

    /** Environment variable that turns the groups' security off for a run (measurements only). */
    public static final String SECURITY_VARIABLE = "GARGAMEL_CLUSTER_SECURITY";

    private static List<InetSocketAddress> schedulerHosts(int[] ports) {
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int port : ports) {
            hosts.add(InetSocketAddress.createUnresolved("127.0.0.1", port));
        }
        return hosts;
    }

    /** The names of the schedulers' processes (scheduler, scheduler-2, ...): the first one started is active. */
    public List<String> schedulerNames() {
        return plan.schedulerNames();
    }

    /** The names of the nodes' processes (node-1, ...), in order. */
    public List<String> nodeNames() {
        return plan.nodeNames();
    }

    /**
     * The pids of the running processes by role ({@code scheduler}, {@code nodes}, {@code frontend}), for the run's CPU
     * accounting ({@code ProcessCpuMeter}).
     */
    public Map<String, List<Long>> processIdsByRole() {
        Map<String, List<Long>> byRole = new LinkedHashMap<>();
        for (ChildProcess process : processes) {
            String role = process.name().equals(FRONTEND)
                    ? "frontend"
                    : plan.nodeNames().contains(process.name()) ? "nodes" : "scheduler";
            byRole.computeIfAbsent(role, r -> new ArrayList<>()).add(process.pid());
        }
        return byRole;
    }

    /**
     * Kills process {@code name} (scheduler or node-N) with SIGKILL, as a crash would: no shutdown hook runs, nothing is
     * flushed. Its death is not a failure of the cluster; {@link #restart} starts it again. Returns its pid.
     */
    public long kill(String name) throws InterruptedException {
        ChildProcess process = process(name);
        downOnPurpose.add(name);
        process.kill();
        return process.pid();
    }

    /**
     * Starts process {@code name} again with the same command and configuration (its log goes on in the same file) and
     * waits until it says it is ready; a node is ready once it has caught up with the write-set log.
     */
    public void restart(String name) throws IOException, InterruptedException {
        Launch launch = launches.get(name);
        if (launch == null) {
            throw new IllegalArgumentException("no process named " + name + " (known: " + launches.keySet() + ")");
        }
        ChildProcess old = process(name);
        if (old.isAlive()) {
            throw new IllegalStateException(name + " (pid " + old.pid() + ") is still running");
        }
        long logLength = Files.exists(launch.log()) ? Files.size(launch.log()) : 0;
        processes.remove(old);
        ChildProcess started = launch(name, launch);
        awaitReady(started, launch.readyMarker(), logLength);
        downOnPurpose.remove(name);
    }

    private ChildProcess process(String name) {
        for (ChildProcess process : processes) {
            if (process.name().equals(name)) {
                return process;
            }
        }
        throw new IllegalArgumentException("no process named " + name);
    }

    /** An executor for a terminal; all share this cluster's client. */
    @Override
    public CallExecutor executor() {
        return new GargamelExecutor(client);
    }

    @Override
    public GargamelClient client() {
        return client;
    }

    /** Called (once) if a process of the cluster dies before {@link #stop()}. */
    @Override
    public void onFailure(Runnable listener) {
        failureListeners.add(listener);
    }

    /** Why the cluster failed during the run, or null. */
    @Override
    public String failure() {
        return failure;
    }

    @Override
    public void awaitQuiescence(Duration timeout) throws InterruptedException {
        try {
            client.awaitQuiescence(timeout);
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage() + "; see the logs in " + plan.directory(), e);
        }
    }

    /** Stops the client and the processes (the nodes write their statistics) and returns those statistics. */
    @Override
    public ClusterStatistics stop() {
        close();
        return ClusterStatistics.read(statisticsFiles);
    }

    @Override
    public void close() {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        if (client != null) {
            client.close();
        }
        // Nodes first (they flush statistics), then the scheduler; in parallel, each SIGTERM then SIGKILL.
        List<Thread> stoppers = new ArrayList<>();
        for (ChildProcess process : processes) {
            Thread stopper = new Thread(() -> process.stop(Duration.ofSeconds(15)), "stop-" + process.name());
            stopper.start();
            stoppers.add(stopper);
        }
        for (Thread stopper : stoppers) {
            try {
                stopper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String logSince(Path log, long from) throws IOException {
        byte[] all = Files.readAllBytes(log);
        int start = (int) Math.min(from, all.length);
        return new String(all, start, all.length - start, StandardCharsets.UTF_8);
    }

    private void watch() {
        while (!stopping.get()) {
            for (ChildProcess process : processes) {
                if (!process.isAlive() && !stopping.get() && !downOnPurpose.contains(process.name())) {
                    failure = process.name() + " (pid " + process.pid() + ") exited unexpectedly with code "
                            + process.exitCode() + "; last lines of " + process.log() + ":\n" + process.tail(15);
                    failureListeners.forEach(Runnable::run);
                    return;
                }
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Waits until the process's log says {@code marker} after its first {@code from} bytes (earlier runs' lines). */
    private void awaitReady(ChildProcess process, String marker, long from) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                if (Files.exists(process.log()) && logSince(process.log(), from).contains(marker)) {
                    return;
                }
            } catch (IOException e) {
                // Not written yet.
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " failed to start (exit code " + process.exitCode()
                        + "); last lines of " + process.log() + ":\n" + process.tail(15));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(process.name() + " did not start within " + START_TIMEOUT.toSeconds()
                        + " s; last lines of " + process.log() + ":\n" + process.tail(15));
            }
            Thread.sleep(100);
        }
    }
}
