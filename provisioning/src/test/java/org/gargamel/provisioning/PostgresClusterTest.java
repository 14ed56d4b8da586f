package org.gargamel.provisioning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("integration")
class PostgresClusterTest {

    @Test
    void embeddedServersAreIndependentAndRemovedOnClose() throws Exception {
        Path work;
        try (PostgresCluster cluster = PostgresCluster.embedded(2)) {
            work = cluster.workDirectory();
            assertTrue(Files.isDirectory(work));
            assertEquals(2, cluster.size());
            assertNotEquals(cluster.jdbcUrl(0), cluster.jdbcUrl(1));
            try (Connection first = cluster.connect(0);
                    Statement statement = first.createStatement()) {
                statement.execute("CREATE TABLE only_on_first (x int)");
            }
            try (Connection second = cluster.connect(1);
                    Statement statement = second.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT count(*) FROM pg_tables WHERE tablename = 'only_on_first'")) {
                rows.next();
                assertEquals(0, rows.getInt(1), "servers must not share data");
            }
            try (Connection first = cluster.connect(0);
                    Statement statement = first.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT current_setting('server_version_num')::int")) {
                rows.next();
                assertTrue(rows.getInt(1) >= 150000, "DESIGN.md needs PostgreSQL 15 or newer");
            }
            // An embedded server is also reachable as an "existing" server by its URL.
            PostgresCluster.external(List.of(cluster.jdbcUrl(0))).close();
        }
        assertFalse(Files.exists(work), "temporary data directory must be removed on close: " + work);
    }

    /** Chaos runs crash a server and start it again: committed data survives, the other server never notices. */
    @Test
    void anEmbeddedServerKilledWithSigkillStartsAgainWithItsCommittedData() throws Exception {
        long pid;
        Path work;
        try (PostgresCluster cluster = PostgresCluster.embedded(2)) {
            work = cluster.workDirectory();
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement()) {
                // The embedded servers commit asynchronously (synchronous_commit=off): a crash loses the last commits
                // whose WAL was still in shared memory. This session's commits wait for their WAL to be written.
                statement.execute("SET synchronous_commit TO on");
                statement.execute("CREATE TABLE survivor (id integer PRIMARY KEY)");
                statement.execute("INSERT INTO survivor VALUES (1)");
            }
            pid = cluster.kill(0);
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the postmaster is dead");
            assertThrows(java.sql.SQLException.class, () -> cluster.connect(0).close());
            try (Connection other = cluster.connect(1)) {
                assertTrue(other.isValid(5), "the other server is untouched");
            }
            cluster.restart(0);
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO survivor VALUES (2)");
                try (ResultSet rows =
                        statement.executeQuery("SELECT string_agg(id::text, ',' ORDER BY id) FROM survivor")) {
                    rows.next();
                    assertEquals("1,2", rows.getString(1), "the committed row survived the crash");
                }
            }
            long restarted =
                    Long.parseLong(Files.readAllLines(work.resolve("data-0").resolve("postmaster.pid"))
                            .get(0)
                            .trim());
            assertNotEquals(pid, restarted);
            pid = restarted;
            assertThrows(
                    UnsupportedOperationException.class,
                    () -> PostgresCluster.external(List.of(cluster.jdbcUrl(1))).kill(0));
        }
        long stopped = pid;
        org.gargamel.common.testing.Await.until(
                "the restarted server stopped by close",
                java.time.Duration.ofSeconds(10),
                () -> !ProcessHandle.of(stopped).map(ProcessHandle::isAlive).orElse(false));
        assertFalse(Files.exists(work), "the data is removed");
    }

    @Test
    void postmasterOptsIsReadBackAsTheCommandLine() {
        assertEquals(
                List.of("/x y/postgres", "-D", "/d", "-c", "fsync=off"),
                EmbeddedProcesses.commandLine("/x y/postgres \"-D\" \"/d\" \"-c\" \"fsync=off\""));
    }

    @Test
    void malformedUrlIsRejectedWithTheUrlNamed() {
        PostgresProvisioningException e = assertThrows(
                PostgresProvisioningException.class,
                () -> PostgresCluster.external(List.of("jdbc:mysql://localhost/x")));
        assertTrue(e.getMessage().contains("malformed JDBC URL 'jdbc:mysql://localhost/x'"), e.getMessage());
    }

    @Test
    void unreachableServerIsRejectedWithTheUrlNamed() {
        String url = "jdbc:postgresql://127.0.0.1:1/nowhere?user=postgres";
        PostgresProvisioningException e =
                assertThrows(PostgresProvisioningException.class, () -> PostgresCluster.external(List.of(url)));
        assertTrue(e.getMessage().startsWith("cannot connect to " + url), e.getMessage());
    }

    @Test
    void testcontainersStartsAContainerOrSaysThatDockerIsMissing() {
        // Where Docker exists this starts a container; where it does not, the error must say so, and it must be
        // Testcontainers' own "no Docker environment", not a class or method the reflection did not find.
        try (PostgresCluster cluster = PostgresCluster.testcontainers(1, "postgres:18-alpine")) {
            assertEquals(1, cluster.size());
            PostgresCluster.requireReachable(cluster.jdbcUrl(0));
        } catch (PostgresProvisioningException e) {
            assertTrue(
                    e.getMessage()
                            .startsWith("cannot start PostgreSQL with Testcontainers (it needs a running "
                                    + "Docker engine): "),
                    e.getMessage());
            Throwable cause = e.getCause();
            assertInstanceOf(IllegalStateException.class, cause, e.getMessage());
            assertTrue(cause.getMessage().contains("Docker environment"), "Testcontainers' reason: " + cause);
            for (Throwable reason = e; reason != null; reason = reason.getCause()) {
                assertFalse(
                        reason instanceof ReflectiveOperationException || reason instanceof LinkageError,
                        "a class-path problem, not a missing Docker engine: " + reason);
            }
        }
    }

    @Test
    void theTestcontainersClassIsTheTwoXOneAndItsAbsenceIsNamedAsSuch() {
        Class<?> container = TestcontainersBackend.containerClass(TestcontainersBackend.POSTGRESQL_CONTAINER);
        assertEquals("org.testcontainers.postgresql.PostgreSQLContainer", container.getName());
        assertFalse(container.isAnnotationPresent(Deprecated.class), "the 2.x class, not the deprecated 1.x one");
        String missing = "org.testcontainers.containers.NoSuchContainer";
        PostgresProvisioningException e =
                assertThrows(PostgresProvisioningException.class, () -> TestcontainersBackend.containerClass(missing));
        assertTrue(
                e.getMessage()
                        .startsWith("cannot use the Testcontainers backend: " + missing + " is not on the class path"),
                e.getMessage());
        assertFalse(e.getMessage().contains("Docker engine"), e.getMessage());
        assertInstanceOf(ClassNotFoundException.class, e.getCause());
    }
}
