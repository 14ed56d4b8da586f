package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.launcher.cluster.NetworkNamespaces;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;

/**
 * Gargamel as a user runs it by hand, for the partition tests: {@value #NODES} nodes and one or more schedulers, each in
 * a network namespace of its own (its own address on a {@link NetworkNamespaces} bridge, so its link can be cut), started
 * with {@code gargamel scheduler/node --config}, on embedded PostgreSQL servers loaded with one TPC-C warehouse. Node
 * {@code i} lives in namespace {@code i}, scheduler {@code j} in namespace {@code NODES + j}; the schedulers start in
 * order, so scheduler 1 is the active one and the others stand by. TPC-C is driven from this host ({@link
 * #startRun}). {@link #close} ends every process, keeps their output in {@code target/partition-it/NAME/ATTEMPT} (one
 * directory per cluster started, so a rerun keeps the failed attempt's logs), and
 * removes the databases, namespaces, veth pairs and the bridge, also after a failure.
 */
final class HandStartedCluster implements AutoCloseable {
    static final int NODES = 3;

    private final Path directory;
    private final Path logs;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<GargamelProcess> processes = new ArrayList<>();
    private final List<GargamelProcess> schedulers = new ArrayList<>();
    private final List<GargamelProcess> nodes = new ArrayList<>();
    private final List<String> schedulerAddresses = new ArrayList<>();
    private NetworkNamespaces network;
    private PostgresCluster databases;

    private HandStartedCluster(Path directory, String name) {
        this.directory = directory;
        this.logs = attemptDirectory(Path.of("target", "partition-it", name));
    }

    /** A new directory under {@code parent} for one attempt: its start time, and a number if that is taken. */
    private static Path attemptDirectory(Path parent) {
        String stamp = java.time.LocalDateTime.now(java.time.ZoneId.systemDefault())
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString()
                .replace(':', '-');
        Path candidate = parent.resolve(stamp);
        for (int n = 2; Files.exists(candidate); n++) {
            candidate = parent.resolve(stamp + "-" + n);
        }
        return candidate;
    }

