package org.gargamel.launcher.costs;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.gargamel.launcher.run.MeasurementObserver;
import org.gargamel.launcher.run.ProcessCpuMeter;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * Measures the native run's CPU by {@code /proc} around its measurement interval ({@link NativeCosts} says what each
 * figure is). Executing is read on the publisher (less its walsenders) from the interval's start to its end. Decoding
 * and applying lag behind executing, so they are read over the span in which the subscriber applies the interval's
 * transactions: from the moment it has confirmed the publisher's WAL insert position at the interval's start (the
 * warm-up's backlog done; a watcher thread waits for it) to the moment it has confirmed the position after the
 * interval's end. Read from the interval's start instead, they carried the warm-up's unapplied backlog: 25 s of it in
 * one run, which made e/a 1.2 (docs/costs.md).
 *
 * <p>Invariant: the walsenders are the same processes at both readings (a walsender that restarted would have taken its
 * CPU with it); otherwise the run fails.
 */
final class NativeCpuWindow implements MeasurementObserver {
    static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(2);

    private final LogicalReplication replication;
    private final long publisher;
    private final long subscriber;
    private final String serverVersion;
    private final PrintStream err;

    // Written by started() on the emulator's thread, read by ended() on the run's after the emulator joined it.
    private volatile List<Long> walsenders;
    private volatile Ticks start;
    private volatile RuntimeException failure;
    /** Reads {@link #applyStart} once the subscriber has reached the interval's start; ended() joins it. */
    private volatile Thread watcher;
    // Written by the watcher, read by ended() after joining it.
    private volatile Ticks applyStart;
    private volatile RuntimeException watcherFailure;
    private NativeCosts costs;

    /** CPU ticks so far of the publisher (all of it), of its walsenders, and of the subscriber; and when. */
    record Ticks(long publisher, long walsenders, long subscriber, long nanoTime) {}

    /** {@code publisher}, {@code subscriber}: the two servers' postmaster pids. */
    NativeCpuWindow(
            LogicalReplication replication, long publisher, long subscriber, String serverVersion, PrintStream err) {
        this.replication = replication;
        this.publisher = publisher;
        this.subscriber = subscriber;
        this.serverVersion = serverVersion;
        this.err = err;
    }

    /**
     * Runs on the terminal emulator's thread, where a failure would go unseen: it is kept, and {@link #ended} throws
     * it.
     */
    @Override
    public void started() {
        try {
            walsenders = replication.walsenders();
            if (walsenders.isEmpty()) {
                throw new CommandFailedException("no walsender serves the subscription when the measurement begins");
            }
            start = read();
            String startPosition = replication.insertPosition();
            Thread thread = new Thread(() -> awaitApplyStart(startPosition), "native-apply-start");
            thread.setDaemon(true);
            watcher = thread;
            thread.start();
        } catch (SQLException e) {
            failure = new CommandFailedException(
                    "cannot follow the publisher's walsenders and WAL position: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /** On the watcher: once the subscriber has applied everything committed before the interval, reads the ticks. */
    private void awaitApplyStart(String startPosition) {
        try {
            replication.awaitConfirmed(startPosition, CATCH_UP_TIMEOUT);
            applyStart = read();
        } catch (SQLException e) {
            watcherFailure = new CommandFailedException(
                    "cannot follow the subscription to the interval's start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            watcherFailure = new CommandFailedException("interrupted waiting for the subscriber to reach the interval");
        } catch (RuntimeException e) {
            watcherFailure = new CommandFailedException(
                    "the subscriber did not reach the interval's start (the warm-up's backlog): " + e.getMessage(), e);
        }
    }

    @Override
    public void ended(RunStatistics measured) throws InterruptedException {
        if (failure != null) {
            throw failure;
        }
        Ticks end = read();
        err.println("waiting until the subscriber has applied everything the publisher committed ...");
        try {
            watcher.join(); // its use of the publisher's connection ends before awaitCaughtUp's begins
        } catch (InterruptedException e) {
            watcher.interrupt(); // it must not go on using the connection the caller is about to close
            throw e;
        }
        if (watcherFailure != null) {
            throw watcherFailure;
        }
        Duration catchUp;
        List<Long> walsendersAfter;
        try {
            catchUp = replication.awaitCaughtUp(CATCH_UP_TIMEOUT);
            walsendersAfter = replication.walsenders();
        } catch (SQLException e) {
            throw new CommandFailedException("cannot follow the subscription: " + e.getMessage(), e);
        }
        Ticks caughtUp = read();
        if (!walsendersAfter.equals(walsenders)) {
            throw new CommandFailedException("the subscription's walsenders changed during the measurement ("
                    + walsenders + ", then " + walsendersAfter + "): their CPU cannot be counted; run again");
        }
        long updates = 0;
        for (TransactionType type : TransactionType.values()) {
            if (!type.readOnly()) {
                updates += measured.committed(type);
            }
        }
        costs = of(
                start,
                end,
                applyStart,
                caughtUp,
                measured.finished(),
                updates,
                catchUp,
                walsenders.size(),
                serverVersion);
    }

    /** The figures, once the interval has ended; null before. */
    NativeCosts costs() {
        return costs;
    }

    /**
     * The figures from the four readings: execute = the publisher less its walsenders from {@code start} to {@code
     * end}; decode = the walsenders from {@code applyStart} (the subscriber has applied what came before the interval)
     * to {@code caughtUp}; apply = the subscriber over that span.
     */
    static NativeCosts of(
            Ticks start,
            Ticks end,
            Ticks applyStart,
            Ticks caughtUp,
            long calls,
            long updates,
            Duration catchUp,
            int walsenderCount,
            String serverVersion) {
        long execute = (end.publisher() - end.walsenders()) - (start.publisher() - start.walsenders());
        long decode = caughtUp.walsenders() - applyStart.walsenders();
        long apply = caughtUp.subscriber() - applyStart.subscriber();
        NativeCosts.Figures perUpdate = NativeCosts.Figures.of(execute, decode, apply, updates);
        return new NativeCosts(
                serverVersion,
                RoleCost.round((end.nanoTime() - start.nanoTime()) / 1e9),
                calls,
                updates,
                0,
                NativeCosts.Figures.of(execute, decode, apply, calls),
                perUpdate,
                apply == 0 ? 0 : RoleCost.round((double) execute / apply),
                catchUp.toMillis(),
                walsenderCount,
                false,
                null);
    }

    private Ticks read() {
        long walsenderTicks = 0;
        for (long walsender : walsenders) {
            walsenderTicks += ProcessCpuMeter.ownTicks(walsender);
        }
        return new Ticks(
                ProcessCpuMeter.serverTicks(publisher),
                walsenderTicks,
                ProcessCpuMeter.serverTicks(subscriber),
                System.nanoTime());
    }
}
