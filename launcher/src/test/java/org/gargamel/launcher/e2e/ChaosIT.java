package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short chaos run of the test command: {@code gargamel chaos} from the all-in-one jar runs TPC-C on three embedded
 * replicas while node processes, the nodes' PostgreSQL servers and the scheduler are killed with SIGKILL and started
 * again (the node with the same command; a node whose database died fences itself and starts again once it is back;
 * a new scheduler takes over through the write-set log and the clients resubmit their pending calls), and a node is
 * cut off the network (each node in a network namespace of its own: the test runs as root, as PartitionIT does) and
 * merges back. Every call gets its
 * one outcome (a killed node's calls are answered from the log or run again on the survivors), every acknowledged
 * New-Order is on every replica, none ran twice, the restarted nodes caught up, and the replicas are identical and
 * consistent at the end.
 */
@Tag("e2e")
class ChaosIT {

    @Test
    void nodesDatabasesAndTheSchedulerKilledDuringTpccLoseNothingAndDivergeNowhere(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        GargamelProcess chaos = GargamelProcess.start(
                directory,
                "chaos",
                "--warehouses",
                "1",
                "--terminals",
                "8",
                "--duration",
                "110s",
                "--interval",
                "5s",
                "--downtime",
                "2s",
                "--seed",
                "11",
                "--fault-seed",
                "3",
                // The quick faults first, so that the 110 s hold one of each kind: in CI, beside PartitionIT, a fault
                // took up to 23 s to heal and 50 s held only two; a partition takes the longest (the others suspect
                // the node after about 8 s, and it merges back after the downtime).
                "--kinds",
                "scheduler,postgres,node,partition",
                // Sampled as soak samples: the sampler follows a process killed and started again under its new pid.
                "--sample-every",
                "5s",
                "--out",
                out.toString());
        List<ProcessHandle> children = Orphans.watchDescendants(chaos.process);
        int exit = chaos.waitFor(6, TimeUnit.MINUTES);
        String output = chaos.output();
        assertEquals(0, exit, output);

        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        JsonNode faults = result.get("faults");
        assertTrue(faults.size() >= 4, "a fault of each kind: " + faults);
        java.util.Set<String> kinds = new java.util.TreeSet<>();
        for (JsonNode fault : faults) {
            kinds.add(fault.get("kind").asText());
            assertTrue(fault.get("pid").asLong() > 0, fault.toString());
            assertTrue(
                    fault.get("rejoinedAfterMs").asLong()
                            >= fault.get("recoveredAfterMs").asLong(),
                    fault.toString());
            assertTrue(fault.get("error") == null, fault.toString());
        }
        assertEquals(java.util.Set.of("node", "partition", "postgres", "scheduler"), kinds, faults.toString());
        assertEquals(0, result.get("errors").asLong(), "no call failed: " + output);
        assertTrue(result.get("acknowledgedNewOrders").asLong() > 100, output);
        assertEquals(0, result.get("acknowledgedMissing").asLong(), output);
        assertEquals(0, result.get("duplicateOrders").asLong(), output);
        assertTrue(result.get("consistency").get("passed").asBoolean(), output);
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        assertTrue(output.contains("killed node-"), output);
        assertTrue(output.contains("killed the PostgreSQL of node-"), output);
        assertTrue(output.contains("killed scheduler"), output);
        assertTrue(output.contains("off the network"), output);

        JsonNode resources =
                new ObjectMapper().readTree(out.resolve("resources.json").toFile());
        JsonNode samples = resources.get("samples");
        assertTrue(samples.size() >= 12, "a sample every 5 s for 110 s: " + samples.size());
        java.util.Map<String, java.util.Set<Long>> pids = new java.util.TreeMap<>();
        for (JsonNode sample : samples) {
            sample.get("processes").properties().forEach(process -> {
                pids.computeIfAbsent(process.getKey(), name -> new java.util.TreeSet<>())
                        .add(process.getValue().get("pid").asLong());
                assertTrue(process.getValue().get("threads").asInt() > 0, process.toString());
                assertTrue(process.getValue().get("openFiles").asInt() > 0, process.toString());
            });
            assertTrue(sample.get("dataDirectoryBytes").get("node-1").asLong() > 0, sample.toString());
        }
        assertTrue(
                pids.keySet().containsAll(java.util.List.of("client", "scheduler", "node-1", "node-2", "node-3")),
                pids.toString());
        assertTrue(
                pids.entrySet().stream()
                        .anyMatch(e ->
                                e.getKey().startsWith("node-") && e.getValue().size() > 1),
                "the killed node followed under its new pid: " + pids);
        assertTrue(
                samples.get(samples.size() - 1)
                                .get("processes")
                                .get("node-1")
                                .get("heapAfterGcBytes")
                                .asLong()
                        > 0,
                "a node's heap read through its attach socket");
        assertTrue(output.contains("heap after GC"), output);
        assertTrue(java.nio.file.Files.size(out.resolve("resources.svg")) > 1000);

        Orphans.assertAllGone(children, output);
    }
}
