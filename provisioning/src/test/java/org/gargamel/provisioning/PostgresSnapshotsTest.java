package org.gargamel.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.jdbc.JdbcConnections;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class PostgresSnapshotsTest {

    @Test
    void aSnapshotIsMadeOnceAndEveryCopyStartsWithItsDataAndChangesOnlyItself(@TempDir Path root) throws Exception {
        PostgresSnapshots snapshots = new PostgresSnapshots(root);
        AtomicInteger populations = new AtomicInteger();
        PostgresSnapshots.Population population = url -> {
            populations.incrementAndGet();
            try (Connection connection = JdbcConnections.connect(url);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE loaded (id int PRIMARY KEY, name text)");
                statement.execute("INSERT INTO loaded SELECT i, 'row ' || i FROM generate_series(1, 1000) i");
            }
        };
        Path snapshot = snapshots.snapshot("rows-1000", population);
        assertEquals(snapshot, snapshots.snapshot("rows-1000", population));
        assertEquals(1, populations.get(), "a snapshot that exists is not made again");
        assertFalse(Files.exists(snapshot.resolve("postmaster.pid")), "the snapshot's server has stopped");

        Path work;
        try (PostgresCluster copies = PostgresCluster.embeddedCopies(2, null, snapshot)) {
            work = copies.workDirectory();
            assertTrue(copies.copiesOfOneSnapshot());
            assertEquals(1000, count(copies.jdbcUrl(0)));
            assertEquals(1000, count(copies.jdbcUrl(1)));
            try (Connection first = copies.connect(0);
                    Statement statement = first.createStatement()) {
                statement.execute("DELETE FROM loaded WHERE id > 10");
            }
            assertEquals(10, count(copies.jdbcUrl(0)));
            assertEquals(1000, count(copies.jdbcUrl(1)), "copies must not share files");
        }
        assertFalse(Files.exists(work), "the copies are removed on close: " + work);
        try (PostgresCluster again = PostgresCluster.embeddedCopies(1, null, snapshot)) {
            assertEquals(1000, count(again.jdbcUrl(0)), "a copy's changes never reach the snapshot");
        }
    }

    @Test
    void aPopulationThatFailsLeavesNoSnapshotAndSaysWhich(@TempDir Path root) {
        PostgresSnapshots snapshots = new PostgresSnapshots(root);
        PostgresProvisioningException failure = assertThrows(
                PostgresProvisioningException.class,
                () -> snapshots.snapshot("broken", url -> {
                    throw new SQLException("no such table: warehouse");
                }));
        assertTrue(failure.getMessage().contains("broken"), failure.getMessage());
        assertTrue(failure.getMessage().contains("no such table: warehouse"), failure.getMessage());
        assertFalse(Files.exists(root.resolve("broken")));
        assertThrows(IllegalArgumentException.class, () -> snapshots.snapshot("../escape", url -> {}));
    }

    private static int count(String url) throws SQLException {
        try (Connection connection = JdbcConnections.connect(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM loaded")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
