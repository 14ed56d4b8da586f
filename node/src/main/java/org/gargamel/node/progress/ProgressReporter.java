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
 */
public final class ProgressReporter {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);
    static final int BATCH = 4096;
    static final long INTERVAL_MILLIS = 20;

    private final String node;
    /** Ids reported visible and not sent yet, in report order; guarded by itself. */
    private final VisibleIds visible = new VisibleIds();

    private final ConcurrentLinkedQueue<Settlement> settlements = new ConcurrentLinkedQueue<>();
    private final Supplier<Address> scheduler;
    private final BiConsumer<Address, Message> send;
    /** This node's position in its site's write-set log, sent with each report (a log per site; else 0). */
    private volatile java.util.function.LongSupplier logPosition = () -> 0;
    /** When this loop last found no scheduler to send to (0: it had one); loop thread only. */
    private long outOfSightSince;

    /** {@code scheduler}: the scheduler's current address (null while none is known); {@code send}: on the control channel. */
    public ProgressReporter(String node, Supplier<Address> scheduler, BiConsumer<Address, Message> send) {
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

    /** The position sent with reports. */
    public long logPosition() {
        return logPosition.getAsLong();
    }

    /** {@code txn} is visible here. Any thread. */
    public void visible(long txn) {
        visible.add(txn);
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
                            + " waited",
                    node,
                    (System.nanoTime() - outOfSightSince) / 1_000_000,
                    visible.size(),
                    settlements.size());
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
        long[] ids = visible.takeAll();
        long position = logPosition.getAsLong();
        for (int from = 0; from < ids.length; from += BATCH) {
            send.accept(
                    target,
                    new Progress(node, Arrays.copyOfRange(ids, from, Math.min(ids.length, from + BATCH)), position));
        }
    }

    /**
     * A growing array of ids under a lock: adding one allocates nothing until the array must grow (a queue of boxed
     * Longs allocated two objects per id, and every replica reports every transaction).
     */
    private static final class VisibleIds {
        private long[] ids = new long[256];
        private int size;

        synchronized void add(long id) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
            }
            ids[size++] = id;
        }

        /** Every id added so far, in order, and none left. */
        synchronized long[] takeAll() {
            long[] taken = Arrays.copyOf(ids, size);
            size = 0;
            return taken;
        }

        synchronized int size() {
            return size;
        }

        synchronized boolean isEmpty() {
            return size == 0;
        }
    }
}