    /** Loads the databases and starts {@code schedulerCount} schedulers, then the nodes; {@code name} names its logs. */
    static HandStartedCluster start(Path directory, int schedulerCount, String name) throws Exception {
        HandStartedCluster cluster = new HandStartedCluster(directory, name);
        try {
            cluster.build(schedulerCount);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void build(int schedulerCount) throws Exception {
        network = NetworkNamespaces.create(NODES + schedulerCount);
        resources.add(network);
        // One warehouse, seed 1 (tpcc load's default): copies of the build's snapshot, else loaded here.
        PrintStream loadProgress = System.err; // lent to the load, never closed
        databases = TpccDatabases.startEmbeddedLoaded(NODES, network.cidr(), 1, 1, loadProgress);
        resources.add(databases);

        Path rules = TpccRules.writeTo(directory);
        int schedulerPort = LoopbackPorts.pick();
        int controlPort = LoopbackPorts.pick();
        int logPort = LoopbackPorts.pick();
        List<String> controlHosts = new ArrayList<>();
        for (int j = 1; j <= schedulerCount; j++) {
            schedulerAddresses.add(network.address(schedulerHost(j)) + ":" + schedulerPort);
        }
        controlHosts.addAll(schedulerAddresses);
        List<String> logHosts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            controlHosts.add(network.address(i) + ":" + controlPort);
            logHosts.add(network.address(i) + ":" + logPort);
            names.add("node-" + i);
        }
        for (int j = 1; j <= schedulerCount; j++) {
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("control", Map.of("bind", schedulerAddresses.get(j - 1), "initialHosts", controlHosts));
            config.put("rules", rules.toString());
            // Open groups on purpose: the test's own namespaces, and tpcc run --scheduler takes no secret.
            config.put("clusterSecurity", Map.of("open", true));
            Path file = directory.resolve("scheduler-" + j + ".yaml");
            ConfigFiles.write(file, config);
            GargamelProcess scheduler = startIn(schedulerHost(j), "scheduler-" + j, "scheduler", file);
            schedulers.add(scheduler);
            scheduler.awaitOutput("gargamel scheduler ready", 60);
            if (j > 1) {
                scheduler.awaitOutput("standing by", 30); // scheduler 1 stays the active one
            }
        }
        for (int i = 1; i <= NODES; i++) {
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("name", "node-" + i);
            node.put("jdbcUrl", databases.jdbcUrl(i - 1, network.bridgeAddress()));
            node.put("workers", 4);
            node.put("rules", rules.toString());
            node.put("control", Map.of("bind", network.address(i) + ":" + controlPort, "initialHosts", controlHosts));
            node.put("writeSets", Map.of("bind", network.address(i) + ":" + logPort, "initialHosts", logHosts));
            node.put("replicas", names);
            node.put("dataDir", directory.resolve("node-" + i + "-data").toString());
            List<String> peers = new ArrayList<>();
            for (int k = 1; k <= NODES; k++) {
                if (k != i) {
                    peers.add(databases.jdbcUrl(k - 1, network.bridgeAddress()));
                }
            }
            node.put("peers", peers);
            node.put("clusterSecurity", Map.of("open", true)); // as the schedulers'
            Path file = directory.resolve("node-" + i + ".yaml");
            ConfigFiles.write(file, node);
            nodes.add(startIn(i, "node-" + i, "node", file));
        }
        for (GargamelProcess node : nodes) {
            node.awaitOutput("gargamel node ready", 180);
        }
    }

    private GargamelProcess startIn(int host, String process, String command, Path config) throws IOException {
        GargamelProcess started = GargamelProcess.startIn(
                network.inNamespace(host),
                Files.createDirectories(directory.resolve(process)),
                command,
                "--config",
                config.toString());
        processes.add(started);
        return started;
    }

    /**
     * Starts {@code tpcc run --scheduler ...} (every scheduler's address, so the client finds the group through any of
     * them) from this host for {@code duration}, writing {@code out/result.json}.
     */
    GargamelProcess startRun(Path out, String duration) throws IOException {
        List<String> tpcc = new ArrayList<>(List.of("tpcc", "run"));
        for (String scheduler : schedulerAddresses) {
            tpcc.add("--scheduler");
            tpcc.add(scheduler);
        }
        tpcc.addAll(List.of(
                "--bind",
                network.bridgeAddress(),
                "--warehouses",
                "1",
                "--terminals",
                "8",
                "--duration",
                duration,
                "--seed",
                "5",
                "--out",
                out.toString()));
        tpcc.addAll(replicas());
        GargamelProcess run =
                GargamelProcess.start(Files.createDirectories(directory.resolve("run")), tpcc.toArray(String[]::new));
        processes.add(run);
        return run;
    }

    NetworkNamespaces network() {
        return network;
    }

    /** Scheduler {@code j} (1-based, in start order: 1 is the active one at first). */
    GargamelProcess scheduler(int j) {
        return schedulers.get(j - 1);
    }

    /** The namespace scheduler {@code j} runs in, to cut its link. */
    int schedulerHost(int j) {
        return NODES + j;
    }

    /** Node {@code i} (1-based), in namespace {@code i}. */
    GargamelProcess node(int i) {
        return nodes.get(i - 1);
    }

    /** The replicas, for the load and the run's checks: --jdbc-url URL, for each. */
    private List<String> replicas() {
        List<String> arguments = new ArrayList<>();
        for (String url : databases.jdbcUrls()) {
            arguments.add("--jdbc-url");
            arguments.add(url);
        }
        return arguments;
    }

    /** The end of a process's output for a failure message: long enough to show a whole partition and its merge. */
    static String tail(String text) {
        return tail(text, 30_000);
    }

    /** The last {@code characters} of {@code text}. */
    static String tail(String text, int characters) {
        return text.length() <= characters ? text : "..." + text.substring(text.length() - characters);
    }

    /**
     * The end of every scheduler's and node's output, each under a header, for a failure message (where the logs are
     * kept too).
     */
    String tails(int characters) {
        StringBuilder text = new StringBuilder("\n(every process's whole output: " + logs.toAbsolutePath() + ")");
        for (int j = 1; j <= schedulers.size(); j++) {
            text.append("\n--- scheduler-")
                    .append(j)
                    .append(":\n")
                    .append(tail(scheduler(j).output(), characters));
        }
        for (int i = 1; i <= nodes.size(); i++) {
            text.append("\n--- node-").append(i).append(":\n").append(tail(node(i).output(), characters));
        }
        return text.toString();
    }

    @Override
    public void close() throws IOException {
        for (GargamelProcess process : processes) {
            process.process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.process.destroyForcibly();
        }
        for (GargamelProcess process : processes) {
            try {
                process.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            keepLogs();
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                try {
                    resources.get(i).close();
                } catch (Exception e) {
                    // Best effort: the next one is still worth removing.
                }
            }
        }
    }

    /**
     * Where this cluster's processes' output is kept: {@code target/partition-it/NAME/ATTEMPT}, one directory per
     * cluster started (a timestamp and a number), so a rerun of a failed test does not overwrite the failed attempt's
     * logs.
     */
    Path logDirectory() {
        return logs;
    }

    /** The processes' output, kept in {@link #logDirectory} (the temporary directory goes), to read after a run. */
    private void keepLogs() throws IOException {
        Path kept = Files.createDirectories(logs);
        try (var files = Files.walk(directory)) {
            for (Path file : files.filter(f -> f.getFileName().toString().equals("output.log"))
                    .toList()) {
                Files.copy(
                        file,
                        kept.resolve(file.getParent().getFileName() + ".log"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Waits for the run, checks its result (exit 0, every acknowledged order there once, replicas identical). */
    static String finishRun(GargamelProcess run, Path out, String logs) throws Exception {
        int exit = run.waitFor(8, TimeUnit.MINUTES);
        String diagnosis = "\n" + run.output() + "\n" + logs;
        assertEquals(0, exit, diagnosis);
        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertTrue(result.get("acknowledgedNewOrders").asLong() > 100, diagnosis);
        assertEquals(0, result.get("acknowledgedMissing").asLong(), diagnosis);
        assertEquals(0, result.get("duplicateOrders").asLong(), diagnosis);
        assertTrue(result.get("consistency").get("passed").asBoolean(), diagnosis);
        assertTrue(result.get("convergence").get("identical").asBoolean(), diagnosis);
        return diagnosis;
    }
}
