package org.gargamel.node.execution;

import java.sql.SQLException;
import java.util.List;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.writeset.OwnTransaction;

/**
 * Round-robin mode, the certification baseline (§6.3.1): calls run concurrently at REPEATABLE READ with no ordering;
 * each broadcasts its write-set with its snapshot and commits only if certification (in delivery order, alike at
 * every node) finds no winner since that snapshot touching its rows. A loser, a serialization failure, a deadlock and
 * an execution cancelled to make room for a certified write-set are rolled back and executed again, transparently.
 */
final class CertifiedExecution implements UpdateExecution {
    private final ExecutionContext context;
    private final Certification certification;

    CertifiedExecution(ExecutionContext context, Certification certification) {
        this.context = context;
        this.certification = certification;
    }

    @Override
    public void execute(Execute call, WorkerConnection connection, CallAttempt attempt) throws InterruptedException {
        CpuClock.Timing start = connection.cpu().start();
        String procedure = call.call().procedure();
        while (true) {
            certification.awaitRoom();
            long snapshot = certification.snapshot();
            CallRunner.Ran ran;
            boolean cancelled;
            try (CallRunner.Pipeline pipeline = CallRunner.update(
                    connection.jdbc(),
                    call.call(),
                    call.txnId(),
                    context.types(),
                    CallRunner.Isolation.REPEATABLE_READ,
                    false)) {
                connection.openCancellationWindow();
                try {
                    ran = pipeline.execute();
                } finally {
                    cancelled = connection.closeCancellationWindow();
                }
            } catch (SQLException e) {
                connection.endTransactionOrStop(call, e);
                if (cancelled(e) || SqlErrorKind.classify(e) == SqlErrorKind.RETRYABLE) {
                    conflictAbort();
                    continue;
                }
                CallOutcome aborted = CallRunner.aborted(call.callId(), call.txnId(), e);
                WriteSet empty = new WriteSet(call.txnId(), context.node(), procedure, new long[0], snapshot, List.of())
                        .withOutcome(aborted, call.client());
                attempt.irrevocable();
                context.statistics().executed(procedure, false, start.stop());
                // Answered once the log holds the entry: were it settled as abandoned, the call would run again.
                context.replyOnEntry(call, aborted, false);
                context.completion().visibleHere(call);
                context.append(empty);
                return;
            }
            if (cancelled) {
                // Cancelled after its statement had finished: the cancel was meant to free rows for a winner. Roll
                // back rather than risk the stray cancel reaching a later statement (the COMMIT of a winner).
                connection.endTransactionOrStop(call, null);
                conflictAbort();
                continue;
            }
            CallOutcome committed = CallOutcome.committed(call.callId(), call.txnId(), ran.rows());
            WriteSet writeSet = new WriteSet(
                            call.txnId(), context.node(), procedure, new long[0], snapshot, ran.changes())
                    .withOutcome(committed, call.client());
            OwnTransaction transaction = context.own().register(call.txnId(), certification.rows(ran.changes()));
            OwnTransaction.Decision decision;
            try {
                attempt.irrevocable();
                context.append(writeSet);
                decision = transaction.awaitDecision(connection::endTransaction);
                if (decision == OwnTransaction.Decision.COMMIT) {
                    commitWinner(connection, writeSet);
                } else {
                    connection.endTransaction();
                }
            } catch (SQLException e) {
                throw new FatalException(
                        context.node() + ": the connection broke while transaction " + call.txnId() + " (" + procedure
                                + ") awaited its certification: " + e.getMessage(),
                        e);
            } finally {
                transaction.finished();
            }
            if (decision == OwnTransaction.Decision.COMMIT) {
                context.statistics().executed(procedure, true, start.stop());
                context.completion().finish(call, committed);
                return;
            }
            if (decision == OwnTransaction.Decision.ABANDONED) {
                return; // this node was taken for departed: the scheduler runs the call again elsewhere
            }
            attempt.revocable(); // lost everywhere alike: nothing of it exists anywhere
            conflictAbort();
        }
    }

    private void commitWinner(WorkerConnection connection, WriteSet writeSet) {
        try {
            CallRunner.commit(connection.jdbc());
        } catch (SQLException e) {
            // Every other replica applies this winner: a replica that cannot commit it has diverged.
            throw new FatalException(
                    context.node() + " cannot commit certified transaction " + writeSet.txnId() + " ("
                            + writeSet.procedure() + "): " + e.getMessage() + " (SQLSTATE " + e.getSQLState() + ")",
                    e);
        }
    }

    private static boolean cancelled(SQLException e) {
        return WorkerConnection.QUERY_CANCELED.equals(e.getSQLState());
    }

    private void conflictAbort() {
        context.statistics().conflictAbort();
        context.statistics().retry();
    }
}
