package org.gargamel.node.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The worker connection's transaction end and cancellation window, against a fake JDBC connection that fails the way
 * PostgreSQL does (the real server is exercised by {@link WorkerConnectionCancelTest}).
 */
@Tag("unit")
class WorkerConnectionTest {

    /** A connection whose ROLLBACKs fail with the given SQLSTATEs in turn (null: succeeds), recording each statement. */
    private static Connection failingRollbacks(List<String> executed, String... states) {
        int[] next = {0};
        Statement statement = (Statement) Proxy.newProxyInstance(
                Statement.class.getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                    if (method.getName().equals("execute")) {
                        executed.add((String) args[0]);
                        String state = next[0] < states.length ? states[next[0]++] : null;
                        if (state != null) {
                            throw new SQLException("failed with " + state, state);
                        }
                        return false;
                    }
                    return null; // close()
                });
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "createStatement" -> statement;
                    case "isWrapperFor" -> false;
                    case "unwrap" -> throw new SQLException("not a wrapper for " + args[0]);
                    default -> null;
                });
    }

    @Test
    void aRollbackHitByAStrayCancelIsRetriedUntilTheTransactionEnds() throws Exception {
        List<String> executed = new ArrayList<>();
        WorkerConnection connection = new WorkerConnection(
                "node-1 worker 0",
                failingRollbacks(executed, WorkerConnection.QUERY_CANCELED, WorkerConnection.QUERY_CANCELED));
        connection.endTransaction();
        assertEquals(
                List.of("ROLLBACK", "ROLLBACK", "ROLLBACK"),
                executed,
                "two cancelled ROLLBACKs, then one that ends it");
    }

    @Test
    void aBrokenConnectionIsReportedNotSwallowed() {
        List<String> executed = new ArrayList<>();
        WorkerConnection connection = new WorkerConnection("node-1 worker 0", failingRollbacks(executed, "08006"));
        SQLException e = assertThrows(SQLException.class, connection::endTransaction);
        assertEquals("08006", e.getSQLState());
        assertEquals(1, executed.size(), "a broken connection is not retried");
    }

    @Test
    void endlessCancelsGiveUp() {
        String[] cancels = new String[20];
        java.util.Arrays.fill(cancels, WorkerConnection.QUERY_CANCELED);
        List<String> executed = new ArrayList<>();
        WorkerConnection connection = new WorkerConnection("node-1 worker 0", failingRollbacks(executed, cancels));
        assertThrows(SQLException.class, connection::endTransaction);
        assertTrue(executed.size() > 1 && executed.size() < 20, "retried a few times, not forever: " + executed.size());
    }

    @Test
    void theWindowSaysWhetherACancelWasSent() {
        WorkerConnection connection = new WorkerConnection("node-1 worker 0", failingRollbacks(new ArrayList<>()));
        connection.cancelIfExecuting(); // outside a window: nothing is sent
        connection.openCancellationWindow();
        assertFalse(connection.closeCancellationWindow(), "no cancel during this window");
        connection.openCancellationWindow();
        connection.cancelIfExecuting(); // the fake cannot unwrap to PGConnection: the attempt still counts
        connection.cancelIfExecuting(); // at most one per window
        assertTrue(connection.closeCancellationWindow(), "a cancel was sent during this window");
        assertFalse(connection.closeCancellationWindow(), "closing twice reports nothing new");
        connection.cancelIfExecuting();
        connection.openCancellationWindow();
        assertFalse(connection.closeCancellationWindow(), "a cancel before the window opened does not count");
    }
}
