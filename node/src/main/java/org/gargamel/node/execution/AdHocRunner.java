package org.gargamel.node.execution;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.node.access.ReadConnections;
import org.postgresql.PGStatement;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.Parser;
import org.postgresql.core.TypeInfo;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Runs an ad-hoc query (docs/node.md, Ad-hoc reads) on a connection logged in as the query's role, never on a worker's
 * connection and never as the node's own login ({@link ReadConnections}; docs/frontend.md, Security): in one
 * {@code REPEATABLE READ READ ONLY} transaction of its own with a statement timeout, so PostgreSQL itself refuses any
 * write ({@code nextval}, a function that writes, {@code SELECT ... FOR UPDATE}: 25006) and nothing needs a write-set,
 * and with the role's privileges, so PostgreSQL refuses what the role may not do (42501). The connection is wiped
 * ({@code DISCARD ALL}) before it serves another read: nothing a read leaves in its session reaches the next one.
 *
 * <p>The text is always {@code PREPARE}d, never run as it came: PREPARE takes only one query (SELECT, VALUES, TABLE,
 * WITH, or a write that READ ONLY then refuses), so a {@code SET}, {@code COMMIT}, {@code DISCARD} or any other command
 * that would outlive the transaction on its connection is a syntax error, and the parameters are bound by
 * PostgreSQL at {@code EXECUTE} as literals of the declared types. The text must also be one statement as pgjdbc splits
 * statements, so nothing is sent after it in the same string. (The session is also wiped after each read; the PREPARE
 * keeps a read's own transaction from being ended early, and its errors exact.) The query is prepared as a subquery,
 * {@code SELECT * FROM (text) AS gargamel_read LIMIT n + 1} for a node returning at most n rows ({@code adhocMaxRows}):
 * PostgreSQL stops after n + 1 rows, and a read returning more is refused with 54000 instead of being held in memory;
 * a text that is no query (a {@code DELETE}, a {@code SET}) is therefore a syntax error.
 */
final class AdHocRunner {
    /** The prepared statement's name on a read connection (one query at a time there). */
    private static final String NAME = "gargamel_adhoc";

    private AdHocRunner() {}

    /**
     * Runs or describes {@code call}'s query on a connection of {@code reads} logged in as the call's role; every
     * failure is the outcome, never an exception.
     */
    static CallOutcome run(ReadConnections reads, Execute call, AdHocReads settings, String node) {
        if (!settings.enabled()) {
            return refused(
                    call,
                    "0A000",
                    node + " does not run ad-hoc queries (its configuration says adhocReads: false): call a "
                            + "procedure of the rules instead");
        }
        String role = call.call().role();
        if (role == null) {
            return refused(
                    call,
                    "42501",
                    node + " runs an ad-hoc query only as the database role of the user who sent it (a front end "
                            + "maps its users to roles), never as its own login");
        }
        Connection connection;
        try {
            connection = reads.borrow(role);
        } catch (SQLException e) {
            return aborted(call, e, Integer.MAX_VALUE);
        }
        boolean healthy = false;
        try {
            CallOutcome outcome = run(connection, call, settings);
            healthy = true;
            return outcome;
        } finally {
            if (healthy) {
                reads.release(role, connection); // wiped, or closed if it cannot be
            } else {
                reads.discard(connection);
            }
        }
    }

    /** Runs or describes {@code call}'s query on {@code connection}, idle and auto-commit, leaving it idle. */
    private static CallOutcome run(Connection connection, Execute call, AdHocReads settings) {
        AdHocQuery query = call.call().adHoc();
        String prepare;
        try {
            if (Parser.parseJdbcSql(query.sql(), true, false, true, false, false)
                            .size()
                    != 1) {
                return refused(call, "42601", "an ad-hoc query is one statement; this text holds several");
            }
            // Within a LIMIT of one more row than the node returns: PostgreSQL stops there (an EXECUTE would else
            // materialize the whole result first), and one more row tells a result that fits from one that does not.
            prepare = "PREPARE " + NAME + parameterTypes(connection, query.parameterTypes()) + " AS SELECT * FROM (\n";
        } catch (SQLException e) {
            return CallRunner.aborted(call.callId(), call.txnId(), e);
        }
        try (Statement statement = connection.createStatement()) {
            statement.setEscapeProcessing(false); // the text goes to PostgreSQL as written: no JDBC {escapes}
            statement.execute(CallRunner.Isolation.REPEATABLE_READ.begin + " READ ONLY; SET LOCAL statement_timeout = "
                    + settings.statementTimeoutSeconds() * 1000L);
            try {
                statement.execute(prepare + withoutTrailingSemicolons(query.sql()) + "\n) AS gargamel_read LIMIT "
                        + ((long) settings.maxRows() + 1));
            } catch (SQLException e) {
                throw new PrepareFailed(e);
            }
            CallOutcome outcome = query.kind() == AdHocQuery.Kind.RUN
                    ? runPrepared(statement, call, query, settings)
                    : describePrepared(connection, statement, call);
            statement.execute("DEALLOCATE " + NAME + "; COMMIT");
            return outcome;
        } catch (PrepareFailed e) {
            return aborted(call, e.getCause(), prepare.length()); // the release rolls back and deallocates
        } catch (SQLException e) {
            return aborted(call, e, Integer.MAX_VALUE); // a position past PREPARE is not in the client's text
        }
    }

    /**
     * Runs the prepared query, reading at most the settings' rows (PostgreSQL is asked for one more, to tell a result
     * that fits from one that does not, and sends no others) and bytes.
     */
    private static CallOutcome runPrepared(Statement statement, Execute call, AdHocQuery query, AdHocReads settings)
            throws SQLException {
        StringBuilder execute = new StringBuilder("EXECUTE ").append(NAME);
        if (!query.parameters().isEmpty()) {
            execute.append('(');
            for (int i = 0; i < query.parameters().size(); i++) {
                execute.append(i == 0 ? "" : ", ")
                        .append(literal(query.parameters().get(i)));
            }
            execute.append(')');
        }
        try (ResultSet rows = statement.executeQuery(execute.toString())) {
            return CallOutcome.committedReadOnly(
                    call.callId(),
                    call.txnId(),
                    CallRunner.resultRows(rows, settings.maxRows(), settings.maxCharacters()));
        } catch (SQLException e) {
            if (e.getMessage() != null && e.getMessage().contains("maxResultBuffer")) {
                // pgjdbc stopped buffering the result at the connection's limit (ReadConnections): a few huge values.
                throw new SQLException(
                        "the query returns more than " + settings.maxResultBytes() + " bytes, the most this node "
                                + "buffers for one (4 per character of adhocMaxCharacters): narrow it, or select "
                                + "fewer or shorter values",
                        "54000",
                        e);
            }
            throw e;
        }
    }

    /**
     * The statement's parameter types (as PostgreSQL inferred or was told them) and its columns, without running it:
     * the outcome's {@code result} lists the parameter type OIDs, comma-separated, and its rows are the columns alone.
     */
    private static CallOutcome describePrepared(Connection connection, Statement statement, Execute call)
            throws SQLException {
        List<Integer> parameterTypes = new ArrayList<>();
        try (ResultSet types = statement.executeQuery("SELECT unnest(parameter_types::oid[]) FROM "
                + "pg_catalog.pg_prepared_statements WHERE name = '" + NAME + "'")) {
            while (types.next()) {
                parameterTypes.add((int) types.getLong(1));
            }
        }
        StringBuilder execute = new StringBuilder("EXECUTE ").append(NAME);
        if (!parameterTypes.isEmpty()) {
            execute.append('(');
            for (int i = 0; i < parameterTypes.size(); i++) {
                execute.append(i == 0 ? "NULL" : ", NULL");
            }
            execute.append(')');
        }
        List<ResultRows.Column> columns = new ArrayList<>();
        try (PreparedStatement described = connection.prepareStatement(execute.toString())) {
            // Never server-prepared by pgjdbc: a named statement would keep the columns of an earlier query.
            described.unwrap(PGStatement.class).setPrepareThreshold(0);
            ResultSetMetaData metaData = described.getMetaData(); // Parse and Describe only: nothing runs
            TypeInfo types = connection.unwrap(BaseConnection.class).getTypeInfo();
            for (int i = 1; metaData != null && i <= metaData.getColumnCount(); i++) {
                columns.add(new ResultRows.Column(
                        metaData.getColumnLabel(i), types.getPGType(metaData.getColumnTypeName(i))));
            }
        }
        StringBuilder result = new StringBuilder();
        for (int type : parameterTypes) {
            result.append(result.length() == 0 ? "" : ",").append(type);
        }
        return new CallOutcome(
                call.callId(),
                call.txnId(),
                CallOutcome.Status.COMMITTED,
                result.toString(),
                null,
                null,
                false,
                new ResultRows(columns, List.of()),
                null);
    }

    /** {@code sql} without the semicolons and white space it may end with (a subquery cannot hold them). */
    static String withoutTrailingSemicolons(String sql) {
        int end = sql.length();
        while (end > 0 && (sql.charAt(end - 1) == ';' || Character.isWhitespace(sql.charAt(end - 1)))) {
            end--;
        }
        return sql.substring(0, end);
    }

    /** {@code (type, ...)} for PREPARE, each declared OID by name, {@code unknown} where PostgreSQL is to infer it. */
    private static String parameterTypes(Connection connection, List<Integer> oids) throws SQLException {
        if (oids.isEmpty()) {
            return "";
        }
        TypeInfo types = connection.unwrap(BaseConnection.class).getTypeInfo();
        StringBuilder list = new StringBuilder("(");
        for (int i = 0; i < oids.size(); i++) {
            int oid = oids.get(i);
            String name = oid == 0 ? "unknown" : types.getPGType(oid);
            if (name == null) {
                throw new SQLException("type with OID " + oid + " does not exist", "42704");
            }
            list.append(i == 0 ? "" : ", ").append(name);
        }
        return list.append(')').toString();
    }

    /** A value as an escape-string literal: backslashes and quotes doubled, so nothing can leave the literal. */
    private static String literal(String value) {
        if (value == null) {
            return "NULL";
        }
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    /**
     * PostgreSQL's error as the outcome; a position inside the PREPARE is moved back by {@code offset}, the length of
     * what this class put before the client's text, so it points into the client's statement.
     */
    private static CallOutcome aborted(Execute call, SQLException error, int offset) {
        if (error instanceof PSQLException server && server.getServerErrorMessage() != null) {
            ServerErrorMessage message = server.getServerErrorMessage();
            int position = message.getPosition() > offset ? message.getPosition() - offset : 0;
            return CallOutcome.userAborted(
                    call.callId(),
                    call.txnId(),
                    error.getSQLState(),
                    error.getMessage(),
                    new CallOutcome.ErrorFields(
                            message.getMessage(), message.getDetail(), message.getHint(), position));
        }
        return CallRunner.aborted(call.callId(), call.txnId(), error);
    }

    private static CallOutcome refused(Execute call, String sqlState, String message) {
        return CallOutcome.userAborted(
                call.callId(), call.txnId(), sqlState, message, new CallOutcome.ErrorFields(message, null, null));
    }

    /** The client's text could not be prepared: its error positions are shifted by the PREPARE before it. */
    private static final class PrepareFailed extends Exception {
        private static final long serialVersionUID = 1L;

        PrepareFailed(SQLException cause) {
            super(cause);
        }

        @Override
        public synchronized SQLException getCause() {
            return (SQLException) super.getCause();
        }
    }
}
