package org.gargamel.launcher.e2e;

import static org.gargamel.launcher.e2e.HandStartedCluster.tail;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real partitions, as a user runs Gargamel by hand ({@link HandStartedCluster}: schedulers and three nodes each in a
 * network namespace of its own, started with {@code gargamel scheduler/node --config}; TPC-C driven from this host
 * with {@code tpcc run --scheduler}). A link is taken down mid-run long enough for the others to suspect the member
 * behind it (about 8 s with the failure detection of {@code Channels}), then brought back. At the end every
 * acknowledged New-Order is on every replica, none twice, and the replicas are identical and consistent.
 */
@Tag("e2e")
class PartitionIT {
    private static final String READY_AGAIN = "(again, after being superseded)";
    private static final Pattern NODE_EPOCH = Pattern.compile("the log made \\S+ the active scheduler, epoch (\\d+)");
    private static final Pattern SCHEDULER_EPOCH =
            Pattern.compile("the write-set log made this scheduler the active one: epoch (\\d+)");

    /**
     * Node-3's link goes down for 20 s: the others see it leave and settle its calls without it (thesis Alg 4), it
     * cannot extend the write-set log alone, and when the link comes back it merges, catches up (or is rebuilt from a
     * peer if it committed what the log abandoned) and serves again.
     */
    @Test
    void aNodeCutOffByAPartitionIsSettledWithoutItAndComesBackIdentical(@TempDir Path directory) throws Exception {
        try (HandStartedCluster cluster = HandStartedCluster.start(directory, 1, "node-cut")) {
            Path out = directory.resolve("result");
            GargamelProcess run = cluster.startRun(out, "70s");
            run.awaitOutput("running TPC-C", 120);
            Thread.sleep(10_000);
            cluster.network().cut(3);
            Thread.sleep(20_000);
            cluster.network().heal(3);
            GargamelProcess scheduler = cluster.scheduler(1);
            GargamelProcess node3 = cluster.node(3);
            String silent = awaitServingAgain(node3, scheduler, cluster.logDirectory());
            // Every process's end, not only node-3's: another node may also leave and rejoin at the merge.
            String diagnosis = finish(run, out, cluster.tails(15_000));
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
     * The active scheduler's link goes down: the nodes and the standby suspect it, the standby claims an epoch in the
     * write-set log and serves, and the client resubmits its pending calls there. The old scheduler, alone, still takes
     * itself for the active one. When its link comes back the merged view lists the members sorted by address, so it
     * may come before the active scheduler or after it: either way the nodes tell it SUPERSEDED, it stops without
     * answering and {@code gargamel scheduler} starts a new one in the same process, which stands by. The run goes on
     * at the active scheduler alone: the nodes apply no claim after the take-over, and the old process, asked to stop
     * at the end, scheduled nothing since it came back.
     */
    @Test
    void theActiveSchedulerCutOffIsReplacedByTheStandbyAndStandsByOnceItIsBack(@TempDir Path directory)
            throws Exception {
        try (HandStartedCluster cluster = HandStartedCluster.start(directory, 2, "scheduler-cut")) {
            GargamelProcess old = cluster.scheduler(1);
            GargamelProcess standby = cluster.scheduler(2);
            Path out = directory.resolve("result");
            GargamelProcess run = cluster.startRun(out, "80s");
            run.awaitOutput("running TPC-C", 120);
            Thread.sleep(10_000);
            long cut = System.nanoTime();
            cluster.network().cut(cluster.schedulerHost(1));
            standby.awaitOutput("made this scheduler the active one", 60);
            double takeOver = secondsSince(cut);
            standby.awaitOutput("take-over done", 30);
            double serving = secondsSince(cut);
            Thread.sleep(5_000); // the standby serves alone for a while
            long healed = System.nanoTime();
            cluster.network().heal(cluster.schedulerHost(1));
            old.awaitOutput(READY_AGAIN, 90);
            double standingBy = secondsSince(healed);
            System.out.printf(
                    "scheduler partition: the standby was made active %.1f s after the cut and served after %.1f s; the"
                            + " old scheduler stood by again %.1f s after the link came back%n",
                    takeOver, serving, standingBy);

            String diagnosis = finish(run, out, cluster.tails(15_000));
            JsonNode result =
                    new ObjectMapper().readTree(out.resolve("result.json").toFile());
            assertEquals(0, result.get("errors").asLong(), "no call failed: " + result.get("firstError") + diagnosis);

            // The old process is alive and stands by; the scheduler it runs now was never made active.
            assertTrue(old.process.isAlive(), "the old scheduler's process is alive" + diagnosis);
            String oldLog = old.output();
            String since = oldLog.substring(oldLog.indexOf("gargamel scheduler: superseded"));
            assertTrue(
                    since.contains("standing by") && since.contains(READY_AGAIN),
                    "the new scheduler stands by: " + tail(since));
            assertFalse(SCHEDULER_EPOCH.matcher(since).find(), "and was never made active: " + tail(since));
            assertFalse(
                    standby.output().contains("gargamel scheduler: superseded"),
                    "the active scheduler goes on: " + diagnosis);

            // Exactly one scheduler served after the merge: every node applied two claims, the first scheduler's and
            // the standby's take-over, whose epoch is the one the standby holds.
            Matcher standbyEpoch = SCHEDULER_EPOCH.matcher(standby.output());
            assertTrue(standbyEpoch.find(), diagnosis);
            for (int i = 1; i <= HandStartedCluster.NODES; i++) {
                String log = cluster.node(i).output();
                Matcher epochs = NODE_EPOCH.matcher(log);
                int claims = 0;
                String last = null;
                while (epochs.find()) {
                    claims++;
                    last = epochs.group(1);
                }
                assertEquals(2, claims, "node-" + i + " applied the first claim and the take-over only: " + tail(log));
                assertEquals(standbyEpoch.group(1), last, "node-" + i + " follows the standby's epoch");
            }
            old.signal("TERM");
            old.waitFor(30, TimeUnit.SECONDS); // the JVM ends with 143 on SIGTERM, after the stop line below
            assertTrue(
                    old.output().contains("gargamel scheduler stopped: 0 call(s) scheduled, 0 rejected"),
                    "the scheduler standing by scheduled nothing: " + tail(old.output()));
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

    /** Waits for the run, checks its result (exit 0, every acknowledged order there once, replicas identical). */
    private static String finish(GargamelProcess run, Path out, String logs) throws Exception {
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

    private static double secondsSince(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
