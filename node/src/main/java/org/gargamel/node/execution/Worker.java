package org.gargamel.node.execution;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.certify.Certification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker (DESIGN.md §5): a connection and a FIFO queue of the calls the scheduler placed on it. It runs them one
 * after another, each once its back-dependencies are visible here: read-only calls itself, update calls through the
 * mode's {@link UpdateExecution}.
 *
 * <p>Supervision. Every call gets exactly one outcome and every update call settles for its dependents, whatever
 * happens. A call that fails in an unexpected way (a bug, an argument the node cannot bind) before it could have had
 * any effect is rolled back, broadcast as an empty write-set (done with no effect, at every replica) and REJECTED
 * with the reason; then the worker takes the next call. One that fails after it may have committed or been broadcast
 * leaves the cluster in a state this node cannot know: that is a {@link FatalException} naming the call, and the
 * node stops (the scheduler then gives its pending calls an outcome and settles them at the survivors).
 */
public final class Worker {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

    private final int index;
    private final WorkerConnection connection;
    private final LinkedBlockingQueue<Execute> queue = new LinkedBlockingQueue<>();
    private final ExecutionContext context;
    private final UpdateExecution updates;

    private Worker(int index, WorkerConnection connection, ExecutionContext context, UpdateExecution updates) {
        this.index = index;
        this.connection = connection;
        this.context = context;
        this.updates = updates;
    }

    /** Gargamel and centralized modes: calls in the scheduler's order (PSI or SI). */
    public static Worker scheduled(int index, WorkerConnection connection, ExecutionContext context) {
        return new Worker(index, connection, context, new ScheduledExecution(context));
    }

    /** Round-robin mode: concurrent executions, certified. */
    public static Worker certified(
            int index, WorkerConnection connection, ExecutionContext context, Certification certification) {
        return new Worker(index, connection, context, new CertifiedExecution(context, certification));
    }

    public int index() {
        return index;
    }

    public WorkerConnection connection() {
        return connection;
    }

    /** Queues a call placed on this worker; never blocks. */
    public void submit(Execute call) {
        queue.add(call);
    }

    /** The worker's loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        while (true) {
            Execute call = queue.take();
            context.visibility().awaitAll(call.backDependencies());
            CallAttempt attempt = new CallAttempt();
            try {
                if (call.readOnly()) {
                    executeReadOnly(call);
                } else {
                    updates.execute(call, connection, attempt);
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (FatalException e) {
                throw e;
            } catch (RuntimeException | Error e) {
                settleFailed(call, attempt, e);
            }
        }
    }

    private void executeReadOnly(Execute call) {
        long start = System.nanoTime();
        CallOutcome outcome;
        try (CallRunner.Pipeline pipeline = CallRunner.readOnly(
                connection.jdbc(),
                call.call(),
                context.types(),
                context.si() ? CallRunner.Isolation.REPEATABLE_READ : CallRunner.Isolation.READ_COMMITTED)) {
            String result = pipeline.execute().result();
            context.statistics().readOnly(call.call().procedure(), System.nanoTime() - start);
            outcome = CallOutcome.committed(call.callId(), call.txnId(), result);
        } catch (SQLException e) {
            connection.endTransactionOrStop(call, e); // a failed SI read-only call leaves its transaction block open
            outcome = CallOutcome.userAborted(call.callId(), call.txnId(), e.getSQLState(), e.getMessage());
        }
        context.completion().finish(call, outcome);
    }

    /** An unexpected failure: settled as done with no effect if nothing can have escaped, else the node stops. */
    private void settleFailed(Execute call, CallAttempt attempt, Throwable failure) {
        String what = "transaction " + call.txnId() + " (" + call.call().procedure() + ", call " + call.callId() + ")";
        if (attempt.isIrrevocable()) {
            throw new FatalException(
                    connection.name() + ": " + what + " failed after it may have committed or been "
                            + "broadcast, so this replica may differ from the others: " + failure,
                    failure);
        }
        connection.endTransactionOrStop(call, null);
        context.statistics().failedCall();
        String reason = context.node() + " could not run " + what + ": " + failure + "; it changed nothing"
                + (call.readOnly() ? "" : " and its dependents go on");
        LOG.error("{} worker {}: {}", context.node(), index, reason, failure);
        CallOutcome rejected = CallOutcome.rejected(call.callId(), call.txnId(), reason);
        if (call.readOnly()) {
            context.completion().finish(call, rejected);
            return;
        }
        WriteSet empty = new WriteSet(
                        call.txnId(), context.node(), call.call().procedure(), call.backDependencies(), -1, List.of())
                .withOutcome(rejected);
        if (updates instanceof ScheduledExecution && !context.si()) {
            ScheduledExecution.handOverEmpty(call, connection, attempt, empty, rejected, context);
            return;
        }
        // Answered once the log holds the entry: were it settled as abandoned, the call would run again.
        context.replyOnEntry(call, rejected, false);
        context.completion().visibleHere(call);
        context.append(empty);
    }
}
