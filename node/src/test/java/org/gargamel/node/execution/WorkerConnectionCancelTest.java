package org.gargamel.node.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.common.testing.Await;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * Cancels forced into a worker's transaction on real PostgreSQL: mid-statement, and after the statement finished but
 * before the worker closed its window (the cancel that used to reach a later statement). Either way the worker learns
 * its execution was cancelled, ends the transaction, and its next transaction runs (no 25P02).
 */
@Tag("integration")
class WorkerConnectionCancelTest {
    private static PostgresCluster server;

    @BeforeAll
    static void start() {
        server = PostgresCluster.embedded(1);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static WorkerConnection worker() throws SQLException {
        return WorkerConnection.dedicate("node-1 worker 0", JdbcConnections.connect(server.jdbcUrl(0)));
    }

    @Test
    void aCancelMidStatementEndsInAnIdleSessionThatRunsTheNextCall() throws Exception {
        try (WorkerConnection worker = worker();
                Connection observer = JdbcConnections.connect(server.jdbcUrl(0))) {
            int pid = pid(worker.jdbc());
            worker.openCancellationWindow();
            CompletableFuture<SQLException> statement = CompletableFuture.supplyAsync(() -> {
                try (Statement sql = worker.jdbc().createStatement()) {
                    sql.execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT pg_sleep(30)");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Await.until("the worker's statement running", Duration.ofSeconds(10), () -> active(observer, pid));
            worker.cancelIfExecuting();
            SQLException cancelled = statement.get();
            assertEquals(WorkerConnection.QUERY_CANCELED, cancelled == null ? null : cancelled.getSQLState());
            assertTrue(worker.closeCancellationWindow(), "the window reports the cancel");
            assertEquals(TransactionState.FAILED, state(worker), "the transaction is open and aborted");
            worker.endTransaction();
            assertEquals(TransactionState.IDLE, state(worker));
            assertNextTransactionRuns(worker);
        }
    }

    @Test
    void aCancelAfterTheStatementFinishedStillCountsAndLeavesNothingBehind() throws Exception {
        try (WorkerConnection worker = worker()) {
            worker.openCancellationWindow();
            try (Statement sql = worker.jdbc().createStatement()) {
                sql.execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1");
            }
            worker.cancelIfExecuting(); // the apply loop's cancel, just too late for the statement it was meant for
            assertTrue(worker.closeCancellationWindow(), "the execution must count as cancelled");
            worker.endTransaction();
            assertEquals(TransactionState.IDLE, state(worker));
            assertNextTransactionRuns(worker);
        }
    }

    private static void assertNextTransactionRuns(WorkerConnection worker) throws SQLException {
        try (Statement sql = worker.jdbc().createStatement()) {
            sql.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
            try (ResultSet rows = sql.executeQuery("SELECT 41 + 1")) {
                rows.next();
                assertEquals(42, rows.getInt(1));
            }
            sql.execute("COMMIT");
        }
        assertEquals(TransactionState.IDLE, state(worker));
    }

    private static TransactionState state(WorkerConnection worker) throws SQLException {
        return worker.jdbc().unwrap(BaseConnection.class).getTransactionState();
    }

    private static int pid(Connection connection) throws SQLException {
        try (Statement sql = connection.createStatement();
                ResultSet rows = sql.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static boolean active(Connection observer, int pid) {
        try (Statement sql = observer.createStatement();
                ResultSet rows = sql.executeQuery(
                        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid = " + pid)) {
            rows.next();
            return rows.getInt(1) == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
