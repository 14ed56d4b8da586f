package org.gargamel.node.execution;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.gargamel.classifier.UnsoundWrite;
import org.gargamel.classifier.WriteChecker;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.RulesCheck;
import org.gargamel.node.capture.Increments;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.OwnTransaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gargamel and centralized modes: the scheduler ordered every conflicting call before this one, and the worker started
 * it once they were all visible here (docs/node.md). PSI: the call runs at READ COMMITTED and commits in the same round
 * trip, then its write-set is broadcast; a cell written by a call it conflicts with (writes, or declared reads) is
 * stable while it runs, any other may change between two of its statements (docs/node.md, What a call reads). SI: it
 * runs at REPEATABLE READ, its write-set is broadcast first, and it commits when that write-set is delivered, so every
 * replica commits update transactions in the total order.
 *
 * <p>A procedure error (e.g. TPC-C's invalid item) rolls the call back, gives it USER_ABORTED with its SQLSTATE, and
 * still broadcasts an empty write-set: its dependents at every replica go on.
 *
 * <p>Rules checked against reality (gargamel mode, {@code rulesCheck}; docs/classifier.md): the call's captured changes
 * are checked against the write keys its rule predicts. A write outside them is logged and counted; with
 * {@code reject} the call is rolled back before it commits or is broadcast (PSI then commits in a second round trip,
 * after the check) and REJECTED with SQLSTATE {@value RulesCheck#SQLSTATE}, settled like a procedure error (an empty
 * write-set); with {@code warn} it commits as usual.
 */
final class ScheduledExecution implements UpdateExecution {
    /** Serialization failures and deadlocks are not expected with a sound classifier; counted, retried, never hidden. */
    private static final int MAX_LOCAL_RETRIES = 100;

    private static final Logger LOG = LoggerFactory.getLogger(ScheduledExecution.class);

    private final ExecutionContext context;
    /** This worker's checker of what calls write against their rules; null when rulesCheck is off. */
    private final WriteChecker checker;

    ScheduledExecution(ExecutionContext context) {
        this.context = context;
        this.checker =
                context.rulesCheck() == RulesCheck.OFF ? null : new WriteChecker(context.rules(), context.isolation());
    }

    @Override
    public void execute(Execute call, WorkerConnection connection, CallAttempt attempt) throws InterruptedException {
        CpuClock.Timing start = connection.cpu().start();
        String procedure = call.call().procedure();
        // PSI commits in the call's pipeline, unless a write outside the rule must be able to stop the commit.
        boolean checkBeforeCommit = checker != null && context.rulesCheck() == RulesCheck.REJECT;
        // A provisional call (multi-site) commits only once the schedule log placed it (docs/multisite.md).
        boolean commitInPipeline = !context.afterLog() && !checkBeforeCommit && !call.provisional();
        // PSI: once it ran, the call commits here unasked (a provisional one only once placed), so an ABANDON of it
        // meanwhile taints this replica (OwnTransactions#committing).
        boolean commitsUnasked = !context.afterLog() && !call.provisional();
        long[] dependencies = call.backDependencies();
        if (checker != null && context.increments().sample(procedure)) {
            List<UnsoundWrite> probed = probe(call, connection);
            if (!probed.isEmpty()) {
                report(call, probed, connection, checkBeforeCommit);
                if (checkBeforeCommit) {
                    reject(call, connection, attempt, probed); // the probe rolled back: nothing ran for real
                    return;
                }
            }
        }
        for (int retry = 0; ; retry++) {
            CallRunner.Ran ran;
            Increments.Split split;
            List<UnsoundWrite> unsound;
            Agreement collided = null;
            try (CallRunner.Pipeline pipeline = CallRunner.update(
                    connection.jdbc(),
                    call.call(),
                    call.txnId(),
                    context.types(),
                    context.si() ? CallRunner.Isolation.REPEATABLE_READ : CallRunner.Isolation.READ_COMMITTED,
                    commitInPipeline)) {
                attempt.irrevocable(); // PSI: the pipeline commits; until it answers, its fate is unknown
                if (commitsUnasked) {
                    context.own().committing(call.txnId());
                }
                ran = pipeline.execute();
                split = split(call, ran.changes(), attempt, commitInPipeline);
                unsound = checkWrites(call, split, attempt, commitInPipeline);
                if (call.provisional() && (unsound.isEmpty() || !checkBeforeCommit)) {
                    Agreement placed = awaitAgreement(call); // its transaction stays open meanwhile: a stall
                    if (placed == null) {
                        dropOrphaned(call, connection, attempt);
                        return;
                    }
                    if (placed.collided()) {
                        collided = placed;
                    } else {
                        dependencies = placed.dependencies();
                    }
                }
                if (collided == null
                        && !context.afterLog()
                        && !commitInPipeline
                        && (unsound.isEmpty() || !checkBeforeCommit)) {
                    context.own().committing(call.txnId());
                    ran = new CallRunner.Ran(
                            ran.rows(), ran.changes(), CallRunner.commitDrawingOrder(connection.jdbc()));
                }
            } catch (SQLException e) {
                connection.endTransactionOrStop(call, e); // healthy connection: the failed pipeline committed nothing
                rolledBack(call, attempt);
                if (!context.afterLog()) {
                    skipDrawnNumber(call, connection, e);
                }
                if (SqlErrorKind.classify(e) == SqlErrorKind.RETRYABLE && retry < MAX_LOCAL_RETRIES) {
                    context.statistics().retry();
                    continue;
                }
                if (call.provisional()) {
                    // Its error may come from what it read: it stands only where the log placed the call.
                    Agreement placed = awaitAgreement(call);
                    if (placed == null) {
                        dropOrphaned(call, connection, attempt); // rolled back already
                        return;
                    }
                    if (placed.collided()) {
                        killAndRunAgain(call, placed, connection, attempt);
                        return;
                    }
                    abort(call.placedAfter(placed.dependencies()), connection, attempt, e, start);
                    return;
                }
                abort(call, connection, attempt, e, start);
                return;
            }
            if (collided != null) {
                killAndRunAgain(call, collided, connection, attempt);
                return;
            }
            if (!unsound.isEmpty()) {
                report(call, unsound, connection, checkBeforeCommit);
                if (checkBeforeCommit) {
                    connection.endTransactionOrStop(call, null); // never committed, never broadcast
                    rolledBack(call, attempt);
                    reject(call, connection, attempt, unsound);
                    return;
                }
            }
            CallOutcome committed = CallOutcome.committed(call.callId(), call.txnId(), ran.rows());
            WriteSet writeSet = new WriteSet(call.txnId(), context.node(), procedure, dependencies, -1, split.shipped())
                    .withOutcome(committed, call.client());
            context.statistics().executed(procedure, true, start.stop());
            if (context.afterLog()) {
                if (commitInTotalOrder(call, writeSet, connection, attempt, true)) {
                    context.completion().finish(call, committed);
                }
                return;
            }
            // PSI: visible here at once, so dependents here may start; COMMITTED only once the apply loop meets its
            // entry in the log (held by a majority, and not settled as abandoned before it).
            connection.drew(ran.commitOrder());
            context.replyOnEntry(call, committed, true); // its entry, when it comes back, is already reflected here
            context.own().doneCommitting(call.txnId()); // after the confirmation: an ABANDON sees one or the other
            context.completion().visibleHere(call);
            long handedOver = System.nanoTime();
            Futures.whenDone(context.commitOrder().handOver(ran.commitOrder(), writeSet), (done, failure) -> {
                if (failure != null) {
                    context.completion().fail(failure);
                } else {
                    context.statistics().logCommitted(System.nanoTime() - handedOver);
                }
            });
            return;
        }
    }

    /**
     * {@code call}'s transaction is rolled back, or is about to be: it has no effect here, its worker will not commit
     * it, and an ABANDON of it taints nothing (OwnTransactions#doneCommitting).
     */
    private void rolledBack(Execute call, CallAttempt attempt) {
        attempt.revocable();
        context.own().doneCommitting(call.txnId());
    }

    /**
     * Waits for where the schedule log placed provisional {@code call} (docs/multisite.md); a wait is a stall, counted
     * with its length. Null if a newer scheduler of the site took over first: the one that placed the call is gone and
     * will not say (docs/multisite.md, A site scheduler's failover).
     */
    private Agreement awaitAgreement(Execute call) throws InterruptedException {
        boolean stalls = !context.agreements().decided(call.txnId());
        if (stalls) {
            context.statistics().stalls();
        }
        long from = System.nanoTime();
        ActiveScheduler active = context.activeScheduler();
        Agreement placed = context.agreements().awaitUnless(call.txnId(), () -> active.superseding(call.txnId()));
        context.statistics().provisionalRan(stalls ? System.nanoTime() - from : 0);
        return placed;
    }

    /**
     * A provisional call whose scheduler was superseded before it said where the log placed the call: rolled back and
     * dropped, like a call of an earlier epoch that had not started. Its client resubmits it to the new scheduler, and
     * the new scheduler has it settled as done with no effect everywhere (other sites may have placed calls after it).
     */
    private void dropOrphaned(Execute call, WorkerConnection connection, CallAttempt attempt) {
        connection.endTransactionOrStop(call, null);
        rolledBack(call, attempt);
        context.statistics().droppedStaleCall();
        LOG.info(
                "{}: rolled back provisional transaction {}: a new scheduler of the site took over before the one that"
                        + " placed it said where the schedule log put it",
                context.node(),
                call.txnId());
    }

    /**
     * A provisional call that ran and collided is killed: its transaction is rolled back, and it runs again once the
     * calls the log put before it are visible here (unless a newer scheduler superseded its own meanwhile).
     */
    private void killAndRunAgain(Execute call, Agreement placed, WorkerConnection connection, CallAttempt attempt)
            throws InterruptedException {
        connection.endTransactionOrStop(call, null);
        rolledBack(call, attempt);
        context.statistics().killed();
        Execute again = call.placedAfter(placed.dependencies());
        ActiveScheduler active = context.activeScheduler();
        if (!context.visibility().awaitAllUnless(again.backDependencies(), () -> active.stale(call.txnId()))) {
            context.statistics().droppedStaleCall();
            return;
        }
        execute(again, connection, attempt);
    }

    /**
     * The call's captured changes split into what the checker reads and what is shipped (issue 18: declared increments
     * as deltas in PSI). A failure (a malformed capture: a bug) is handled as a failed check is.
     */
    private Increments.Split split(
            Execute call, List<WriteSet.RowChange> changes, CallAttempt attempt, boolean committed) {
        try {
            return context.increments().split(call.call().procedure(), changes);
        } catch (RuntimeException e) {
            if (!committed) {
                rolledBack(call, attempt); // its transaction is open: the worker rolls it back and rejects the call
            }
            throw e; // committed: a write-set that cannot be built must not be shipped wrong; the node stops
        }
    }

    /**
     * The writes of {@code split} that the call's rule does not cover, and its declared increments that were no pure
     * addition (none when rulesCheck is off). A failure of the check itself (a bug) must not lose a committed call
     * ({@code committed}: it is logged); before commit the call is settled as failed with no effect.
     */
    private List<UnsoundWrite> checkWrites(
            Execute call, Increments.Split split, CallAttempt attempt, boolean committed) {
        if (checker == null) {
            return List.of();
        }
        try {
            List<UnsoundWrite> unsound = checker.check(call.call(), split.plain());
            if (split.problems().isEmpty()) {
                return unsound;
            }
            List<UnsoundWrite> all = new ArrayList<>(unsound);
            for (Increments.Problem problem : split.problems()) {
                all.add(checker.nonAdditive(
                        call.call().procedure(), problem.table(), problem.row(), problem.column(), problem.reason()));
            }
            return all;
        } catch (RuntimeException e) {
            if (committed) {
                LOG.error(
                        "{}: could not check what transaction {} ({}) wrote against its rule",
                        context.node(),
                        call.txnId(),
                        call.call().procedure(),
                        e);
                return List.of();
            }
            rolledBack(call, attempt); // its transaction is open: the worker rolls it back and rejects the call
            throw e;
        }
    }

    /**
     * The additivity probe of a sampled call ({@link IncrementProbe}): its declared increment that is no pure addition,
     * or nothing. The probe leaves the connection idle with nothing changed; if it cannot tell, the call runs as usual.
     */
    private List<UnsoundWrite> probe(Execute call, WorkerConnection connection) {
        String procedure = call.call().procedure();
        IncrementProbe.Mismatch mismatch;
        try {
            mismatch = IncrementProbe.run(
                    call,
                    connection,
                    context.types(),
                    context.increments().declared(procedure),
                    context.increments().increments());
        } catch (SQLException | RuntimeException e) {
            connection.endTransactionOrStop(call, e instanceof SQLException sql ? sql : null);
            LOG.info(
                    "{}: the increment probe of transaction {} ({}) could not tell: {}",
                    connection.name(),
                    call.txnId(),
                    procedure,
                    e.getMessage());
            return List.of();
        }
        if (mismatch == null) {
            return List.of();
        }
        return List.of(checker.nonAdditive(
                procedure,
                mismatch.cell().table(),
                Increments.describe(mismatch.cell()),
                mismatch.cell().column(),
                mismatch.reason()));
    }

    /** The WARN line and the counter of a call that wrote outside its rule. */
    private void report(Execute call, List<UnsoundWrite> unsound, WorkerConnection connection, boolean rejected) {
        context.statistics().unsoundWrite();
        LOG.warn(
                "{}: unsound rule: {}{}; transaction {} {}",
                connection.name(),
                unsound.get(0).describe(),
                unsound.size() > 1 ? " (and " + (unsound.size() - 1) + " more write(s) outside it)" : "",
                call.txnId(),
                rejected
                        ? "rolled back before commit, its client gets " + RulesCheck.SQLSTATE + " (rulesCheck: reject)"
                        : "committed anyway (rulesCheck: warn)");
    }

    /**
     * A call that wrote outside its rule, rolled back: REJECTED with SQLSTATE {@value RulesCheck#SQLSTATE}, settled
     * with an empty write-set like a procedure error, so its dependents go on and no replica holds what it wrote.
     */
    private void reject(Execute call, WorkerConnection connection, CallAttempt attempt, List<UnsoundWrite> unsound)
            throws InterruptedException {
        UnsoundWrite first = unsound.get(0);
        CallOutcome rejected = new CallOutcome(
                call.callId(),
                call.txnId(),
                CallOutcome.Status.REJECTED,
                null,
                RulesCheck.SQLSTATE,
                "unsound rule: " + first.describe()
                        + (unsound.size() > 1 ? " (and " + (unsound.size() - 1) + " more write(s) outside it)" : "")
                        + "; " + context.node() + " rolled the call back, nothing changed (rulesCheck: reject)",
                false);
        settleRolledBack(call, connection, attempt, rejected);
    }

    /**
     * The procedure failed: rolled back; an empty write-set still tells every replica that it is done. Its client hears
     * USER_ABORTED once the log holds that entry: were it settled as abandoned instead, the call would run again.
     */
    private void abort(
            Execute call, WorkerConnection connection, CallAttempt attempt, SQLException error, CpuClock.Timing start)
            throws InterruptedException {
        CallOutcome aborted = CallRunner.aborted(call.callId(), call.txnId(), error);
        context.statistics().executed(call.call().procedure(), false, start.stop());
        settleRolledBack(call, connection, attempt, aborted);
    }

    /** A rolled-back call: an empty write-set carrying {@code outcome} tells every replica that it is done. */
    private void settleRolledBack(Execute call, WorkerConnection connection, CallAttempt attempt, CallOutcome outcome)
            throws InterruptedException {
        WriteSet empty = new WriteSet(
                        call.txnId(), context.node(), call.call().procedure(), call.backDependencies(), -1, List.of())
                .withOutcome(outcome, call.client());
        if (context.afterLog()) {
            if (commitInTotalOrder(call, empty, connection, attempt, false)) {
                context.completion().finish(call, outcome);
            }
        } else {
            handOverEmpty(call, connection, attempt, empty, outcome, context);
        }
    }

    /**
     * PSI: the empty write-set of a rolled-back call takes its place in this node's commit order like a commit, so
     * the log never holds it before a transaction of this node it depended on (a replica applying the log would wait
     * for that one forever: found by a chaos run), nor a later call that depended on it before it.
     */
    static void handOverEmpty(
            Execute call,
            WorkerConnection connection,
            CallAttempt attempt,
            WriteSet empty,
            CallOutcome outcome,
            ExecutionContext context) {
        long number;
        try {
            number = connection.drawCommitOrder();
        } catch (SQLException e) {
            throw new FatalException(
                    context.node() + ": the connection broke after transaction " + call.txnId() + " rolled back: "
                            + e.getMessage(),
                    e);
        }
        attempt.irrevocable();
        context.replyOnEntry(call, outcome, false);
        context.completion().visibleHere(call);
        Futures.whenDone(context.commitOrder().handOver(number, empty), (done, failure) -> {
            if (failure != null) {
                context.completion().fail(failure);
            }
        });
    }

    /**
     * SI: broadcast first, commit when the own write-set is delivered, in the total order. {@code open}: the call's
     * transaction is open and commits then (false for the empty write-set of a rolled-back call). Returns false if the
     * log settled the transaction as abandoned first (this node was taken for departed): it is rolled back, and the
     * scheduler runs the call again elsewhere, so its client must hear nothing from here.
     */
    private boolean commitInTotalOrder(
            Execute call, WriteSet writeSet, WorkerConnection connection, CallAttempt attempt, boolean open)
            throws InterruptedException {
        OwnTransaction transaction = context.own().register(writeSet.txnId(), Set.of());
        try {
            attempt.irrevocable();
            context.append(writeSet);
            if (transaction.awaitDecision() == OwnTransaction.Decision.ABANDONED) {
                if (open) {
                    connection.endTransactionOrStop(call, null);
                }
                return false;
            }
            if (open) {
                try {
                    CallRunner.commit(connection.jdbc());
                } catch (SQLException e) {
                    // Every other replica applies this write-set: a replica that cannot commit it has diverged.
                    throw new FatalException(
                            context.node() + " cannot commit transaction " + writeSet.txnId() + " ("
                                    + writeSet.procedure() + ") after its write-set was delivered: " + e.getMessage()
                                    + " (SQLSTATE " + e.getSQLState() + ")",
                            e);
                }
            }
        } finally {
            transaction.finished();
        }
        return true;
    }

    /** A PSI pipeline that failed at its COMMIT had drawn a number: later write-sets must not wait for it. */
    private void skipDrawnNumber(Execute call, WorkerConnection connection, SQLException failure) {
        long drawn;
        try {
            drawn = connection.numberDrawnByFailedPipeline();
        } catch (SQLException e) {
            throw new FatalException(
                    context.node() + ": the connection broke after transaction " + call.txnId() + " failed ("
                            + failure.getMessage() + "): " + e.getMessage(),
                    e);
        }
        if (drawn >= 0) {
            context.commitOrder().skip(drawn);
        }
    }
}
