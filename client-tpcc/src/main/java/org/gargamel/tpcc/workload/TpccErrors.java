package org.gargamel.tpcc.workload;

import org.gargamel.common.call.SqlErrorKind;

/**
 * Which errors of the TPC-C procedures (schema/procedures.sql) are expected rollbacks: anything raised from PL/pgSQL
 * (class P0), the kit's own class GA (GA001, the 1% of New-Orders with an unused item, clause 2.4.2.3) and 22023, the
 * procedures' argument checks. Serialization failures and deadlocks stay retryable.
 */
public final class TpccErrors {
    private TpccErrors() {}

    public static SqlErrorKind classify(String sqlState) {
        if (sqlState != null && (sqlState.startsWith("GA") || sqlState.equals("22023"))) {
            return SqlErrorKind.USER_ABORT;
        }
        return SqlErrorKind.classify(sqlState);
    }
}
