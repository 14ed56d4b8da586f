package org.gargamel.node.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.Execute;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.access.RoleCheck;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.writeset.ReplicaState;
import org.gargamel.provisioning.PostgresCluster;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker's calls on real PostgreSQL with capture installed: a call that names a role runs its procedure with that
 * role's privileges (PostgreSQL refuses a procedure or a table the role may not use: 42501, nothing changed), the
 * node's own statements after it still run as the node (the captured changes are read, spilled ones too); and a call on
 * a connection whose capture was disarmed ({@code session_replication_role = replica}, the attack of issue 38) fails
 * before its commit instead of committing changes no other replica would get, after which the worker's next call is
 * captured again.
 */
@Tag("integration")
class CallAsRoleTest {
    private static PostgresCluster server;
    private static long txn = 100;

    @BeforeAll
    static void start() throws SQLException {
        server = PostgresCluster.embedded(1);
        try (Connection connection = server.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE account (id integer PRIMARY KEY, balance numeric NOT NULL, note text)");
            statement.execute("INSERT INTO account SELECT i, 100, NULL FROM generate_series(1, 300) i");
            statement.execute("CREATE FUNCTION deposit(p_id integer, p_amount numeric) RETURNS numeric LANGUAGE sql "
                    + "AS $$ UPDATE account SET balance = balance + p_amount WHERE id = p_id RETURNING balance $$");
            statement.execute(
                    "CREATE FUNCTION annotate(p_note text) RETURNS bigint LANGUAGE sql AS "
                            + "$$ WITH changed AS (UPDATE account SET note = p_note RETURNING 1) SELECT count(*) FROM changed $$");
            statement.execute("CREATE FUNCTION whoami() RETURNS text LANGUAGE sql AS $$ SELECT current_user::text $$");
            statement.execute("CREATE FUNCTION odd_values(p_id integer, OUT f float8, OUT n numeric, OUT a text[], "
                    + "OUT b bytea, OUT t timestamp) LANGUAGE sql AS $$ UPDATE account SET note = 'odd' WHERE id = p_id "
                    + "RETURNING 100::float8, 1e-7::numeric, ARRAY['x y', 'z'], '\\x0102'::bytea, "
                    + "'2026-11-29 12:00:00.5'::timestamp $$");
            statement.execute("CREATE FUNCTION close_all() RETURNS void LANGUAGE sql AS $$ DELETE FROM account $$");
            statement.execute("REVOKE EXECUTE ON FUNCTION close_all() FROM PUBLIC");
            statement.execute("CREATE ROLE clerk LOGIN");
            statement.execute("GRANT SELECT, UPDATE, DELETE ON account TO clerk");
            statement.execute("CREATE ROLE visitor LOGIN");
            statement.execute("CREATE ROLE teller LOGIN");
            statement.execute("GRANT SELECT, UPDATE ON account TO teller");
            connection.setAutoCommit(false);
            WriteSetCapture.install(connection, "public");
            ReplicaState.install(connection);
            RoleLogins roles = new RoleLogins(
                    List.of(RoleLogin.trusted("clerk"), RoleLogin.trusted("visitor"), RoleLogin.trusted("teller")),
                    false);
            try (ReadConnections reads = new ReadConnections("node-1", server.jdbcUrl(0), roles)) {
                RoleCheck.check("node-1", connection, reads, roles);
            }
            connection.commit();
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static WorkerConnection worker() throws SQLException {
        java.util.Properties properties = new java.util.Properties();
        properties.putAll(WorkerConnection.DRIVER_PROPERTIES); // as the node's pool (NodeBootstrap)
        Connection connection = java.sql.DriverManager.getConnection(server.jdbcUrl(0), properties);
        WriteSetCapture.enableForSession(connection);
        return WorkerConnection.dedicate("node-1 worker 0", connection);
    }

    /** Runs {@code call} as an update that commits in its pipeline (PSI), as ScheduledExecution does. */
    private static CallRunner.Ran update(WorkerConnection worker, ProcedureCall call) throws SQLException {
        Execute execute = new Execute(++txn, 0, false, new long[0], UUID.randomUUID(), txn, call);
        try (CallRunner.Pipeline pipeline = CallRunner.update(
                worker.jdbc(), call, txn, ArgumentTypes.none(), CallRunner.Isolation.READ_COMMITTED, true)) {
            return pipeline.execute();
        } catch (SQLException e) {
            worker.endTransactionOrStop(execute, e);
            throw e;
        }
    }

    private static String balance(int id) throws SQLException {
        try (Connection connection = server.connect(0);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT balance FROM account WHERE id = " + id)) {
            rows.next();
            return rows.getBigDecimal(1).stripTrailingZeros().toPlainString();
        }
    }

    @Test
    void aCallsResultKeepsPostgresqlsTextOnceItsTextIsPrepared() throws SQLException {
        try (WorkerConnection worker = worker()) {
            for (int i = 0; i < 7; i++) { // pgjdbc prepares a text on the server at its fifth use
                assertEquals(
                        List.of("100", "0.0000001", "{\"x y\",z}", "\\x0102", "2026-11-29 12:00:00.5"),
                        update(worker, ProcedureCall.of("odd_values", 250))
                                .rows()
                                .rows()
                                .get(0),
                        "run " + (i + 1) + ": PostgreSQL's text of each value");
            }
        }
    }

    @Test
    void aProceduresPipelineHasOneTextWhateverTheTransactionSoTheServerPreparesItOnce() throws SQLException {
        try (WorkerConnection worker = worker()) {
            long first = txn + 1;
            for (int i = 0; i < 7; i++) { // pgjdbc prepares a text on the server at its fifth use
                update(worker, ProcedureCall.of("deposit", 200 + i, new BigDecimal("1")));
            }
            try (Statement statement = worker.jdbc().createStatement();
                    ResultSet rows = statement.executeQuery("SELECT"
                            + " count(*) FILTER (WHERE statement LIKE '%deposit(%'),"
                            + " count(*) FILTER (WHERE statement LIKE '%committed_ahead%'),"
                            + " (SELECT count(*) FROM gargamel.committed_ahead WHERE txn BETWEEN " + first + " AND "
                            + txn
                            + ") FROM pg_prepared_statements")) {
                rows.next();
                assertEquals(1, rows.getInt(1), "the call's statement, prepared once for the seven calls");
                assertEquals(1, rows.getInt(2), "the committed_ahead row's statement, prepared once");
                assertEquals(7, rows.getInt(3), "each call recorded its own transaction, bound as a value");
            }
        }
    }

    @Test
    void aCallRunsWithItsRolesPrivilegesAndTheNodesStatementsAfterItAsTheNode() throws SQLException {
        try (WorkerConnection worker = worker()) {
            CallRunner.Ran deposited = update(
                    worker, ProcedureCall.of("deposit", 1, new BigDecimal("5")).asRole("clerk"));
            assertEquals(1, deposited.changes().size(), "captured as the role, read as the node");
            assertEquals("105", balance(1));
            try (CallRunner.Pipeline pipeline = CallRunner.readOnly(
                    worker.jdbc(), ProcedureCall.of("whoami").asRole("clerk"), ArgumentTypes.none())) {
                assertEquals("clerk", pipeline.execute().rows().rows().get(0).get(0));
            }
            // A role without UPDATE on the table, and a procedure the role may not execute: PostgreSQL's 42501.
            SQLException noTable = assertThrows(
                    SQLException.class,
                    () -> update(
                            worker,
                            ProcedureCall.of("deposit", 1, new BigDecimal("5")).asRole("visitor")));
            assertEquals("42501", noTable.getSQLState(), noTable.getMessage());
            SQLException noExecute = assertThrows(
                    SQLException.class,
                    () -> update(worker, ProcedureCall.of("close_all").asRole("clerk")));
            assertEquals("42501", noExecute.getSQLState(), noExecute.getMessage());
            assertEquals("105", balance(1), "nothing changed");
            // 300 rows of 100 characters: the trigger spills to its session's temporary table, through the capture's
            // schema. The node's own call first, then two roles on the same worker: each may write the one table.
            for (ProcedureCall annotate : List.of(
                    ProcedureCall.of("annotate", "y".repeat(100)),
                    ProcedureCall.of("annotate", "x".repeat(100)).asRole("clerk"),
                    ProcedureCall.of("annotate", "z".repeat(100)).asRole("teller"))) {
                CallRunner.Ran annotated = update(worker, annotate);
                assertEquals(300, annotated.changes().size(), annotate.toString());
            }
            try (Statement statement = worker.jdbc().createStatement();
                    ResultSet rows = statement.executeQuery("SELECT current_user")) {
                rows.next();
                assertEquals("postgres", rows.getString(1), "the role ends with the call's transaction");
            }
        }
    }

    @Test
    void aCallOnAConnectionWhoseCaptureIsDisarmedFailsBeforeItsCommitAndTheNextIsCaptured() throws SQLException {
        try (WorkerConnection worker = worker()) {
            String before = balance(2);
            try (Statement statement = worker.jdbc().createStatement()) {
                statement.execute("SET session_replication_role = replica"); // triggers quiet: nothing captured
            }
            SQLException disarmed = assertThrows(
                    SQLException.class, () -> update(worker, ProcedureCall.of("deposit", 2, new BigDecimal("7"))));
            assertEquals(WriteSetCapture.CAPTURE_DISARMED, disarmed.getSQLState(), disarmed.getMessage());
            assertTrue(disarmed.getMessage().contains("session_replication_role = replica"), disarmed.getMessage());
            assertEquals(before, balance(2), "rolled back, not committed without its write-set");
            CallRunner.Ran next = update(worker, ProcedureCall.of("deposit", 2, new BigDecimal("7")));
            assertEquals(1, next.changes().size(), "armed again: the next call is captured");
            assertEquals(new BigDecimal(before).add(new BigDecimal("7")).toPlainString(), balance(2));
        }
    }
}
