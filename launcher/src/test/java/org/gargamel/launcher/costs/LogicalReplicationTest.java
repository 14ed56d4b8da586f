package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's own logical replication between two embedded servers, as the bench sets it up: a table with a primary
 * key and one without (TPC-C's history) both reach the subscriber, updates and deletes included; the walsender is one
 * of the publisher's processes; and a publisher without wal_level=logical is refused with a message that says so.
 */
@Tag("integration")
class LogicalReplicationTest {
    private static PostgresCluster publisher;
    private static PostgresCluster subscriber;

    @BeforeAll
    static void start() {
        publisher = PostgresCluster.embeddedWith(1, NativeRun.PUBLISHER_SETTINGS);
        subscriber = PostgresCluster.embedded(1);
    }

    @AfterAll
    static void stop() {
        if (subscriber != null) {
            subscriber.close();
        }
        if (publisher != null) {
            publisher.close();
        }
    }

    @Test
    void whatThePublisherCommitsReachesTheSubscriberOnceCaughtUp() throws Exception {
        String schema = "CREATE TABLE keyed (id integer PRIMARY KEY, v integer NOT NULL);"
                + " CREATE TABLE unkeyed (h integer NOT NULL, note text NOT NULL);"
                + " INSERT INTO keyed SELECT g, 0 FROM generate_series(1, 100) g";
        execute(publisher.jdbcUrl(0), schema);
        execute(subscriber.jdbcUrl(0), schema); // the same data on both: copy_data = false

        try (LogicalReplication replication =
                LogicalReplication.subscribe(publisher.jdbcUrl(0), subscriber.jdbcUrl(0), Duration.ofMinutes(1))) {
            List<Long> walsenders = replication.walsenders();
            assertEquals(1, walsenders.size(), walsenders.toString());
            long postmaster = publisher.postmasterPids().get(0);
            assertEquals(
                    postmaster,
                    ProcessHandle.of(walsenders.get(0))
                            .flatMap(ProcessHandle::parent)
                            .map(ProcessHandle::pid)
                            .orElse(-1L),
                    "the walsender is a process of the publisher's");

            execute(
                    publisher.jdbcUrl(0),
                    "UPDATE keyed SET v = id * 2 WHERE id <= 50; DELETE FROM keyed WHERE id > 90;"
                            + " INSERT INTO unkeyed SELECT g, 'row ' || g FROM generate_series(1, 30) g");
            Duration caughtUp = replication.awaitCaughtUp(Duration.ofMinutes(1));

            assertFalse(caughtUp.isNegative());
            // Read at once, no waiting: caught up means applied and committed there.
            assertEquals("90 2550", single(subscriber.jdbcUrl(0), "SELECT count(*) || ' ' || sum(v) FROM keyed"));
            assertEquals("30", single(subscriber.jdbcUrl(0), "SELECT count(*) FROM unkeyed"));
            assertEquals(
                    "f",
                    single(publisher.jdbcUrl(0), "SELECT relreplident FROM pg_class WHERE relname = 'unkeyed'"),
                    "a table without a primary key is published with its whole row as identity");
        }
    }

    @Test
    void aPublisherWithoutLogicalWalIsRefusedSayingSo() {
        // The subscriber's server runs with the embedded servers' own wal_level (replica).
        CommandFailedException refused = assertThrows(
                CommandFailedException.class,
                () -> LogicalReplication.subscribe(subscriber.jdbcUrl(0), publisher.jdbcUrl(0), Duration.ofSeconds(5)));
        assertTrue(refused.getMessage().contains("wal_level=logical"), refused.getMessage());
    }

    @Test
    void theSubscriberReachesThePublisherByTheFieldsOfItsUrl() {
        assertEquals(
                "host=''localhost'' port=''5432'' dbname=''postgres'' user=''postgres'' password=''it\\''s''",
                LogicalReplication.libpqConnection(
                        "jdbc:postgresql://localhost:5432/postgres?user=postgres&password=it's"));
    }

    private static void execute(String url, String sql) throws SQLException {
        try (Connection connection = java.sql.DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String single(String url, String query) throws SQLException {
        try (Connection connection = java.sql.DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(query)) {
            row.next();
            return row.getString(1);
        }
    }
}
