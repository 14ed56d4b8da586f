package org.gargamel.node.execution;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.writeset.ActiveScheduler;
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
    /** How long a call waits behind its barrier before it fails (the write-set log has no majority meanwhile). */
    private static final long BARRIER_TIMEOUT_MILLIS = 30_000;

    private final int index;
    private final WorkerConnection connection;
    private final LinkedBlockingQueue<Execute> queue = new LinkedBlockingQueue<>();
    private final ExecutionContext context;
    private final UpdateExecution updates;
    /** The transaction this worker has taken and not finished (0: none); read by a join after a failover. */
    private volatile long running;

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
            running = call.txnId(); // before the check below: a join waits for what passed it
            try {
                run(call);
            } finally {
                running = 0;
            }
        }
    }

    /** Whether this worker is running a transaction below {@code floor} (of an earlier scheduler). */
    public boolean runningBefore(long floor) {
        long txn = running;
        return txn != 0 && txn < floor;
    }

    private void run(Execute dispatched) throws InterruptedException {
        ActiveScheduler active = context.activeScheduler();
        Execute call = dispatched.provisional() ? cancelIfCollided(dispatched, active) : dispatched;
        if (!context.visibility().awaitAllUnless(call.backDependencies(), () -> active.stale(call.txnId()))
                || active.stale(call.txnId())) {
            // Placed by a scheduler the log has since superseded, and not started: it never runs here; its client
            // resubmits it to the new scheduler (docs/protocol.md, Scheduler failover).
            context.statistics().droppedStaleCall();
            LOG.debug(
                    "{} worker {}: dropped transaction {} of a superseded scheduler",
                    context.node(),
                    index,
                    call.txnId());
            return;
        }
        CallAttempt attempt = new CallAttempt();
        String refusal = refusal(call);
        if (refusal != null) {
            refuse(call, attempt, refusal);
            return;
        }
        String role = call.call().role();
        if (role != null && !context.reads().serves(role)) {
            // A role this node was not configured to serve: no SQL runs as it (docs/frontend.md, Security).
            CallOutcome denied = CallOutcome.userAborted(
                    call.callId(),
                    call.txnId(),
                    "42501",
                    context.node() + " serves no role \"" + role + "\" (its configuration's roles)");
            if (call.readOnly()) {
                context.completion().finish(call, denied);
            } else {
                settleWithoutEffect(call, attempt, denied);
            }
            return;
        }
        try {
            CallOutcome earlier = call.readOnly() ? null : context.earlierOutcome(call);
            if (earlier != null) {
                // A resubmitted call whose first run took effect: the client hears that outcome; this transaction is
                // done with no effect.
                context.statistics().answeredFromEarlierRun();
                LOG.info(
                        "{} worker {}: call {} of {} ran before (transaction {}): answered with that outcome, {} done "
                                + "with no effect",
                        context.node(),
                        index,
                        call.callId(),
                        call.client(),
                        earlier.txnId(),
                        call.txnId());
                settleWithoutEffect(call, attempt, earlier);
            } else if (call.call().adHoc() != null) {
                executeAdHoc(call);
            } else if (call.readOnly()) {
                executeReadOnly(call);
            } else {
                if (call.barrier()) {
                    // Site-owned classes: the owners no longer name the calls every node of theirs has; this replica
                    // must have them too before the call reads its rows (docs/multisite.md).
                    long waited = System.nanoTime();
                    // With a log per site, also what the other owners had logged when they placed the call.
                    context.logBarrier().await(call.shippedBefore(), BARRIER_TIMEOUT_MILLIS);
                    context.statistics().behindBarrier(System.nanoTime() - waited);
                }
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

    /**
     * A provisional call (multi-site, docs/multisite.md) waits for its provisional back-dependencies, unless its site
     * scheduler says first that it collided: then it is cancelled and placed after the agreed ones instead, before it
     * ran. One that did not collide (yet) stays provisional: it commits only on its agreement.
     */
    private Execute cancelIfCollided(Execute call, ActiveScheduler active) throws InterruptedException {
        Agreements agreements = context.agreements();
        context.visibility()
                .awaitAllUnless(
                        call.backDependencies(), () -> active.stale(call.txnId()) || agreements.collided(call.txnId()));
        if (!agreements.collided(call.txnId())) {
            return call;
        }
        context.statistics().cancelled();
        return call.placedAfter(agreements.await(call.txnId()).dependencies());
    }

    /**
     * Why this node's rules do not let it run {@code call} (null: they do). The scheduler checked the call already;
     * the node checks again, so that no SQL reaches PostgreSQL that its own rules did not name, whoever sent the
     * EXECUTE: an unknown procedure, the wrong number or types of arguments, or a call of a procedure that writes sent
     * as read-only (it would run without its write-set captured).
     */
    private String refusal(Execute call) {
        if (call.call().adHoc() != null) {
            // An ad-hoc query names no procedure: AdHocRunner runs it read-only (or refuses it, adhocReads off).
            return call.readOnly() ? null : "an ad-hoc query came as an update; it may only be read-only";
        }
        if (call.provisional() && (!(updates instanceof ScheduledExecution) || context.si())) {
            return "a provisional call (multi-site) needs mode gargamel and isolation psi";
        }
        ClassifierRules rules = context.rules();
        if (rules == null) {
            return null;
        }
        try {
            ProcedureRule rule = rules.check(call.call());
            if (rule.readOnly() != call.readOnly()) {
                return call.call().procedure() + " is " + (rule.readOnly() ? "read-only" : "an update procedure")
                        + " in the rules, but the call came as " + (call.readOnly() ? "read-only" : "an update");
            }
            return null;
        } catch (RulesException e) {
            return e.getMessage();
        }
    }

    /** A call the rules refuse: REJECTED with the reason, no SQL run; an update call settles with no effect. */
    private void refuse(Execute call, CallAttempt attempt, String refusal) {
        context.statistics().failedCall();
        String reason = context.node() + " refused transaction " + call.txnId() + " (call " + call.callId() + "): "
                + refusal + "; it ran no SQL";
        LOG.warn("{} worker {}: {}", context.node(), index, reason);
        CallOutcome rejected = CallOutcome.rejected(call.callId(), call.txnId(), reason);
        if (call.readOnly()) {
            context.completion().finish(call, rejected);
        } else {
            settleWithoutEffect(call, attempt, rejected);
        }
    }

    private void executeReadOnly(Execute call) {
        CpuClock.Timing start = connection.cpu().start();
        CallOutcome outcome;
        try (CallRunner.Pipeline pipeline = CallRunner.readOnly(connection.jdbc(), call.call(), context.types())) {
            ResultRows result = pipeline.execute().rows();
            context.statistics().readOnly(call.call().procedure(), start.stop());
            outcome = CallOutcome.committedReadOnly(call.callId(), call.txnId(), result);
        } catch (SQLException e) {
            connection.endTransactionOrStop(call, e); // a failed read-only call leaves its transaction block open
            outcome = CallRunner.aborted(call.callId(), call.txnId(), e);
        }
        context.completion().finish(call, outcome);
    }

    /** An ad-hoc query (docs/node.md, Ad-hoc reads): read-only, answered at once like a read-only call. */
    private void executeAdHoc(Execute call) {
        CpuClock.Timing start = connection.cpu().start();
        CallOutcome outcome = AdHocRunner.run(context.reads(), call, context.adHocReads(), context.node());
        context.statistics().readOnly(call.call().procedure(), start.stop());
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
        settleWithoutEffect(call, attempt, rejected);
    }

    /** An update call done with no effect: an empty write-set carrying {@code outcome}, answered once it is logged. */
    private void settleWithoutEffect(Execute call, CallAttempt attempt, CallOutcome outcome) {
        WriteSet empty = new WriteSet(
                        call.txnId(), context.node(), call.call().procedure(), call.backDependencies(), -1, List.of())
                .withOutcome(outcome, call.client());
        if (updates instanceof ScheduledExecution && !context.afterLog()) {
            ScheduledExecution.handOverEmpty(call, connection, attempt, empty, outcome, context);
            return;
        }
        // Answered once the log holds the entry: were it settled as abandoned, the call would run again.
        context.replyOnEntry(call, outcome, false);
        context.completion().visibleHere(call);
        context.append(empty);
    }
}
