package org.gargamel.node.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Why a failed transaction is rolled back with {@link Rollbacks#after}: on a real server killed with SIGKILL under a
 * node's pool (as the chaos run kills it), the statement fails with a class-08 error, but HikariCP has then closed the
 * connection and answers the rollback with an error of its own that has no SQLSTATE. A node that threw the rollback's
 * error stopped for good (exit 3) instead of fencing itself and starting again once its database was back.
 */
@Tag("integration")
class RollbackAfterCrashTest {

    @Test
    void theRollbackOfATransactionWhoseServerDiedKeepsTheErrorThatSaysTheDatabaseIsGone() throws Exception {
        try (PostgresCluster servers = PostgresCluster.embedded(1)) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(servers.jdbcUrl(0));
            config.setAutoCommit(false);
            config.setMaximumPoolSize(1);
            try (HikariDataSource pool = new HikariDataSource(config);
                    Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TEMPORARY TABLE group_applied (id int)");
                statement.execute("INSERT INTO group_applied VALUES (1)");

                servers.kill(0);

                SQLException failure = assertThrows(
                        SQLException.class, () -> statement.execute("INSERT INTO group_applied VALUES (2)"));
                assertTrue(SqlErrorKind.isConnectionLoss(failure), failure + " (" + failure.getSQLState() + ")");

                SQLException rollbackFailure = assertThrows(SQLException.class, connection::rollback);
                assertNull(rollbackFailure.getSQLState(), rollbackFailure.toString());
                assertFalse(SqlErrorKind.isConnectionLoss(rollbackFailure), "what a plain rollback would have thrown");

                Rollbacks.after(connection, failure);
                assertTrue(
                        SqlErrorKind.isConnectionLoss(failure), "the error to throw still says the database is gone");
                assertEquals(1, failure.getSuppressed().length, "the rollback's own failure is kept beside it");
                assertSame(SQLException.class, failure.getSuppressed()[0].getClass());
            }
        }
    }
}
