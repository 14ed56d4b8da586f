package org.gargamel.node.progress;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the scheduler which transactions became visible here (PROGRESS), so it can retire them from its graph once
 * every replica has them (DESIGN.md §4, garbage collection), and how this node's log settled a departed node's
 * transactions (SETTLEMENT). Ids are batched: a thread sends what accumulated every {@value #INTERVAL_MILLIS} ms, up to
 * {@value #BATCH} ids a message.
 *
 * <p>The interval weighs what reports cost against how stale the scheduler's view is. Every replica reports every
 * transaction, so at the former 2 ms poll most reports carried one id: at 3 replicas the scheduler received about
 * three PROGRESS messages per call, more than all its other messages, and a node's reporter cost as much CPU as its
 * workers (async-profiler, docs/costs.md). Now a node sends at most 1000 / {@value #INTERVAL_MILLIS} a second; a
 * finished call's worker slot stays counted up to that long, and the scheduler does not wait for the executing node's
 * report before sending a session's next call there (the node made the write visible before answering).
 *
 * <p>While no scheduler is in sight (this node's control view has none: a partition, a merge under way, the
 * scheduler's death) nothing is sent, and nothing is dropped either: reports and settlements wait here and go to the
 * next scheduler this node sees. Views are not symmetric: during a merge this node may not see the scheduler while
 * the scheduler still counts it, and waits for its report of every transaction placed since; a report dropped then
 * would keep those transactions in flight for ever (PartitionIT: the client waited 120 s for a quiescence that never
 * came), and a dropped settlement would leave the departed node's calls without an outcome. A scheduler that no longer
 * counts this node ignores what it did not wait for.
 *
 * <p>What waits is bounded: at most {@value #HELD} ids (512 kB; about a minute of TPC-C out of sight). Beyond that the
 * ids held are forgotten, and counted; the next report says how many ({@link Progress#forgotten}), and a scheduler that
 * still counts this node asks which of the transactions it awaits from it are visible here (VISIBILITY_QUERY), which
 * this node answers from its {@code Visibility}, itself bounded. Exact because every id is marked visible before it is
 * reported, so an id forgotten here is visible when the query that follows its forgetting is answered
 * ({@code ProgressReporterTest.idsBeyondTheBoundAreForgottenAndTheNextReportSaysHowMany}; the scheduler's side:
 * {@code ForgottenReportsTest}). An hours-long partition used to grow the queue until the heap ran out.
 */
public final class ProgressReporter {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);
    static final int BATCH = 4096;
    static final long INTERVAL_MILLIS = 20;
    /** The most ids held for the scheduler (see the class comment). */
    static final int HELD = 1 << 16;

    private final String node;
    /** Ids reported visible and not sent yet, in report order; guarded by itself. */
    private final VisibleIds visible;

    private final ConcurrentLinkedQueue<Settlement> settlements = new ConcurrentLinkedQueue<>();
    private final Supplier<Address> scheduler;
    private final BiConsumer<Address, Message> send;
    /** This node's position in its site's write-set log, sent with each report (a log per site; else 0). */
    private volatile java.util.function.LongSupplier logPosition = () -> 0;
    /** When this loop last found no scheduler to send to (0: it had one); loop thread only. */
    private long outOfSightSince;

    /** {@code scheduler}: the scheduler's current address (null while none is known); {@code send}: on the control channel. */
    public ProgressReporter(String node, Supplier<Address> scheduler, BiConsumer<Address, Message> send) {
        this(node, scheduler, send, HELD);
    }

    /** As above, holding at most {@code held} ids for the scheduler (a test's small bound). */
    ProgressReporter(String node, Supplier<Address> scheduler, BiConsumer<Address, Message> send, int held) {
        this.visible = new VisibleIds(held);
        this.node = node;
        this.scheduler = scheduler;
        this.send = send;
    }

    /**
     * Sends {@code position} with every report ({@link Progress#logPosition}): read after the transactions reported
     * with it became visible, so it is at or past each of them.
     */
    public void logPositionFrom(java.util.function.LongSupplier position) {
        this.logPosition = position;
    }

    /** Ids held for the scheduler, not sent yet (tests). */
    int waiting() {
        return visible.size();
    }

    /** The position sent with reports. */
    public long logPosition() {
        return logPosition.getAsLong();
    }

    /** {@code txn} is visible here: marked so in this node's {@code Visibility} before this call. Any thread. */
    public void visible(long txn) {
        long forgotten = visible.add(txn);
        if (forgotten > 0) {
            LOG.warn(
                    "{}: {} transaction ids waited for a scheduler to see, the most a node holds: forgotten; the next"
                            + " scheduler in sight asks which of the transactions it awaits are visible here",
                    node,
                    forgotten);
        }
    }

    /**
     * How this node's log settled a departed node's transactions (the scheduler answers or re-runs those calls): sent
     * by the loop within {@value #INTERVAL_MILLIS} ms, before the visible transactions reported with it, or once a
     * scheduler is in sight again. Any thread.
     */
    public void settled(Settlement settlement) {
        settlements.add(settlement);
    }

    /** The reporting loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        long next = System.nanoTime();
        while (true) {
            sendOnce();
            next += TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS);
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            } else {
                next = System.nanoTime(); // late (a long send, a pause): no burst to catch up
            }
        }
    }

    /**
     * Sends what waits, if a scheduler is in sight: every settlement, then every visible transaction, in messages of
     * at most {@value #BATCH} ids.
     */
    private void sendOnce() {
        Address target = scheduler.get();
        if (target == null) {
            if (outOfSightSince == 0 && (!visible.isEmpty() || !settlements.isEmpty())) {
                outOfSightSince = System.nanoTime();
                LOG.info("{}: no scheduler in sight: reports wait until one is", node);
            }
            return;
        }
        if (outOfSightSince != 0) {
            LOG.info(
                    "{}: a scheduler is in sight again after {} ms: sending the {} report(s) and {} settlement(s) that"
                            + " waited ({} forgotten)",
                    node,
                    (System.nanoTime() - outOfSightSince) / 1_000_000,
                    visible.size(),
                    settlements.size(),
                    visible.forgotten());
            outOfSightSince = 0;
        }
        sendWaiting(target);
    }

    /**
     * Sends what waits now, if a scheduler is in sight, rather than at the next interval: a node closing sends its
     * last reports, so the scheduler need not treat those calls as a departed node's unreported ones. Any thread;
     * with the loop sending too, reports may arrive out of order, which the scheduler takes.
     */
    public void flush() {
        Address target = scheduler.get();
        if (target != null) {
            sendWaiting(target);
        }
    }

    /** Every settlement, then every visible transaction, to {@code target}. */
    private void sendWaiting(Address target) {
        Settlement settlement;
        while ((settlement = settlements.poll()) != null) {
            send.accept(target, settlement);
        }
        VisibleIds.Taken taken = visible.takeAll();
        long[] ids = taken.ids();
        long position = logPosition.getAsLong();
        for (int from = 0; from < ids.length; from += BATCH) {
            send.accept(
                    target,
                    new Progress(node, Arrays.copyOfRange(ids, from, Math.min(ids.length, from + BATCH)), position));
        }
        if (taken.forgotten() > 0) {
            // After the ids still held, so that the scheduler's query covers only what it still awaits.
            send.accept(target, new Progress(node, new long[0], position, taken.forgotten()));
        }
    }

    /**
     * A growing array of at most {@code held} ids under a lock: adding one allocates nothing until the array must grow
     * (a queue of boxed Longs allocated two objects per id, and every replica reports every transaction). A full array
     * is forgotten, and counted.
     */
    private static final class VisibleIds {
        // ArrayRecordComponent: a value handed from takeAll to its one caller, never compared or kept.
        record Taken(
                @SuppressWarnings("ArrayRecordComponent") long[] ids, long forgotten) {}

        private final int held;
        private long[] ids;
        private int size;
        private long forgotten;

        VisibleIds(int held) {
            this.held = held;
            this.ids = new long[Math.min(256, held)];
        }

        /** Adds {@code id}; returns how many ids were forgotten to make room for it (0 nearly always). */
        synchronized long add(long id) {
            long dropped = 0;
            if (size == held) {
                dropped = size;
                forgotten += size;
                size = 0;
            }
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, Math.min(held, size * 2));
            }
            ids[size++] = id;
            return dropped;
        }

        /** Every id added and not forgotten so far, in order, with the count of those forgotten; none left. */
        synchronized Taken takeAll() {
            Taken taken = new Taken(Arrays.copyOf(ids, size), forgotten);
            size = 0;
            forgotten = 0;
            return taken;
        }

        synchronized long forgotten() {
            return forgotten;
        }

        synchronized int size() {
            return size;
        }

        synchronized boolean isEmpty() {
            return size == 0;
        }
    }
}
