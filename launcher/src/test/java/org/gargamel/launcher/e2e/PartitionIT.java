package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real partition, as a user runs Gargamel by hand: the scheduler here, three nodes each in a network namespace of its
 * own (its own address on a bridge), started with {@code gargamel scheduler/node --config}; TPC-C driven with {@code
 * tpcc run --scheduler}. Mid-run node-3's link goes down for 20 s: the others see it leave and settle its calls
 * without it (thesis Alg 4), it cannot extend the write-set log alone, and when the link comes back it merges, catches
 * up (or is rebuilt from a peer if it committed what the log abandoned) and serves again. At the end every
 * acknowledged New-Order is on every replica, none twice, and the replicas are identical and consistent.
 */
@Tag("e2e")
class PartitionIT {
    private static final int NODES = 3;

    @Test
    void aNodeCutOffByAPartitionIsSettledWithoutItAndComesBackIdentical(@TempDir Path directory) throws Exception {
        List<GargamelProcess> servers = new ArrayList<>();
        try (TestNetwork network = TestNetwork.create(NODES);
                PostgresCluster databases = PostgresCluster.embedded(NODES, network.cidr())) {
            List<String> urls = databases.jdbcUrls();
            List<String> load = new ArrayList<>(List.of("tpcc", "load", "--warehouses", "1"));
            load.addAll(replicas(urls));
            GargamelProcess loading = GargamelProcess.start(
                    Files.createDirectories(directory.resolve("load")), load.toArray(String[]::new));
            assertEquals(0, loading.waitFor(4, TimeUnit.MINUTES), loading.output());

            Path rules = TpccRules.writeTo(directory);
            int schedulerPort = LoopbackPorts.pick();
            int controlPort = LoopbackPorts.pick();
            int logPort = LoopbackPorts.pick();
            String scheduler = network.bridgeAddress() + ":" + schedulerPort;
            List<String> controlHosts = new ArrayList<>(List.of(scheduler));
            List<String> logHosts = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= NODES; i++) {
                controlHosts.add(network.address(i) + ":" + controlPort);
                logHosts.add(network.address(i) + ":" + logPort);
                names.add("node-" + i);
            }
            Map<String, Object> schedulerConfig = new LinkedHashMap<>();
            schedulerConfig.put("control", Map.of("bind", scheduler, "initialHosts", controlHosts));
            schedulerConfig.put("rules", rules.toString());
            Path schedulerFile = directory.resolve("scheduler.yaml");
            ConfigFiles.write(schedulerFile, schedulerConfig);
            GargamelProcess schedulerProcess = GargamelProcess.start(
                    Files.createDirectories(directory.resolve("scheduler")),
                    "scheduler",
                    "--config",
                    schedulerFile.toString());
            servers.add(schedulerProcess);
            schedulerProcess.awaitOutput("gargamel scheduler ready", 60);

            List<GargamelProcess> nodes = new ArrayList<>();
            for (int i = 1; i <= NODES; i++) {
                Map<String, Object> node = new LinkedHashMap<>();
                node.put("name", "node-" + i);
                node.put("jdbcUrl", databases.jdbcUrl(i - 1, network.bridgeAddress()));
                node.put("workers", 4);
                node.put("rules", rules.toString());
                node.put(
                        "control",
                        Map.of("bind", network.address(i) + ":" + controlPort, "initialHosts", controlHosts));
                node.put("writeSets", Map.of("bind", network.address(i) + ":" + logPort, "initialHosts", logHosts));
                node.put("replicas", names);
                node.put("dataDir", directory.resolve("node-" + i + "-data").toString());
                List<String> peers = new ArrayList<>();
                for (int j = 1; j <= NODES; j++) {
                    if (j != i) {
                        peers.add(databases.jdbcUrl(j - 1, network.bridgeAddress()));
                    }
                }
                node.put("peers", peers);
                Path file = directory.resolve("node-" + i + ".yaml");
                ConfigFiles.write(file, node);
                GargamelProcess process = GargamelProcess.startIn(
                        network.inNamespace(i),
                        Files.createDirectories(directory.resolve("node-" + i)),
                        "node",
                        "--config",
                        file.toString());
                servers.add(process);
                nodes.add(process);
            }
            for (GargamelProcess node : nodes) {
                node.awaitOutput("gargamel node ready", 180);
            }

            Path out = directory.resolve("result");
            List<String> tpcc = new ArrayList<>(List.of(
                    "tpcc",
                    "run",
                    "--scheduler",
                    scheduler,
                    "--bind",
                    network.bridgeAddress(),
                    "--warehouses",
                    "1",
                    "--terminals",
                    "8",
                    "--duration",
                    "70s",
                    "--seed",
                    "5",
                    "--out",
                    out.toString()));
            tpcc.addAll(replicas(urls));
            GargamelProcess run = GargamelProcess.start(
                    Files.createDirectories(directory.resolve("run")), tpcc.toArray(String[]::new));
            run.awaitOutput("running TPC-C", 120);
            Thread.sleep(10_000);
            network.cut(3);
            Thread.sleep(20_000);
            network.heal(3);
            int exit = run.waitFor(8, TimeUnit.MINUTES);
            String output = run.output();
            String diagnosis = output + "\n--- scheduler:\n" + tail(schedulerProcess.output()) + "\n--- node-3:\n"
                    + tail(nodes.get(2).output());
            assertEquals(0, exit, diagnosis);

            JsonNode result =
                    new ObjectMapper().readTree(out.resolve("result.json").toFile());
            assertTrue(result.get("acknowledgedNewOrders").asLong() > 100, diagnosis);
            assertEquals(0, result.get("acknowledgedMissing").asLong(), diagnosis);
            assertEquals(0, result.get("duplicateOrders").asLong(), diagnosis);
            assertTrue(result.get("consistency").get("passed").asBoolean(), diagnosis);
            assertTrue(result.get("convergence").get("identical").asBoolean(), diagnosis);
            String schedulerLog = schedulerProcess.output();
            assertTrue(
                    schedulerLog.contains("node-3") && schedulerLog.contains("left the cluster"),
                    "the scheduler saw node-3 leave: " + tail(schedulerLog));
            assertTrue(
                    nodes.get(2).output().lastIndexOf("serving at")
                            > nodes.get(2).output().indexOf("serving at"),
                    "node-3 served again after the partition: "
                            + tail(nodes.get(2).output()));
        } finally {
            for (GargamelProcess server : servers) {
                server.process.descendants().forEach(ProcessHandle::destroyForcibly);
                server.process.destroyForcibly();
            }
            keepLogs(directory);
        }
    }

    /** The processes' output, kept in target/partition-it (the temporary directory goes), to read after a run. */
    private static void keepLogs(Path directory) throws java.io.IOException {
        Path kept = Files.createDirectories(Path.of("target", "partition-it"));
        try (var files = Files.walk(directory)) {
            for (Path file : files.filter(f -> f.getFileName().toString().equals("output.log"))
                    .toList()) {
                Files.copy(
                        file,
                        kept.resolve(file.getParent().getFileName() + ".log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** The replicas, for the load and the run's checks: --jdbc-url URL, for each. */
    private static List<String> replicas(List<String> urls) {
        List<String> arguments = new ArrayList<>();
        for (String url : urls) {
            arguments.add("--jdbc-url");
            arguments.add(url);
        }
        return arguments;
    }

    private static String tail(String text) {
        return text.length() <= 6000 ? text : text.substring(text.length() - 6000);
    }
}
