package org.gargamel.node;

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
 * {@link #rollback rolls back} (the transaction block is open and aborted).
 */
final class CallRunner {

    /** An update call that ran: its result (first row as text) and the changes it made. */
    record Ran(String result, List<WriteSet.RowChange> changes) {
    }

    private CallRunner() {
    }

    /** Dedicates {@code connection} to a worker: auto-commit, transactions opened by {@link #run}. */
    static void prepare(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    /**
     * Runs an update call in a new transaction at {@code isolation} and reads what it changed; commits in the same
     * round trip if {@code commit}, otherwise leaves the transaction open for {@link #commit} or {@link #rollback}.
     */
    static Ran run(Connection connection, ProcedureCall call, Isolation isolation, boolean commit) throws SQLException {
        String sql = isolation.begin + "; " + ProcedureCallBinder.sql(call.procedure(), call.arguments().size()) + "; "
                + WriteSetCapture.READ_CHANGES + (commit ? "; COMMIT" : "");
        return pipeline(connection, call, sql, 2);
    }

    /**
     * Runs a read-only call. At READ COMMITTED a single auto-committed statement; at REPEATABLE READ (SI) in a
     * read-only transaction of its own, so every query of the procedure reads one snapshot, in one round trip.
     */
    static String runReadOnly(Connection connection, ProcedureCall call, Isolation isolation) throws SQLException {
        if (isolation == Isolation.READ_COMMITTED) {
            try (PreparedStatement statement = ProcedureCallBinder.prepare(connection, call);
                    ResultSet rows = statement.executeQuery()) {
                return firstRowText(rows);
            }
        }
        String sql = isolation.begin + " READ ONLY; " + ProcedureCallBinder.sql(call.procedure(), call.arguments().size())
                + "; COMMIT";
        return pipeline(connection, call, sql, 1).result();
    }

    /** Executes {@code sql}, whose first result set is the call's and whose second, if expected, the changes. */
    private static Ran pipeline(Connection connection, ProcedureCall call, String sql, int expectedResultSets)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            ProcedureCallBinder.bind(connection, statement, call);
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
                throw new SQLException("the call of " + call.procedure() + " returned " + resultSets
                        + " result sets where " + expectedResultSets + " were expected", "XX000");
            }
            return new Ran(result, WriteSetCapture.parse(recorded));
        }
    }

    static void commit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COMMIT");
        }
    }

    /** Ends the open (or aborted) transaction, if any; a broken connection is reported by its next use. */
    static void rollback(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // No transaction open (a warning only), or the connection broke: the next statement says so.
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
        return text.append(columns > 1 ? ")" : "").append(more > 0 ? " (+" + more + " rows)" : "").toString();
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
