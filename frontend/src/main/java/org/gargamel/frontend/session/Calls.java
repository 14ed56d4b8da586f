package org.gargamel.frontend.session;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClientException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.protocol.ProtocolException;
import org.gargamel.frontend.sql.SqlStatement;

/**
 * A logged-in session's calls to the cluster: built from a statement, checked against the role's privileges, sent as
 * the session's role through its library session (opened with its first call), and their outcomes handed back on the
 * session's thread, after which the messages that waited for them are handled. While a call is out the session is
 * busy. A CancelRequest while a call is out stops the calls of this query or Sync cycle not sent yet (57014).
 */
final class Calls {
    private final Session session;
    /** The database role every call and read of this session runs as. */
    private final String role;
    /** What an outcome's handling that failed becomes (XX000 to the client, as after any error). */
    private final Consumer<RuntimeException> internalError;
    /** The library session this connection's calls go through (read-your-writes), opened with its first call. */
    private CallSessions.CallSession calls;
    /**
     * A CancelRequest came while a call was at the cluster: that call runs to its end, and no further call of this
     * query or Sync cycle is sent (57014). Cleared when the cycle ends.
     */
    private boolean cancelRequested;

    Calls(Session session, String role, Consumer<RuntimeException> internalError) {
        this.session = session;
        this.role = role;
        this.internalError = internalError;
    }

    void cancelRequested() {
        cancelRequested = true;
    }

    /** The query or Sync cycle ended: a cancel no longer applies. */
    void cycleEnded() {
        cancelRequested = false;
    }

    /** Whether {@code statement} is a call of a procedure that writes. */
    boolean writes(SqlStatement statement) {
        return statement instanceof SqlStatement.Call call
                && !session.shared().calls().rule(call.procedure()).readOnly();
    }

    /** The call of {@code call} with the parameters' texts; a value that does not fit its type is an error. */
    ProcedureCall build(SqlStatement.Call call, List<String> parameters) {
        try {
            return session.shared().calls().build(call, parameters);
        } catch (PgTypes.ValueException e) {
            throw SqlError.of(e);
        }
    }

    /** Sends {@code call} to the cluster; {@code then} runs on this session's thread with its outcome. */
    void submit(ProcedureCall call, Consumer<CallOutcome> then) {
        if (cancelRequested) {
            throw new SqlError(
                    "57014",
                    "canceling statement due to user request",
                    "the call of " + call.procedure() + " was not sent to the cluster",
                    null);
        }
        session.busy(true);
        CompletableFuture<Boolean> allowed;
        try {
            allowed =
                    call.adHoc() != null ? null : session.shared().privileges().mayExecute(role, call.procedure());
            if (allowed == null || Boolean.TRUE.equals(allowed.getNow(false))) {
                send(call, then);
                return;
            }
        } catch (RuntimeException e) {
            session.busy(false); // nothing was sent: the session goes on with the next message
            throw e;
        }
        // Asked of the catalogue replica off this thread; the answer comes back here.
        Futures.whenDone(allowed, (yes, failure) -> {
            try {
                session.channel().executor().execute(() -> privilegeArrived(call, failure == null && !yes, then));
            } catch (RejectedExecutionException e) {
                Session.LOG.debug(
                        "the privilege of {} came after the front end stopped", call); // its connection is gone
            }
        });
    }

    private void privilegeArrived(ProcedureCall call, boolean refused, Consumer<CallOutcome> then) {
        if (session.closed()) {
            return;
        }
        if (refused) {
            outcomeArrived(
                    call,
                    CallOutcome.userAborted(-1, -1, "42501", "permission denied for function " + call.procedure()),
                    null,
                    then);
        } else if (cancelRequested) { // a cancel came while the catalogue was asked: not sent
            outcomeArrived(
                    call,
                    CallOutcome.userAborted(
                            -1,
                            -1,
                            "57014",
                            "canceling statement due to user request: the call of " + call.procedure()
                                    + " was not sent to the cluster"),
                    null,
                    then);
        } else {
            try {
                send(call, then);
            } catch (RuntimeException e) {
                outcomeArrived(call, null, e, then); // its outcome, and the session goes on
            }
        }
    }

    /** Sends {@code call}, which the user's role may execute as far as the front end knows, to the cluster. */
    private void send(ProcedureCall call, Consumer<CallOutcome> then) {
        if (calls == null) {
            calls = session.shared().cluster().open(); // the connection's calls read its acknowledged writes
        }
        CompletableFuture<CallOutcome> future =
                calls.submit(call.asRole(role)); // the user's privileges, never the node's
        session.shared().submitted().incrementAndGet();
        Futures.whenDone(future, (outcome, failure) -> {
            try {
                session.channel().executor().execute(() -> outcomeArrived(call, outcome, failure, then));
            } catch (RejectedExecutionException e) {
                Session.LOG.debug("the outcome of {} came after the front end stopped", call); // its connection is gone
            }
        });
    }

    /** A call's outcome, on this session's thread: handled, then the messages that waited for it. */
    private void outcomeArrived(
            ProcedureCall call, CallOutcome outcome, Throwable failure, Consumer<CallOutcome> then) {
        session.busy(false);
        if (session.closed()) {
            return;
        }
        try {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                then.accept(CallOutcome.rejected(-1, -1, clientFailure(cause)));
            } else {
                then.accept(outcome);
            }
        } catch (ProtocolException e) {
            session.fatal(e.sqlState(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            Session.LOG.warn(
                    "connection {}: handling the outcome of {} failed",
                    session.channel().channel().remoteAddress(),
                    call,
                    e);
            internalError.accept(e);
        }
        session.drain();
    }

    /** The library's failure (overloaded, timed out, disconnected) as the rejection the client is told of. */
    private static String clientFailure(Throwable cause) {
        if (cause instanceof GargamelClientException client) {
            return client.reason() + ": " + client.getMessage();
        }
        return "the call failed: " + cause;
    }
}
