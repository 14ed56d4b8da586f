package org.gargamel.node;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.node.transfer.TaintedReplicaException;

/**
 * Fencing (docs/node.md): the database watch, a supervised thread that notices within about a second that this
 * node's PostgreSQL is gone, even while no call runs here, and stops the node, so that it leaves the groups and its
 * calls are settled by the others rather than placed here and failed one by one (a failed statement of a worker or of
 * the apply loop stops it the same way); and what the process that runs the node needs to tell such a stop from the
 * others, and when to start again.
 */
final class DatabaseFence implements AutoCloseable {
    /** How often the database watch probes this node's PostgreSQL. */
    private static final Duration PERIOD = Duration.ofSeconds(1);

    private final String name;
    private final String jdbcUrl;
    /** The watch's own connection, in autocommit: its probes must not hold a snapshot open. */
    private final Connection connection;

    private DatabaseFence(String name, String jdbcUrl, Connection connection) {
        this.name = name;
        this.jdbcUrl = jdbcUrl;
        this.connection = connection;
    }

    /** Takes a connection of {@code dataSource} and starts the watch on it, as thread {@code <name>-database-watch}. */
    static DatabaseFence start(String name, String jdbcUrl, DataSource dataSource, Supervisor supervisor)
            throws SQLException {
        Connection watched = dataSource.getConnection();
        DatabaseFence fence = new DatabaseFence(name, jdbcUrl, watched);
        try {
            watched.setAutoCommit(true);
            supervisor.start(name + "-database-watch", fence::watch);
        } catch (SQLException | RuntimeException e) {
            fence.close();
            throw e;
        }
        return fence;
    }

    private void watch() throws InterruptedException {
        while (true) {
            Thread.sleep(PERIOD.toMillis());
            try (Statement probe = connection.createStatement()) {
                probe.execute("SELECT 1");
            } catch (SQLException e) {
                throw new FatalException(
                        name + " lost its database " + Secrets.maskUrl(jdbcUrl) + ": " + e.getMessage(),
                        e.getSQLState() != null ? e : new SQLException(e.getMessage(), "08006", e));
            }
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing anyway.
        }
    }

    /** See {@link NodeServer#lostItsDatabase}. */
    static boolean lostItsDatabase(Throwable failure) {
        if (TaintedReplicaException.isCause(failure)) {
            return false;
        }
        return SqlErrorKind.isConnectionLoss(failure);
    }

    /** See {@link NodeServer#databaseAnswers}. */
    static boolean databaseAnswers(DatabaseSettings database) {
        Properties properties = database.login();
        properties.setProperty("connectTimeout", "5");
        properties.setProperty("socketTimeout", "10");
        try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), properties)) {
            return connection.isValid(5);
        } catch (SQLException e) {
            return false; // refused, or 57P03 while it recovers from its crash
        }
    }
}
