package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The child JVMs of a {@link LocalGargamelCluster}, by name: how each was started (to start it again), which are down
 * on purpose, a watcher that reports the first to die otherwise, waiting for a process to say it is ready, and
 * stopping them all.
 *
 * <p>Invariant: a process found dead while the cluster is not stopping and that was not killed on purpose is a
 * failure, reported once ({@link #failure}) to every listener; a process {@link #kill}ed is down on purpose until
 * {@link #restart} has seen it ready again.
 */
final class ChildProcesses {
    /** The scheduler and nodes run the server entry point, from gargamel-server.jar (see {@link ServerClassPath}). */
    static final String MAIN_CLASS = "org.gargamel.launcher.server.ServerMain";
    /** The front end's process name (its log, its JVM options). */
    static final String FRONTEND = "frontend";

    static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /**
     * The front end keeps both JIT tiers whatever the plan says: its per-call work (Netty, the protocol, its client's
     * JGroups) is what the library does in the terminals' own JVM, which has C2, so pgwire and library runs compare
     * like with like; with C1 it spent more CPU per call than the library and lost about a tenth of the tpmC on a
     * saturated machine (docs/frontend.md).
     */
    private static final List<String> FRONTEND_JVM_OPTIONS = childJvmOptions(ChildJit.SERVER);

    /** The scheduler's and the nodes' JVM options, with the JIT the cluster's plan chose. */
    private final List<String> childJvmOptions;

    /** The children of a cluster whose scheduler and node JVMs compile with {@code jit}. */
    ChildProcesses(ChildJit jit) {
        this.childJvmOptions = childJvmOptions(jit);
    }

    private static List<String> childJvmOptions(ChildJit jit) {
        List<String> options = new ArrayList<>(List.of("-Xmx768m", "-XX:+UseSerialGC"));
        options.addAll(jit.jvmOptions());
        options.add("-Djava.net.preferIPv4Stack=true");
        String extra = System.getenv(ChildJit.OPTIONS_VARIABLE);
        if (extra != null && !extra.isBlank()) {
            options.addAll(List.of(extra.trim().split("\\s+")));
        }
        return List.copyOf(options);
    }

    /** The JVM options process {@code name} starts with. */
    List<String> jvmOptions(String name) {
        return name.equals(FRONTEND) ? FRONTEND_JVM_OPTIONS : childJvmOptions;
    }

    /**
     * How a process is started: what its java command runs under (nothing, or {@code ip netns exec NS}: {@link
     * ClusterNetwork#launchPrefix}), its arguments, its log, and the line that says it is ready.
     */
    record Launch(List<String> prefix, List<String> arguments, Path log, String readyMarker) {}

    private final List<ChildProcess> processes = new CopyOnWriteArrayList<>();
    /** How each process was started, by name, to start it again after a fault ({@link #restart}). */
    private final Map<String, Launch> launches = new ConcurrentHashMap<>();
    /** Processes killed on purpose and not started again: their death is not a failure. */
    private final Set<String> downOnPurpose = ConcurrentHashMap.newKeySet();

    private final List<Runnable> failureListeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile String failure;
    private Thread monitor;

    /** Starts process {@code name} as {@code launch} says, from gargamel-server.jar. */
    ChildProcess start(String name, Launch launch) throws IOException {
        ChildProcess process = ChildProcess.startJava(
                name,
                launch.prefix(),
                ServerClassPath.get(),
                MAIN_CLASS,
                launch.arguments(),
                jvmOptions(name),
                launch.log());
        launches.put(name, launch);
        processes.add(process);
        return process;
    }

    /** Starts the thread that watches for a process's death until {@link #beginStopping}. */
    void startWatching() {
        monitor = new Thread(this::watch, "cluster-monitor");
        monitor.setDaemon(true);
        monitor.start();
    }

    /** See {@link LocalGargamelCluster#processIdsByRole}; {@code nodeNames}: which processes are nodes. */
    Map<String, List<Long>> processIdsByRole(List<String> nodeNames) {
        Map<String, List<Long>> byRole = new LinkedHashMap<>();
        for (ChildProcess process : processes) {
            String role = process.name().equals(FRONTEND)
                    ? "frontend"
                    : nodeNames.contains(process.name()) ? "nodes" : "scheduler";
            byRole.computeIfAbsent(role, r -> new ArrayList<>()).add(process.pid());
        }
        return byRole;
    }

    /** See {@link LocalGargamelCluster#processIdsByName}. */
    Map<String, Long> processIdsByName() {
        Map<String, Long> byName = new LinkedHashMap<>();
        for (ChildProcess process : processes) {
            byName.put(process.name(), process.pid());
        }
        return byName;
    }

    /** See {@link LocalGargamelCluster#kill}. */
    long kill(String name) throws InterruptedException {
        ChildProcess process = process(name);
        downOnPurpose.add(name);
        process.kill();
        return process.pid();
    }

    /** See {@link LocalGargamelCluster#restart}. */
    void restart(String name) throws IOException, InterruptedException {
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
        ChildProcess started = start(name, launch);
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

    void onFailure(Runnable listener) {
        failureListeners.add(listener);
    }

    /** Why a process failed during the run, or null. */
    String failure() {
        return failure;
    }

    /** Marks the cluster as stopping (deaths are no longer failures); false if it already was. */
    boolean beginStopping() {
        return stopping.compareAndSet(false, true);
    }

    /** Stops every process in parallel, each SIGTERM then SIGKILL, and waits for them. */
    void stopAll() {
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
    void awaitReady(ChildProcess process, String marker, long from) throws InterruptedException {
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
