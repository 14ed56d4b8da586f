package org.gargamel.tpcc.workload;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * A terminal's calls through a Gargamel front end (docs/frontend.md) with pgjdbc, as an application would make them:
 * one connection per terminal in autocommit (each call is a transaction of its own at the cluster), one
 * {@code SELECT * FROM procedure(?, ...)} PreparedStatement per procedure, kept, so that pgjdbc prepares it on the
 * server once it has run {@code prepareThreshold} (5) times. A procedure's error arrives as its SQLSTATE and is a user
 * abort exactly as on the library path ({@link TpccErrors}); anything else (08007: outcome unknown, XX000: rejected, a
 * broken connection) is a failure. No retries: Gargamel has no conflict aborts to retry.
 */
public final class PgwireExecutor implements CallExecutor {
    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    /** Connects to the front end at {@code jdbcUrl} (a jdbc:postgresql: URL) as {@code user} with {@code password}. */
    public PgwireExecutor(String jdbcUrl, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (password != null) {
            properties.setProperty("password", password);
        }
        properties.setProperty("connectTimeout", Integer.toString(JdbcConnections.CONNECT_TIMEOUT_SECONDS));
        properties.setProperty("ApplicationName", "gargamel-tpcc");
        this.connection = DriverManager.getConnection(jdbcUrl, properties);
    }

    @Override
    public ExecutionOutcome execute(ProcedureCall call) {
        try {
            PreparedStatement statement = statement(call);
            ProcedureCallBinder.bind(connection, statement, call);
            try (ResultSet result = statement.executeQuery()) {
                String firstColumn = result.next() ? result.getString(1) : null;
                while (result.next()) {
                    // Drain the rest of the procedure's result.
                }
                return ExecutionOutcome.committed(0, 0, firstColumn);
            }
        } catch (SQLException e) {
            ExecutionOutcome.Kind kind = TpccErrors.classify(e.getSQLState()) == SqlErrorKind.USER_ABORT
                    ? ExecutionOutcome.Kind.USER_ABORT
                    : ExecutionOutcome.Kind.FAILED;
            return new ExecutionOutcome(kind, 0, 0, e.getSQLState(), e.getMessage());
        }
    }

    private PreparedStatement statement(ProcedureCall call) throws SQLException {
        String sql = ProcedureCallBinder.sql(call.procedure(), call.arguments().size());
        PreparedStatement statement = statements.get(sql);
        if (statement == null) {
            statement = connection.prepareStatement(sql);
            statements.put(sql, statement);
        }
        return statement;
    }

    @Override
    public void close() {
        try {
            connection.close(); // closes its statements
        } catch (SQLException ignored) {
            // Closing a broken connection: nothing left to release.
        }
    }
}
