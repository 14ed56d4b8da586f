package org.gargamel.common.call;

import java.sql.SQLException;

/**
 * What a failed call means, decided in one place for every executor (direct, node, certification).
 */
public enum SqlErrorKind {
    /** The procedure itself raised an error (e.g. TPC-C's unused item): an expected rollback. */
    USER_ABORT,
    /** Serialization failure or deadlock: the transaction may succeed if run again. */
    RETRYABLE,
    /** Anything else: connection loss, a missing function, a bug. */
    FATAL;

    /**
     * Classifies by SQLSTATE: 40001 and 40P01 are retryable; errors raised from PL/pgSQL (class P0, the
     * application's own class GA, and the argument-check states the TPC-C procedures use) are user aborts.
     */
    public static SqlErrorKind classify(SQLException error) {
        return classify(error.getSQLState());
    }

    public static SqlErrorKind classify(String sqlState) {
        if (sqlState == null) {
            return FATAL;
        }
        if (sqlState.equals("40001") || sqlState.equals("40P01")) {
            return RETRYABLE;
        }
        if (sqlState.startsWith("P0") || sqlState.startsWith("GA") || sqlState.equals("22023")) {
            return USER_ABORT;
        }
        return FATAL;
    }
}
