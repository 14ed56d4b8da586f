package org.gargamel.node.execution;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * Runs calls on a worker's connection in as few round trips as possible: on a loaded machine every round trip to
 * PostgreSQL costs a context switch each way, and a worker used to spend four per update call (set the isolation,
 * call, read the captured changes, commit) where one does. The connection is in auto-commit mode and the transaction
 * is explicit: {@code BEGIN ISOLATION LEVEL ...; SELECT * FROM p(...); SELECT <captured changes>[; COMMIT]} goes out
 * as one pipeline of extended-protocol messages with a single Sync, and the server runs the statements in order.
 *
 * <p>If any statement fails the server skips the rest up to the Sync, so a failed call never commits; the caller then
 * ends the transaction ({@link WorkerConnection#endTransaction}; the block is open and aborted). Binding the arguments
 * ({@link #update}, {@link #readOnly}) happens before anything reaches the server, so a call that cannot be bound changed nothing.
 */
final class CallRunner {

    /** An update call that ran: its result (first row as text) and the changes it made. */
    record Ran(String result, List<WriteSet.RowChange> changes) {}

    /** A call's statement, bound and not yet sent. */
    static final class Pipeline implements AutoCloseable {
        private final PreparedStatement statement;
        private final ProcedureCall call;
        private final int expectedResultSets;

        private Pipeline(PreparedStatement statement, ProcedureCall call, int expectedResultSets) {
            this.statement = statement;
            this.call = call;
            this.expectedResultSets = expectedResultSets;
        }

        /** Sends the pipeline and reads the call's result and, for an update call, its captured changes. */
        Ran execute() throws SQLException {
            boolean isResultSet = statement.execute();
            String result = null;
            String recorded = null;
            int resultSets = 0;
            while (true) {
                if (isResultSet) {
                    try (ResultSet rows = statement.getResultSet()) {
                        if (resultSets++ == 0) {
                            result = firstRowText(rows);
                        } else {
                            recorded = rows.next() ? rows.getString(1) : null;
                        }
                    }
                } else if (statement.getUpdateCount() == -1) {
                    break;
                }
                isResultSet = statement.getMoreResults();
            }
            if (resultSets != expectedResultSets) {
                throw new SQLException(
                        "the call of " + call.procedure() + " returned " + resultSets + " result sets where "
                                + expectedResultSets + " were expected",
                        "XX000");
            }
            return new Ran(result, expectedResultSets > 1 ? WriteSetCapture.parse(recorded) : List.of());
        }

        @Override
        public void close() throws SQLException {
            statement.close();
        }
    }

    private CallRunner() {}

    /** Dedicates {@code connection} to a worker: auto-commit, transactions opened by the pipelines. */
    static void prepareConnection(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    /**
     * Binds an update call: a new transaction at {@code isolation}, the call, the read of what it changed, and COMMIT
     * in the same round trip if {@code commit} (otherwise the transaction stays open for {@link #commit}).
     */
    static Pipeline update(
            Connection connection, ProcedureCall call, ArgumentTypes types, Isolation isolation, boolean commit)
            throws SQLException {
        // Without the commit in the pipeline (SI, round-robin), the write-set is broadcast before the commit, so a
        // deferred constraint must fail now, not at a COMMIT that every other replica expects to succeed.
        String sql = isolation.begin + "; "
                + ProcedureCallBinder.sql(call.procedure(), call.arguments().size()) + "; "
                + (commit ? "" : "SET CONSTRAINTS ALL IMMEDIATE; ") + WriteSetCapture.READ_CHANGES
                + (commit ? "; COMMIT" : "");
        return bind(connection, call, types, sql, 2);
    }

    /**
     * Binds a read-only call: at READ COMMITTED one auto-committed statement; at REPEATABLE READ (SI) a read-only
     * transaction of its own, so every query of the procedure reads one snapshot, in one round trip.
     */
    static Pipeline readOnly(Connection connection, ProcedureCall call, ArgumentTypes types, Isolation isolation)
            throws SQLException {
        String sql = ProcedureCallBinder.sql(call.procedure(), call.arguments().size());
        if (isolation == Isolation.REPEATABLE_READ) {
            sql = isolation.begin + " READ ONLY; " + sql + "; COMMIT";
        }
        return bind(connection, call, types, sql, 1);
    }

    private static Pipeline bind(
            Connection connection, ProcedureCall call, ArgumentTypes types, String sql, int expectedResultSets)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            ProcedureCallBinder.bind(connection, statement, call, types.arrayElementTypes(call.procedure()));
            return new Pipeline(statement, call, expectedResultSets);
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    static void commit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COMMIT");
        }
    }

    /** The result: the first row as text, e.g. {@code (3001,15.50)}, with a count of further rows. */
    static String firstRowText(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return "";
        }
        int columns = rows.getMetaData().getColumnCount();
        StringBuilder text = new StringBuilder(columns > 1 ? "(" : "");
        for (int i = 1; i <= columns; i++) {
            text.append(i > 1 ? "," : "").append(rows.getString(i));
        }
        int more = 0;
        while (rows.next()) {
            more++;
        }
        return text.append(columns > 1 ? ")" : "")
                .append(more > 0 ? " (+" + more + " rows)" : "")
                .toString();
    }

    /** How an update call's transaction begins. */
    enum Isolation {
        READ_COMMITTED("BEGIN ISOLATION LEVEL READ COMMITTED"),
        REPEATABLE_READ("BEGIN ISOLATION LEVEL REPEATABLE READ");

        final String begin;

        Isolation(String begin) {
            this.begin = begin;
        }
    }
}
