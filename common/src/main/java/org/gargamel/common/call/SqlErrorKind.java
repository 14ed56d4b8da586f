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
