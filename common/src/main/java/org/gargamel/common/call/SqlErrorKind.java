package org.gargamel.common.call;

import java.sql.SQLException;

/**
 * What a failed call means, decided in one place for every executor (direct, node, certification). Only PostgreSQL's
 * own meanings live here; an application that raises its own SQLSTATEs for expected rollbacks says so itself (the
 * TPC-C kit's {@code TpccErrors}).
 */
public enum SqlErrorKind {
    /** The procedure itself raised an error from PL/pgSQL (class P0, e.g. RAISE EXCEPTION): an expected rollback. */
    USER_ABORT,
    /** Serialization failure or deadlock: the transaction may succeed if run again. */
    RETRYABLE,
    /** Anything else: connection loss, a missing function, a bug. */
    FATAL;

    public static SqlErrorKind classify(SQLException error) {
        return classify(error.getSQLState());
    }

    /**
     * Whether {@code failure} or one of its causes says the server is gone or going: SQLSTATE class 08 (connection
     * exception) or 57P01-57P03 (a server shutting down, crashing or recovering).
     */
    public static boolean isConnectionLoss(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException e && e.getSQLState() != null) {
                String state = e.getSQLState();
                if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** 40001 and 40P01 are retryable; class P0 (raised from PL/pgSQL) is a user abort; the rest are fatal. */
    public static SqlErrorKind classify(String sqlState) {
        if (sqlState == null) {
            return FATAL;
        }
        if (sqlState.equals("40001") || sqlState.equals("40P01")) {
            return RETRYABLE;
        }
        if (sqlState.startsWith("P0")) {
            return USER_ABORT;
        }
        return FATAL;
    }
}
