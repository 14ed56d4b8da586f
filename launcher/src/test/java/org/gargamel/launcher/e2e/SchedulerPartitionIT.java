package org.gargamel.launcher.e2e;

import static org.gargamel.launcher.e2e.HandStartedCluster.tail;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real partition of the active scheduler ({@link HandStartedCluster}, as {@link PartitionIT} does for a node): its
 * link is taken down mid-run until the standby serves, then brought back. At the end every acknowledged New-Order is
 * on every replica, none twice, the replicas are identical and consistent, and exactly one scheduler served after the
 * merge.
 */
@Tag("e2e")
class SchedulerPartitionIT {
    private static final String READY_AGAIN = "(again, after being superseded)";
    private static final Pattern NODE_EPOCH = Pattern.compile("the log made \\S+ the active scheduler, epoch (\\d+)");
    private static final Pattern SCHEDULER_EPOCH =
            Pattern.compile("the write-set log made this scheduler the active one: epoch (\\d+)");

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
    void theActiveSchedulerCutOffIsReplacedByTheStandbyAndStandsByOnceItIsBack(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        try (HandStartedCluster cluster = HandStartedCluster.start(directory, 2, "scheduler-cut")) {
            GargamelProcess old = cluster.scheduler(1);
            GargamelProcess standby = cluster.scheduler(2);
            Path out = directory.resolve("result");
            GargamelProcess run = cluster.startRun(out, "60s"); // the cut, take-over and merge take about 30 s of it
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

            String diagnosis = HandStartedCluster.finishRun(run, out, cluster.tails(15_000));
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

    private static double secondsSince(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
