package org.gargamel.node.execution;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.jdbc.Identifiers;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.writeset.ReplicaState;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TypeInfo;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

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

    /**
     * A call that ran: the rows it returned, the changes it made, and for a PSI call that committed in its pipeline the
     * number it drew from the replica's commit order (-1 otherwise).
     */
    record Ran(ResultRows rows, List<WriteSet.RowChange> changes, long commitOrder) {}

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
            ResultRows result = ResultRows.EMPTY;
            String recorded = null;
            long commitOrder = -1;
            int resultSets = 0;
            while (true) {
                if (isResultSet) {
                    try (ResultSet rows = statement.getResultSet()) {
                        switch (resultSets++) {
                            case 0 -> result = resultRows(rows);
                            case 1 -> recorded = rows.next() ? rows.getString(1) : null;
                            default -> commitOrder = rows.next() ? rows.getLong(1) : -1;
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
            return new Ran(result, expectedResultSets > 1 ? WriteSetCapture.parse(recorded) : List.of(), commitOrder);
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
     * Binds update call {@code txn}: a new transaction at {@code isolation}, the call, the read of what it changed, and
     * the record that this replica committed it ({@code gargamel.committed_ahead}, ReplicaState). With {@code commit} (PSI)
     * the pipeline then draws the transaction's place in the replica's commit order and commits, all in one round
     * trip. Without (SI, round-robin) the transaction stays open for {@link #commit}, after its write-set was ordered by
     * the log; a deferred constraint is checked before that, not at a COMMIT every other replica expects to succeed.
     */
    static Pipeline update(
            Connection connection,
            ProcedureCall call,
            long txn,
            ArgumentTypes types,
            Isolation isolation,
            boolean commit)
            throws SQLException {
        // Deferred constraints fire before the commit when the commit waits for the log (a COMMIT every replica
        // expects to succeed), and before RESET ROLE for a call with a role (its triggers run as the role).
        String sql = isolation.begin + "; " + procedureAsRole(call, !commit || call.role() != null) + "; "
                + WriteSetCapture.READ_CHANGES + "; "
                + ReplicaState.COMMITTED_AHEAD
                + (commit ? "; " + ReplicaState.NEXT_COMMIT_ORDER + "; COMMIT" : "");
        Pipeline pipeline = bind(connection, call, types, sql, commit ? 3 : 2);
        // The transaction's id is bound, not written into the text: a text the same for every call of a procedure
        // is parsed and planned once per connection (pgjdbc prepares it on the server after its fifth use), where a
        // new text per call cost PostgreSQL a parse, an analysis and a plan of every statement of the pipeline: a
        // tenth of its CPU per call (docs/costs.md, Third round).
        try {
            pipeline.statement.setLong(call.arguments().size() + 1, txn);
            return pipeline;
        } catch (SQLException e) {
            pipeline.close();
            throw e;
        }
    }

    /**
     * Binds a read-only call, in every mode and isolation: a {@code REPEATABLE READ READ ONLY} transaction of its own,
     * so every statement of the procedure reads one snapshot (at READ COMMITTED a VOLATILE function takes one per
     * statement, and a total read in two statements could be a state that never existed), in one round trip. READ ONLY
     * also makes a procedure that writes fail rather than commit a change no other replica would see.
     */
    static Pipeline readOnly(Connection connection, ProcedureCall call, ArgumentTypes types) throws SQLException {
        String sql = Isolation.REPEATABLE_READ.begin + " READ ONLY; " + procedureAsRole(call, false) + "; COMMIT";
        return bind(connection, call, types, sql, 1);
    }

    /**
     * The statement that calls {@code call}'s procedure, with the privileges of the call's role when it names one
     * (docs/frontend.md, Security): {@code SET LOCAL ROLE} before, so PostgreSQL checks EXECUTE and whatever the
     * procedure touches as that role, and {@code RESET ROLE} after, so the node's own statements that follow in the
     * pipeline (the read of the captured changes, the commit order) run as the node. Both are undone by the
     * transaction's end, and neither costs a round trip: they travel in the call's pipeline. With
     * {@code immediateConstraints}, {@code SET CONSTRAINTS ALL IMMEDIATE} follows the procedure (before RESET ROLE):
     * its deferred constraints and triggers fire there, as the role.
     */
    static String procedureAsRole(ProcedureCall call, boolean immediateConstraints) {
        String procedure =
                ProcedureCallBinder.sql(call.procedure(), call.arguments().size())
                        + (immediateConstraints ? "; SET CONSTRAINTS ALL IMMEDIATE" : "");
        return call.role() == null
                ? procedure
                : "SET LOCAL ROLE " + Identifiers.quote(call.role()) + "; " + procedure + "; RESET ROLE";
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

    /**
     * PSI with the rules checked before commit ({@code rulesCheck: reject}): draws the transaction's place in the
     * replica's commit order and commits, in one round trip after the call's pipeline left it open.
     */
    static long commitDrawingOrder(Connection connection) throws SQLException {
        // Prepared, so that pgjdbc keeps it prepared on the server: a plain Statement is parsed and planned every time.
        try (PreparedStatement statement = connection.prepareStatement(ReplicaState.NEXT_COMMIT_ORDER + "; COMMIT")) {
            boolean isResultSet = statement.execute();
            long drawn = -1;
            while (isResultSet || statement.getUpdateCount() != -1) {
                if (isResultSet) {
                    try (ResultSet rows = statement.getResultSet()) {
                        drawn = rows.next() ? rows.getLong(1) : -1;
                    }
                }
                isResultSet = statement.getMoreResults();
            }
            return drawn;
        }
    }

    static void commit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COMMIT");
        }
    }

    /**
     * Every row of the call's result with its columns' names and types (pg_type OIDs, from pgjdbc's type cache), each
     * value in PostgreSQL's text format: what the library and the wire-protocol front end give the client.
     */
    static ResultRows resultRows(ResultSet rows) throws SQLException {
        return resultRows(rows, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * {@link #resultRows(ResultSet)}, refusing with SQLSTATE 54000 (program_limit_exceeded) a result of more than
     * {@code maxRows} rows or {@code maxCharacters} characters of values: an ad-hoc read's, which its client controls.
     */
    static ResultRows resultRows(ResultSet rows, int maxRows, long maxCharacters) throws SQLException {
        ResultSetMetaData metaData = rows.getMetaData();
        int count = metaData.getColumnCount();
        TypeInfo types =
                rows.getStatement().getConnection().unwrap(BaseConnection.class).getTypeInfo();
        List<ResultRows.Column> columns = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            columns.add(
                    new ResultRows.Column(metaData.getColumnLabel(i), types.getPGType(metaData.getColumnTypeName(i))));
        }
        List<List<String>> values = new ArrayList<>();
        long characters = 0;
        while (rows.next()) {
            if (values.size() == maxRows) {
                throw new SQLException(
                        "the query returns more than " + maxRows + " rows, the most this node returns for one "
                                + "(adhocMaxRows): narrow it with WHERE or LIMIT",
                        "54000");
            }
            List<String> row = new ArrayList<>(count);
            for (int i = 1; i <= count; i++) {
                String value = rows.getString(i);
                characters += value == null ? 0 : value.length();
                row.add(value);
            }
            if (characters > maxCharacters) {
                throw new SQLException(
                        "the query returns more than " + maxCharacters
                                + " characters of values, the most this node returns for one "
                                + "(adhocMaxCharacters): narrow it with WHERE or LIMIT, or select fewer columns",
                        "54000");
            }
            values.add(row);
        }
        return new ResultRows(columns, values);
    }

    /**
     * The outcome of a call whose procedure failed with {@code error}: its SQLSTATE, pgjdbc's message, and the fields
     * of PostgreSQL's ErrorResponse (primary message, detail, hint) when the server sent them.
     */
    static CallOutcome aborted(long callId, long txnId, SQLException error) {
        CallOutcome.ErrorFields fields = null;
        if (error instanceof PSQLException server && server.getServerErrorMessage() != null) {
            ServerErrorMessage message = server.getServerErrorMessage();
            fields = new CallOutcome.ErrorFields(message.getMessage(), message.getDetail(), message.getHint());
        }
        return CallOutcome.userAborted(callId, txnId, error.getSQLState(), error.getMessage(), fields);
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
