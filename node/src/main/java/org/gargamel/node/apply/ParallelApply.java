package org.gargamel.node.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.certify.PrimaryKeys;
import org.gargamel.node.visibility.Visibility;

/**
 * C5's row-level parallel apply (issue 17; docs/node.md, Parallel apply): the other replicas' write-sets applied on
 * several connections at once. The {@link ApplyLoop} hands them over in log order ({@link #submit}); a write-set
 * starts once every earlier write-set touching one of its rows has committed ({@link Task#predecessors}) and its
 * back-dependencies are visible, so two write-sets of one row commit in log order at every replica, and write-sets of
 * different rows commute. In SI the commits also keep the log's order ({@link Task#previous}): a snapshot here always
 * reflects a prefix of the log.
 *
 * <p>No deadlock: tasks start in the order they are submitted (one FIFO queue) and wait only for earlier ones or for
 * this node's own commits, so the earliest unfinished task is always running.
 *
 * <p>What the loop does with a finished task (its position, committed_ahead, a failure) happens on the loop's thread:
 * {@link #finished} hands finished tasks back, and {@code wake} tells the loop there are some.
 */
final class ParallelApply implements AutoCloseable {
    /** One write-set handed to the appliers, with what its transaction records besides its changes. */
    static final class Task {
        final long index;
        final WriteSet writeSet;
        /** What its transaction records besides its changes: the position, or its committed_ahead row. */
        final AppliedPosition.Write write;
        /** The rows it touches ({@link PrimaryKeys#applyKeys}). */
        final Set<String> keys;
        /** The latest earlier tasks touching one of its rows: it starts once they are done. */
        final List<CompletableFuture<Void>> predecessors;
        /** SI only: the task submitted just before it, which must commit first; else null. */
        final CompletableFuture<Void> previous;
        /** Completed once its transaction committed and it is visible; exceptionally if it failed. */
        final CompletableFuture<Void> done = new CompletableFuture<>();

        volatile Exception failure;

        Task(
                long index,
                WriteSet writeSet,
                AppliedPosition.Write write,
                Set<String> keys,
                List<CompletableFuture<Void>> predecessors,
                CompletableFuture<Void> previous) {
            this.index = index;
            this.writeSet = writeSet;
            this.write = write;
            this.keys = keys;
            this.predecessors = predecessors;
            this.previous = previous;
        }
    }

    /** One applier thread's connection and what measures it. */
    private record Lane(Connection connection, WriteSetApplier applier, CpuClock cpu) {}

    private final String node;
    private final Visibility visibility;
    private final NodeStatistics statistics;
    private final java.util.function.LongConsumer visible;
    private final Runnable wake;
    private final boolean commitInOrder;
    /** Write-sets in their database transaction right now, to count the applies that overlap. */
    private final java.util.concurrent.atomic.AtomicInteger applyingNow =
            new java.util.concurrent.atomic.AtomicInteger();

    private final LinkedBlockingQueue<Task> submitted = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<Task> finished = new ConcurrentLinkedQueue<>();
    private final List<Lane> lanes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    /**
     * One applier thread per connection in {@code connections} (dedicated to applying from now on). {@code visible}
     * marks a transaction visible at this node; {@code wake} is called after a task finished.
     */
    ParallelApply(
            String node,
            List<Connection> connections,
            Visibility visibility,
            NodeStatistics statistics,
            java.util.function.LongConsumer visible,
            Runnable wake,
            boolean commitInOrder)
            throws SQLException {
        this.node = node;
        this.visibility = visibility;
        this.statistics = statistics;
        this.visible = visible;
        this.wake = wake;
        this.commitInOrder = commitInOrder;
        for (int i = 0; i < connections.size(); i++) {
            Connection connection = connections.get(i);
            lanes.add(new Lane(
                    connection,
                    new WriteSetApplier(connection),
                    CpuClock.of(connection, node + " applier " + (i + 1))));
        }
    }

    /** Starts the applier threads. */
    void start() {
        for (int i = 0; i < lanes.size(); i++) {
            Lane lane = lanes.get(i);
            Thread thread = new Thread(() -> run(lane), node + "-applier-" + (i + 1));
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Whether commits keep the log's order (SI). */
    boolean commitsInOrder() {
        return commitInOrder;
    }

    void submit(Task task) {
        submitted.add(task);
    }

    /** The next finished task, or null. */
    Task finished() {
        return finished.poll();
    }

    private void run(Lane lane) {
        try {
            while (true) {
                Task task = submitted.take();
                try {
                    apply(lane, task);
                } catch (InterruptedException e) {
                    task.failure = e;
                    throw e;
                } catch (Exception e) {
                    rollbackQuietly(lane.connection());
                    task.failure = e;
                } finally {
                    // Handed back before done completes, so that a loop waiting for done finds it handed back.
                    finished.add(task);
                    if (task.failure == null) {
                        task.done.complete(null);
                    } else {
                        task.done.completeExceptionally(task.failure);
                    }
                    wake.run();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
        }
    }

    private void apply(Lane lane, Task task) throws Exception {
        for (CompletableFuture<Void> predecessor : task.predecessors) {
            awaitEarlier(predecessor, task);
        }
        WriteSet writeSet = task.writeSet;
        ApplyContext.awaitDependencies(node, visibility, writeSet, task.index);
        if (!writeSet.changes().isEmpty()) {
            CpuClock.Timing timing = lane.cpu().start();
            if (applyingNow.incrementAndGet() > 1) {
                statistics.appliedBesideAnother();
            }
            try {
                lane.applier().apply(writeSet.changes(), task.write.bookkeeping());
                if (task.previous != null) {
                    awaitEarlier(task.previous, task);
                }
                lane.connection().commit();
            } finally {
                applyingNow.decrementAndGet();
            }
            statistics.applied(writeSet.procedure(), timing.stop());
        } else if (task.previous != null) {
            awaitEarlier(task.previous, task);
        }
        visible.accept(writeSet.txnId());
    }

    /** Waits for an earlier task; if it failed, this one must not apply either (the replica would diverge). */
    private static void awaitEarlier(CompletableFuture<Void> earlier, Task task) throws Exception {
        try {
            earlier.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new SQLException(
                    "entry " + task.index + " was not applied: an earlier write-set on one of its rows failed", e);
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            // The failure itself is reported; the connection is not used again.
        }
    }

    @Override
    public void close() {
        threads.forEach(Thread::interrupt);
        for (Thread thread : threads) {
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (Lane lane : lanes) {
            lane.cpu().close();
            try {
                lane.connection().close();
            } catch (SQLException e) {
                // closing anyway
            }
        }
    }
}
