package org.gargamel.frontend.session;

import org.gargamel.common.wire.CallOutcome;
import org.gargamel.frontend.protocol.PgTypes;

/** An error for the client: SQLSTATE, message and optional detail, hint and position (an ErrorResponse). */
final class SqlError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final String sqlState;
    final String detail;
    final String hint;
    /** Where in the statement's text the error is (1-based characters); 0: nowhere in particular. */
    final int position;

    SqlError(String sqlState, String message, String detail, String hint, int position) {
        super(message);
        this.sqlState = sqlState;
        this.detail = detail;
        this.hint = hint;
        this.position = position;
    }

    SqlError(String sqlState, String message, String detail, String hint) {
        this(sqlState, message, detail, hint, 0);
    }

    SqlError(String sqlState, String message) {
        this(sqlState, message, null, null);
    }

    /** A value that cannot be converted, with its SQLSTATE. */
    static SqlError of(PgTypes.ValueException e) {
        return new SqlError(e.sqlState(), e.getMessage());
    }

    /** The client's error for an outcome that did not commit: PostgreSQL's fields, or the cluster's refusal. */
    static SqlError of(CallOutcome outcome) {
        if (outcome.status() == CallOutcome.Status.REJECTED) {
            return new SqlError(rejectionState(outcome.message()), outcome.message());
        }
        CallOutcome.ErrorFields error = outcome.error();
        return new SqlError(
                outcome.sqlState() != null ? outcome.sqlState() : "P0001",
                error != null && error.message() != null ? error.message() : outcome.message(),
                error != null ? error.detail() : null,
                error != null ? error.hint() : null,
                error != null ? error.position() : 0);
    }

    /** A call the library could not settle: its outcome is unknown (08007); overload (53000); else the cluster's refusal. */
    private static String rejectionState(String message) {
        if (message != null && (message.startsWith("TIMED_OUT") || message.startsWith("DISCONNECTED"))) {
            return "08007";
        }
        if (message != null && message.startsWith("OVERLOADED")) {
            return "53000";
        }
        return "XX000";
    }
}
