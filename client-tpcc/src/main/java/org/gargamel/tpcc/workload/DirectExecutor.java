package org.gargamel.tpcc.workload;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * The direct mode: one terminal, one JDBC connection to one PostgreSQL server, each call in its own
 * transaction; serialization failures and deadlocks are retried (and counted), errors the procedure
 * raised are user aborts.
 */
public final class DirectExecutor implements CallExecutor {
    private final Connection connection;
    private final int maxRetries;

    public DirectExecutor(String jdbcUrl, DirectIsolation isolation, int maxRetries) throws SQLException {
        this.connection = JdbcConnections.connect(jdbcUrl);
        this.maxRetries = maxRetries;
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(isolation.jdbcLevel());
    }

    @Override
    public ExecutionOutcome execute(ProcedureCall call) {
        int conflictAborts = 0;
        while (true) {
            try (PreparedStatement statement = ProcedureCallBinder.prepare(connection, call);
                    ResultSet result = statement.executeQuery()) {
                String firstColumn = result.next() ? result.getString(1) : null;
                while (result.next()) {
                    // Drain the rest of the procedure's result.
                }
                connection.commit();
                return ExecutionOutcome.committed(conflictAborts, conflictAborts, firstColumn);
            } catch (SQLException e) {
                rollbackQuietly();
                SqlErrorKind kind = TpccErrors.classify(e.getSQLState());
                if (kind == SqlErrorKind.RETRYABLE) {
                    conflictAborts++;
                    if (conflictAborts <= maxRetries) {
                        continue;
                    }
                }
                ExecutionOutcome.Kind outcome = kind == SqlErrorKind.USER_ABORT
                        ? ExecutionOutcome.Kind.USER_ABORT
                        : ExecutionOutcome.Kind.FAILED;
                return new ExecutionOutcome(
                        outcome, conflictAborts, Math.min(conflictAborts, maxRetries), e.getSQLState(), e.getMessage());
            }
        }
    }

    private void rollbackQuietly() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; the next call reports that with its own SQLSTATE.
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing a broken connection: nothing left to release.
        }
    }
}
