package org.gargamel.frontend.session;

import java.util.ArrayDeque;
import java.util.List;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.sql.SqlStatement;
import org.gargamel.frontend.sql.SqlSyntaxException;

/**
 * The simple query protocol: a query string's statements run in turn, each answered with its rows in text; the first
 * error ends the string, and ReadyForQuery follows with the transaction's status. The string is an implicit
 * transaction of its own outside a block, so two calls that write in it are refused before either runs.
 */
final class SimpleQuery {
    private final Session session;
    private final Replies replies;
    private final Transaction transaction;
    private final Commands commands;
    private final Calls calls;
    /** The statements of the query string under way still to run; null: none under way. */
    private ArrayDeque<SqlStatement> remaining;

    SimpleQuery(Session session, Transaction transaction, Commands commands, Calls calls) {
        this.session = session;
        this.replies = session.replies();
        this.transaction = transaction;
        this.commands = commands;
        this.calls = calls;
    }

    /** Whether a query string is under way (its errors end it rather than skip to Sync). */
    boolean running() {
        return remaining != null;
    }

    void start(String sql) {
        List<SqlStatement> parsed;
        try {
            parsed = session.shared().parser().parseAll(sql);
        } catch (SqlSyntaxException e) {
            replies.error(new SqlError("42601", e.getMessage()));
            end(true);
            return;
        }
        if (parsed.size() == 1 && parsed.get(0) instanceof SqlStatement.Empty) {
            BackendMessages.emptyQueryResponse(replies.out());
            replies.readyForQuery(transaction.block());
            return;
        }
        if (transaction.severalWritingCalls(parsed, calls::writes)) {
            replies.error(new SqlError("0A000", Transaction.SEVERAL_WRITING_CALLS));
            end(true);
            return;
        }
        remaining = new ArrayDeque<>();
        for (SqlStatement statement : parsed) {
            if (!(statement instanceof SqlStatement.Empty)) {
                remaining.add(statement);
            }
        }
        proceed();
    }

    /** Runs the statements in turn; one that waits for the cluster resumes the string when its outcome comes. */
    private void proceed() {
        while (remaining != null && !remaining.isEmpty() && !session.busy()) {
            SqlStatement statement = remaining.poll();
            try {
                run(statement);
            } catch (SqlError e) {
                replies.error(e);
                end(true);
                return;
            }
        }
        if (remaining != null && remaining.isEmpty() && !session.busy()) {
            end(false);
        }
    }

    private void run(SqlStatement statement) {
        transaction.block().admit(statement);
        if (statement instanceof SqlStatement.Call call) {
            ProcedureCall procedureCall = calls.build(call, List.of());
            if (calls.writes(call)) {
                transaction.noteWrite(call.procedure());
            }
            calls.submit(procedureCall, outcome -> {
                if (outcome.status() != CallOutcome.Status.COMMITTED) {
                    failed(outcome);
                    return;
                }
                session.shared().shapes().learn(call.procedure(), outcome.rows());
                ResultRows rows = ResultEncoder.callRows(call, outcome);
                ResultEncoder.send(replies.out(), rows, List.of(), true, ResultEncoder.callTag(call, rows));
                proceed();
            });
        } else if (statement instanceof SqlStatement.AdHocRead read) {
            calls.submit(ProcedureCall.adHoc(AdHocQuery.run(read.sql(), List.of(), List.of())), outcome -> {
                if (outcome.status() != CallOutcome.Status.COMMITTED) {
                    failed(outcome);
                    return;
                }
                ResultRows rows = outcome.rows() != null ? outcome.rows() : ResultRows.EMPTY;
                ResultEncoder.send(
                        replies.out(),
                        rows,
                        List.of(),
                        true,
                        "SELECT " + rows.rows().size());
                proceed();
            });
        } else {
            commands.run(statement, List.of(), true);
        }
    }

    private void failed(CallOutcome outcome) {
        replies.error(SqlError.of(outcome));
        end(true);
    }

    /** The string ended (after an error when {@code failed}): ReadyForQuery with the transaction's status. */
    void end(boolean failed) {
        remaining = null;
        calls.cycleEnded();
        if (failed) {
            transaction.failed();
        }
        transaction.endImplicit();
        replies.readyForQuery(transaction.block());
    }
}
