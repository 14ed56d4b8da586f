package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CPU a call costs on both ends of its connection, on a real embedded server: the backend's is counted where this
 * process can see it, and left unknown, not guessed, where the server does not show its data directory.
 */
@Tag("integration")
class CpuClockTest {
    /** Work for the backend alone: the client only waits for one row. */
    private static final String BACKEND_WORK = "SELECT count(*) FROM generate_series(1, 3000000)";

    private static PostgresCluster servers;

    @BeforeAll
    static void start() throws SQLException {
        servers = PostgresCluster.embedded(1);
        try (Connection connection = servers.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE ROLE cpu_clock_plain LOGIN"); // no superuser, no pg_read_all_settings
        }
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void theBackendsCpuIsCountedWhereItRunsOnThisMachine() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            CpuClock clock = CpuClock.of(connection, "test");
            CpuClock.Timing timing = clock.start();
            runBackendWork(connection);
            CpuClock.Elapsed elapsed = timing.stop();

            assertTrue(elapsed.backendMeasured(), elapsed.toString());
            assertTrue(
                    elapsed.backendNanos() >= 20_000_000, "3 million rows counted in under 20 ms of CPU: " + elapsed);
            assertTrue(elapsed.backendNanos() <= elapsed.wallNanos() + 5_000_000, "more CPU than time: " + elapsed);
            assertTrue(
                    elapsed.threadNanos() < elapsed.backendNanos(),
                    "the client's thread only waited for the backend: " + elapsed);

            CpuClock.Timing idle = clock.start();
            CpuClock.Elapsed nothing = idle.stop();
            assertTrue(nothing.backendNanos() < 5_000_000, "the backend ran while nothing was asked: " + nothing);
        }
    }

    @Test
    void aServerThatDoesNotShowItsDataDirectoryLeavesTheBackendUnmeasured() throws SQLException {
        String url = servers.jdbcUrl(0).replace("user=postgres", "user=cpu_clock_plain");
        assertFalse(url.equals(servers.jdbcUrl(0)), "the test connects as another role: " + url);
        try (Connection connection = DriverManager.getConnection(url)) {
            connection.setAutoCommit(false);
            CpuClock clock = CpuClock.of(connection, "test");
            CpuClock.Timing timing = clock.start();
            runBackendWork(connection);
            CpuClock.Elapsed elapsed = timing.stop();

            assertFalse(elapsed.backendMeasured(), elapsed.toString());
            assertEquals(-1, elapsed.backendNanos());
            assertTrue(elapsed.wallNanos() > 0 && elapsed.threadNanos() > 0, elapsed.toString());
            connection.commit(); // the clock's own query left no failed transaction behind
        }
    }

    private static void runBackendWork(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(BACKEND_WORK)) {
            assertTrue(rows.next());
            assertEquals(3_000_000, rows.getLong(1));
        }
    }
}
