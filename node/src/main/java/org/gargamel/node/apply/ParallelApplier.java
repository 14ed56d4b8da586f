package org.gargamel.node.apply;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.certify.PrimaryKeys;

/**
 * The loop's side of parallel apply ({@link ParallelApply}, the applier threads): hands each write-set over in log
 * order, held in the position until its task is taken back finished.
 */
final class ParallelApplier implements RemoteApplier {
    private final ApplyContext context;
    private final ParallelApply parallel;
    /** The primary keys parallel apply orders write-sets by. */
    private final PrimaryKeys primaryKeys;

    /** Write-sets the parallel appliers hold, by log index (each held in the position too). */
    private final TreeMap<Long, ParallelApply.Task> applying = new TreeMap<>();
    /** The latest task touching each row ({@link PrimaryKeys#applyKeys}), while it is in {@link #applying}. */
    private final Map<String, ParallelApply.Task> lastWriterOfKey = new HashMap<>();
    /** The task submitted last (SI commits in its order); null if none. */
    private ParallelApply.Task lastSubmitted;

    /** Starts the applier threads of {@code parallel}. */
    ParallelApplier(ApplyContext context, ParallelApply parallel, PrimaryKeys primaryKeys) {
        this.context = context;
        this.parallel = parallel;
        this.primaryKeys = primaryKeys;
        parallel.start();
    }

    /**
     * Hands another replica's write-set to the parallel appliers. Its transaction records the position if no earlier
     * entry is held (then no other applying transaction writes it: at most one at a time updates the position row),
     * else it records itself in committed_ahead, which the position later passes. It waits for the latest earlier
     * write-set on each of its rows, and in SI for the one submitted before it.
     */
    @Override
    public void take(LogEntry entry, WriteSet writeSet) {
        AppliedPosition position = context.position();
        long index = entry.index();
        long txn = writeSet.txnId();
        AppliedPosition.Write write =
                writeSet.changes().isEmpty() ? AppliedPosition.Write.NONE : position.forParallel(index, txn);
        Set<String> keys = primaryKeys.applyKeys(writeSet);
        Set<ParallelApply.Task> earlierOnItsRows = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String key : keys) {
            ParallelApply.Task earlier = lastWriterOfKey.get(key);
            if (earlier != null) {
                earlierOnItsRows.add(earlier);
            }
        }
        List<CompletableFuture<Void>> predecessors = new ArrayList<>();
        earlierOnItsRows.forEach(earlier -> predecessors.add(earlier.done));
        ParallelApply.Task previous = parallel.commitsInOrder() ? lastSubmitted : null;
        ParallelApply.Task task = new ParallelApply.Task(
                index,
                writeSet,
                write,
                keys,
                predecessors,
                previous == null || previous.done.isDone() ? null : previous.done);
        for (String key : keys) {
            lastWriterOfKey.put(key, task);
        }
        applying.put(index, task);
        position.hold(index);
        lastSubmitted = task;
        position.handled(index);
        parallel.submit(task);
    }

    /**
     * Takes in what the parallel appliers finished: a task that recorded the position moves it; one that recorded
     * itself in committed_ahead is forgotten once the position passes it. A failed one fails the loop (the replica
     * would diverge).
     */
    @Override
    public void takeFinished() throws SQLException {
        for (ParallelApply.Task task = parallel.finished(); task != null; task = parallel.finished()) {
            applying.remove(task.index);
            context.position().release(task.index);
            for (String key : task.keys) {
                lastWriterOfKey.remove(key, task);
            }
            if (lastSubmitted == task) {
                lastSubmitted = null;
            }
            if (task.failure != null) {
                throw new SQLException(
                        "entry " + task.index + " (" + task.writeSet.describe() + ") failed on a parallel applier: "
                                + task.failure.getMessage(),
                        task.failure);
            }
            context.position().committed(task.write);
        }
    }

    /** Waits until the parallel appliers hold nothing: every write-set handed over so far is reflected here. */
    @Override
    public void drain() throws SQLException, InterruptedException {
        // A task is handed back (ParallelApply.finished) before its done completes: once every done has, all are.
        for (ParallelApply.Task task : new ArrayList<>(applying.values())) {
            try {
                task.done.get();
            } catch (ExecutionException e) {
                // reported by takeFinished
            }
        }
        takeFinished();
    }

    @Override
    public void close() {
        parallel.close();
    }
}
