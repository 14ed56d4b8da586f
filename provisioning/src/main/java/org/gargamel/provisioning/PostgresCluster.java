package org.gargamel.provisioning;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL servers of a run, identified by JDBC URL: N embedded servers (the default, on free
 * ports, data in a temporary directory removed on close, on Ctrl-C and on failure), existing servers
 * given by URL, or Testcontainers where a Docker engine exists.
 *
 * <p>Every user of the cluster connects by URL ({@link #jdbcUrls()}), so tests, commands and nodes treat
 * embedded and existing servers alike.
 *
 * <p>This class owns the cluster's lifetime (start, URLs, close on every path); how one embedded server starts is
 * {@link EmbeddedServer}'s, killing and restarting one {@link EmbeddedProcesses}', the containers
 * {@link TestcontainersBackend}'s, and removing what the servers leave behind {@link TemporaryFiles}'.
 */
public final class PostgresCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresCluster.class);
    private final PostgresBackend backend;
    private final List<String> jdbcUrls;
    private final List<AutoCloseable> servers;
    private final Path workDirectory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Every server started as a copy of one snapshot ({@link #embeddedCopies}): identical by construction. */
    private final boolean copiesOfOneSnapshot;
    /**
     * The environment variable naming a directory in which to unpack the PostgreSQL binaries once and keep them (the
     * build sets it, so that its many test JVMs and the commands they start do not each unpack 75 MB); unset, each
     * cluster unpacks them into its own temporary directory and removes them on close.
     */
    public static final String BINARIES_DIRECTORY_VARIABLE = "GARGAMEL_POSTGRES_BINARIES";
    /** The processes of embedded servers (kill, restart, pids); null for other backends ({@link #processes()}). */
    private final EmbeddedProcesses processes;

    private final Thread shutdownHook;
    /** Made when this class loads, before this JVM starts any embedded server: which zonky scripts are not ours. */
    private static final TemporaryFiles TEMPORARY_FILES = TemporaryFiles.seenNow();

    private PostgresCluster(
            PostgresBackend backend, List<String> jdbcUrls, List<AutoCloseable> servers, Path workDirectory) {
        this(backend, jdbcUrls, servers, workDirectory, false);
    }

    private PostgresCluster(
            PostgresBackend backend,
            List<String> jdbcUrls,
            List<AutoCloseable> servers,
            Path workDirectory,
            boolean copiesOfOneSnapshot) {
        this.backend = backend;
        this.copiesOfOneSnapshot = copiesOfOneSnapshot;
        this.jdbcUrls = List.copyOf(jdbcUrls);
        this.servers = servers;
        this.workDirectory = workDirectory;
        this.processes =
                backend == PostgresBackend.EMBEDDED ? new EmbeddedProcesses(workDirectory, jdbcUrls.size()) : null;
        this.shutdownHook = new Thread(this::closeQuietly, "postgres-cluster-shutdown");
        if (!servers.isEmpty() || workDirectory != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * Starts {@code count} independent embedded PostgreSQL servers. fsync is off: the data lives in a
     * temporary directory that is deleted when the cluster closes, so durability would buy nothing.
     */
    public static PostgresCluster embedded(int count) {
        return embedded(count, null);
    }

    /**
     * {@link #embedded(int)}, reachable from {@code clientNetwork} too (a CIDR such as {@code 10.231.7.0/24}, trusted
     * without a password): for processes in network namespaces of a partition test, which cannot reach this host's
     * loopback. The URLs still name 127.0.0.1; {@link #jdbcUrl(int, String)} names another address.
     */
    public static PostgresCluster embedded(int count, String clientNetwork) {
        return start(count, clientNetwork, null, Map.of());
    }

    /**
     * {@link #embedded(int)}, each server started with {@code extraSettings} besides (and over) the throw-away settings
     * every embedded server has: e.g. {@code wal_level=logical} for a logical-replication publisher, which only a
     * start can set.
     */
    public static PostgresCluster embeddedWith(int count, Map<String, String> extraSettings) {
        return start(count, null, null, extraSettings);
    }

    /**
     * {@link #embedded(int, String)}, each server's data directory a copy of {@code snapshot} (a stopped data directory
     * of {@link PostgresSnapshots}): the servers hold the same data from the start, with nothing loaded or compared.
     */
    public static PostgresCluster embeddedCopies(int count, String clientNetwork, Path snapshot) {
        return start(count, clientNetwork, snapshot, Map.of());
    }

    /** {@link #embeddedCopies(int, String, Path)} with {@code extraSettings} as in {@link #embeddedWith(int, Map)}. */
    public static PostgresCluster embeddedCopies(
            int count, String clientNetwork, Path snapshot, Map<String, String> extraSettings) {
        return start(count, clientNetwork, snapshot, extraSettings);
    }

    private static PostgresCluster start(
            int count, String clientNetwork, Path snapshot, Map<String, String> extraSettings) {
        requirePositive(count);
        Path work;
        try {
            work = Files.createTempDirectory("gargamel-pg-");
        } catch (IOException e) {
            throw new PostgresProvisioningException(
                    "cannot create a temporary directory for embedded PostgreSQL: " + e.getMessage(), e);
        }
        List<AutoCloseable> started = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                Path data = work.resolve("data-" + i);
                if (snapshot != null) {
                    EmbeddedServer.copyDataDirectory(snapshot, data);
                }
                // A copy is started as it is (no initdb), and zonky must not delete it when it stops: close() does.
                EmbeddedPostgres server = EmbeddedServer.start(
                        data,
                        EmbeddedServer.binariesDirectory(work),
                        snapshot == null,
                        clientNetwork == null ? "localhost" : "*",
                        extraSettings);
                if (clientNetwork != null) {
                    EmbeddedServer.trust(data, clientNetwork, server.getJdbcUrl("postgres", "postgres"));
                }
                started.add(server);
                urls.add(server.getJdbcUrl("postgres", "postgres"));
            }
        } catch (IOException | RuntimeException e) {
            closeAll(started);
            TemporaryFiles.deleteRecursively(work);
            throw new PostgresProvisioningException(
                    "cannot start embedded PostgreSQL server " + (started.size() + 1) + " of " + count + ": "
                            + e.getMessage(),
                    e);
        }
        return new PostgresCluster(PostgresBackend.EMBEDDED, urls, started, work, snapshot != null);
    }

    /**
     * Existing servers, one per URL. Each URL is checked now (format and a connection), so a typo fails
     * here with the URL named rather than in the middle of a run.
     */
    public static PostgresCluster external(List<String> jdbcUrls) {
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("at least one --jdbc-url is needed");
        }
        for (String url : jdbcUrls) {
            requireReachable(url);
        }
        return new PostgresCluster(PostgresBackend.EXTERNAL, jdbcUrls, List.of(), null);
    }

    /**
     * {@code count} PostgreSQL containers through Testcontainers. Needs a Docker engine; without one it
     * fails with a message that says so (it never falls back silently).
     */
    public static PostgresCluster testcontainers(int count, String image) {
        requirePositive(count);
        List<AutoCloseable> started = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        TestcontainersBackend.start(count, image, started, urls);
        return new PostgresCluster(PostgresBackend.TESTCONTAINERS, urls, started, null);
    }

    /**
     * Checks that {@code url} is a PostgreSQL JDBC URL and that a server answers there. Messages name the URL with its
     * password masked.
     */
    public static void requireReachable(String url) {
        String masked = Secrets.maskUrl(url);
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new PostgresProvisioningException("malformed JDBC URL '" + masked
                    + "': expected jdbc:postgresql://host:port/database[?user=...&password=...]");
        }
        try {
            if (Driver.parseURL(url, null) == null) {
                throw new PostgresProvisioningException("malformed JDBC URL '" + masked
                        + "': expected jdbc:postgresql://host:port/database[?user=...&password=...]");
            }
        } catch (RuntimeException e) {
            if (e instanceof PostgresProvisioningException) {
                throw e;
            }
            throw new PostgresProvisioningException("malformed JDBC URL '" + masked + "': " + e.getMessage(), e);
        }
        try (Connection connection = JdbcConnections.connect(url)) {
            connection.isValid(JdbcConnections.CONNECT_TIMEOUT_SECONDS);
        } catch (SQLException e) {
            throw new PostgresProvisioningException(
                    "cannot connect to " + masked + ": " + e.getMessage()
                            + (e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")"),
                    e);
        }
    }

    public PostgresBackend backend() {
        return backend;
    }

    public List<String> jdbcUrls() {
        return jdbcUrls;
    }

    public String jdbcUrl(int index) {
        return jdbcUrls.get(index);
    }

    public int size() {
        return jdbcUrls.size();
    }

    /**
     * The running postmasters' pids of embedded servers, in server order (for a run's CPU accounting); empty for
     * external servers and containers, whose processes are not this machine's to read.
     */
    public List<Long> postmasterPids() {
        return backend != PostgresBackend.EMBEDDED ? List.of() : processes.postmasterPids();
    }

    public Connection connect(int index) throws SQLException {
        return JdbcConnections.connect(jdbcUrls.get(index));
    }

    /**
     * Crashes embedded server {@code index} as a machine crash would (chaos runs): SIGKILL to its postmaster and every
     * one of its processes at once, nothing flushed, no shutdown checkpoint. Returns when none of them is alive; the
     * postmaster's pid. {@link #restart} starts it again.
     */
    public long kill(int index) {
        return processes().kill(index);
    }

    /**
     * Starts embedded server {@code index} again after {@link #kill}: the same binary, data directory, port and
     * settings (PostgreSQL recorded its command line in {@code postmaster.opts}); it recovers from the crash (WAL
     * replay) like any server restarted after a power loss. Returns once it accepts connections; {@link #close} stops
     * it as it stops the others.
     */
    public void restart(int index) {
        processes().restart(index, jdbcUrls.get(index));
    }

    /** The processes of embedded servers; other backends' processes are not this machine's to kill. */
    private EmbeddedProcesses processes() {
        if (backend != PostgresBackend.EMBEDDED) {
            throw new UnsupportedOperationException(
                    "only embedded PostgreSQL servers can be killed and started again by Gargamel (this cluster's "
                            + "servers are " + backend + ")");
        }
        return processes;
    }

    /** Whether every server started as a copy of one snapshot, so that they hold the same data. */
    public boolean copiesOfOneSnapshot() {
        return copiesOfOneSnapshot;
    }

    /** The temporary directory of embedded servers (null for other backends); gone after close. */
    public Path workDirectory() {
        return workDirectory;
    }

    /** Stops the servers this cluster started and deletes their data; existing servers are left alone. */
    @Override
    public void close() {
        closeQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Already shutting down, or the hook was never registered: nothing to remove.
        }
    }

    private void closeQuietly() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeAll(servers); // zonky stops a server by its data directory: a restarted one too
        if (processes != null) {
            processes.destroyRestarted(); // in case the stop above missed one (it failed, or came too early)
        }
        if (workDirectory != null) {
            awaitDataDirectoriesRemoved();
            TemporaryFiles.deleteRecursively(workDirectory);
            TEMPORARY_FILES.removeZonkyLeftovers();
        }
    }

    /**
     * zonky registers a shutdown hook per server too. On Ctrl-C both hooks run at once, and a server that
     * the other hook is still stopping must not have its directory deleted under it (that race left empty
     * directories behind): each server removes its own data directory once stopped, so wait for that.
     */
    private void awaitDataDirectoriesRemoved() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(15);
        for (int i = 0; i < servers.size(); i++) {
            Path data = workDirectory.resolve("data-" + i);
            // A copy of a snapshot is not removed by zonky: wait for its server to stop (its pid file goes).
            Path gone = copiesOfOneSnapshot ? data.resolve("postmaster.pid") : data;
            while (Files.exists(gone) && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
            }
        }
    }

    static void closeAll(List<AutoCloseable> servers) {
        for (AutoCloseable server : servers) {
            try {
                server.close();
            } catch (Exception e) {
                LOG.warn("could not stop a PostgreSQL server: {}", e.getMessage(), e);
            }
        }
    }

    /** Server {@code index}'s URL with {@code host} in place of its loopback address. */
    public String jdbcUrl(int index, String host) {
        return withHost(jdbcUrls.get(index), host);
    }

    /** {@code jdbcUrl} of a server on this host with {@code host} in place of its loopback address. */
    public static String withHost(String jdbcUrl, String host) {
        return jdbcUrl.replaceFirst("//(localhost|127\\.0\\.0\\.1):", "//" + host + ":");
    }

    private static void requirePositive(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("the number of PostgreSQL servers must be at least 1, was " + count);
        }
    }
}
