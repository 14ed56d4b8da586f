package org.gargamel.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.scheduler.core.Scheduler;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drain queries: those of joining nodes, held until the take-over is done, and, while clients wait for quiescence and
 * work stays in flight, a log line every {@link #BUSY_REPORT} saying what it waits for. A drain that never ends shows
 * there what is stuck.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class DrainReport {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);
    /** How often the busy line may be logged while drain queries keep seeing work. */
    static final Duration BUSY_REPORT = Duration.ofSeconds(10);

    /** How many calls a busy line names. */
    static final int BUSY_EXAMPLES = 8;

    /** A drain query of {@code source}. */
    private record Query(Address source, DrainQuery query) {}

    private final Scheduler scheduler;
    private final CallTable calls;
    private final NodeRegistry nodes;
    private final SiteCoordinator sites;
    private final LoopContext loop;

    /** When drain queries began to see work without a zero answer since (0: the last answer was 0). */
    private long busySince;

    private long busyReported;
    /** When the last drain query was answered. */
    private long lastDrain;
    /** Drain queries of joining nodes held until the take-over is done. */
    private final List<Query> held = new ArrayList<>();

    DrainReport(Scheduler scheduler, CallTable calls, NodeRegistry nodes, SiteCoordinator sites, LoopContext loop) {
        this.scheduler = scheduler;
        this.calls = calls;
        this.nodes = nodes;
        this.sites = sites;
        this.loop = loop;
    }

    /**
     * Answers {@code query} with what is still in flight; a joining node's waits until the take-over is done
     * ({@code takeOverDone}: then the queries held are answered, in the order they came).
     */
    void query(Address source, DrainQuery query, boolean takeOverDone) {
        if (!takeOverDone && nodes.has(source)) {
            held.add(new Query(source, query)); // a joining node: it waits for the take-over
            return;
        }
        // A departed node's calls waiting for their settlement are still in flight: they will run again.
        long busy = scheduler.inFlight() + calls.unsettledCount() + sites.notVisibleHere();
        loop.send(source, new DrainStatus(query.queryId(), busy, scheduler.nodeCount()));
        long seconds = answered(busy, System.nanoTime());
        if (seconds >= 0) {
            int unsettled = calls.unsettledCount();
            List<String> examples = calls.unsettledExamples(BUSY_EXAMPLES);
            LOG.info(
                    "still busy {} s after drain queries began to see work: {}; {} call(s) of departed nodes"
                            + " unsettled{}; nodes {}",
                    seconds,
                    scheduler.describeInFlight(BUSY_EXAMPLES),
                    unsettled,
                    examples.isEmpty() ? "" : " " + examples + (unsettled > BUSY_EXAMPLES ? " ..." : ""),
                    nodes.names());
            sites.explainBusy();
        }
    }

    /** The take-over is done: the queries held are answered, in the order they came. */
    void takeOverDone() {
        List<Query> waiting = new ArrayList<>(held);
        held.clear();
        for (Query query : waiting) {
            query(query.source(), query.query(), true);
        }
    }

    /**
     * A drain query was answered {@code busy} at {@code now} ({@link System#nanoTime}): whether to log what is busy,
     * and if so for how long it has been, in seconds; negative for no line. The first query to see work, or the first
     * for a while (a node's join long ago), starts counting.
     */
    long answered(long busy, long now) {
        long previous = lastDrain;
        lastDrain = now;
        if (busy == 0) {
            busySince = 0;
            return -1;
        }
        if (busySince == 0 || now - previous > BUSY_REPORT.toNanos()) {
            busySince = now;
            busyReported = now;
            return -1;
        }
        if (now - busyReported < BUSY_REPORT.toNanos()) {
            return -1;
        }
        busyReported = now;
        return (now - busySince) / 1_000_000_000;
    }
}
