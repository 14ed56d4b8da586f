package org.gargamel.launcher.e2e;

import static org.gargamel.launcher.e2e.HandStartedCluster.tail;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real partitions, as a user runs Gargamel by hand ({@link HandStartedCluster}: schedulers and three nodes each in a
 * network namespace of its own, started with {@code gargamel scheduler/node --config}; TPC-C driven from this host
 * with {@code tpcc run --scheduler}). A node's link is taken down mid-run long enough for the others to suspect it
 * (about 8 s with the failure detection of {@code Channels}), then brought back. At the end every acknowledged
 * New-Order is on every replica, none twice, and the replicas are identical and consistent. The active scheduler's
 * link is cut by {@link SchedulerPartitionIT}, a class of its own so that the two run at once (failsafe runs two
 * end-to-end classes at a time).
 */
@Tag("e2e")
class PartitionIT {
    /**
     * Node-3's link goes down for 20 s: the others see it leave and settle its calls without it (thesis Alg 4), it
     * cannot extend the write-set log alone, and when the link comes back it merges, catches up (or is rebuilt from a
     * peer if it committed what the log abandoned) and serves again.
     */
    @Test
    void aNodeCutOffByAPartitionIsSettledWithoutItAndComesBackIdentical(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        try (HandStartedCluster cluster = HandStartedCluster.start(directory, 1, "node-cut")) {
            Path out = directory.resolve("result");
            GargamelProcess run = cluster.startRun(out, "55s"); // 10 s, the 20 s cut, then the node rejoins
            run.awaitOutput("running TPC-C", 120);
            Thread.sleep(10_000);
            cluster.network().cut(3);
            Thread.sleep(20_000);
            cluster.network().heal(3);
            GargamelProcess scheduler = cluster.scheduler(1);
            GargamelProcess node3 = cluster.node(3);
            String silent = awaitServingAgain(node3, scheduler, cluster.logDirectory());
            // Every process's end, not only node-3's: another node may also leave and rejoin at the merge.
            String diagnosis = HandStartedCluster.finishRun(run, out, cluster.tails(15_000));
            String schedulerLog = scheduler.output();
            assertTrue(
                    schedulerLog.contains("node-3") && schedulerLog.contains("left the cluster"),
                    "the scheduler saw node-3 leave: " + tail(schedulerLog) + diagnosis);
            assertTrue(
                    node3.output().lastIndexOf("serving at") > node3.output().indexOf("serving at"),
                    "node-3 served again after the partition: " + tail(node3.output()) + silent);
        }
    }

    /**
     * Waits up to 2 minutes for node-3 to say "serving at" a second time. If it does not, the threads of node-3 and of
     * the scheduler are dumped (and kept with the attempt's logs) while the processes still run: a node that stays
     * silent after a heal shows there what it waits for. Returns that diagnosis, or "" if node-3 served again.
     */
    private static String awaitServingAgain(GargamelProcess node3, GargamelProcess scheduler, Path logs)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (node3.occurrences("serving at") < 2) {
            if (System.nanoTime() > deadline || !node3.process.isAlive()) {
                String dumps = "\n--- node-3 threads:\n" + node3.threadDump() + "\n--- scheduler threads:\n"
                        + scheduler.threadDump();
                Path kept = logs.resolve("node-cut-thread-dumps.txt");
                Files.createDirectories(logs);
                Files.writeString(kept, dumps);
                System.out.println("node-3 did not serve again within 2 minutes of the heal; thread dumps in " + kept);
                return dumps;
            }
            Thread.sleep(500);
        }
        return "";
    }
}
