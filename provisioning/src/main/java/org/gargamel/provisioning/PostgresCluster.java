package org.gargamel.provisioning;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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
 */
public final class PostgresCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresCluster.class);
    /** The container class of Testcontainers 2's PostgreSQL module (testcontainers-postgresql). */
    static final String TESTCONTAINERS_POSTGRESQL = "org.testcontainers.postgresql.PostgreSQLContainer";

    private final PostgresBackend backend;
    private final List<String> jdbcUrls;
    private final List<AutoCloseable> servers;
    private final Path workDirectory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Every server started as a copy of one snapshot ({@link #embeddedCopies}): identical by construction. */
    private final boolean copiesOfOneSnapshot;
    /** zonky's lock file in a data directory, held while its server runs. */
    static final String ZONKY_LOCK_FILE = "epg-lock";
    /**
     * The environment variable naming a directory in which to unpack the PostgreSQL binaries once and keep them (the
     * build sets it, so that its many test JVMs and the commands they start do not each unpack 75 MB); unset, each
     * cluster unpacks them into its own temporary directory and removes them on close.
     */
    public static final String BINARIES_DIRECTORY_VARIABLE = "GARGAMEL_POSTGRES_BINARIES";
    /** Servers started again by {@link #restart} (children of this JVM). */
    private final List<Process> restarted = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Thread shutdownHook;
    /** zonky's scripts that existed before this JVM started any embedded server (not ours to delete). */
    private static final java.util.Set<Path> ZONKY_SCRIPTS_BEFORE = zonkyScripts();

    private static java.util.Set<Path> zonkyScripts() {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("detect_linux_distribution_"))
                    .collect(java.util.stream.Collectors.toSet());
        } catch (IOException e) {
            return java.util.Set.of();
        }
    }

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
        return start(count, clientNetwork, null);
    }

    /**
     * {@link #embedded(int, String)}, each server's data directory a copy of {@code snapshot} (a stopped data directory
     * of {@link PostgresSnapshots}): the servers hold the same data from the start, with nothing loaded or compared.
     */
    public static PostgresCluster embeddedCopies(int count, String clientNetwork, Path snapshot) {
        return start(count, clientNetwork, snapshot);
    }

    private static PostgresCluster start(int count, String clientNetwork, Path snapshot) {
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
                    copyDataDirectory(snapshot, data);
                }
                // A copy is started as it is (no initdb), and zonky must not delete it when it stops: close() does.
                EmbeddedPostgres server = startServer(
                        data, binariesDirectory(work), snapshot == null, clientNetwork == null ? "localhost" : "*");
                if (clientNetwork != null) {
                    trust(data, clientNetwork, server.getJdbcUrl("postgres", "postgres"));
                }
                started.add(server);
                urls.add(server.getJdbcUrl("postgres", "postgres"));
            }
        } catch (IOException | RuntimeException e) {
            closeAll(started);
            deleteRecursively(work);
            throw new PostgresProvisioningException(
                    "cannot start embedded PostgreSQL server " + (started.size() + 1) + " of " + count + ": "
                            + e.getMessage(),
                    e);
        }
        return new PostgresCluster(PostgresBackend.EMBEDDED, urls, started, work, snapshot != null);
    }

    /**
     * One embedded server on {@code data}. fsync is off: its data is thrown away when it stops (a snapshot's is
     * made again if lost). {@code clean}: run initdb on an empty directory and delete it when the server stops.
     */
    static EmbeddedPostgres startServer(Path data, Path binaries, boolean clean, String listenAddresses)
            throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(clean)
                .setOverrideWorkingDirectory(binaries.toFile())
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_buffers", "128MB")
                .setServerConfig("max_locks_per_transaction", "256")
                .setServerConfig("listen_addresses", listenAddresses)
                .start();
    }

    /** Copies a stopped data directory, keeping PostgreSQL's permissions (it refuses a group- or world-readable one). */
    private static void copyDataDirectory(Path snapshot, Path data) throws IOException {
        Files.walkFileTree(snapshot, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes)
                    throws IOException {
                Files.copy(
                        directory,
                        data.resolve(snapshot.relativize(directory).toString()),
                        java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String name = file.getFileName().toString();
                if (!name.equals(ZONKY_LOCK_FILE) && !name.equals("postmaster.pid")) {
                    Files.copy(
                            file,
                            data.resolve(snapshot.relativize(file).toString()),
                            java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Where zonky unpacks the binaries (into a PG-digest directory of its own, under a file lock, so concurrent JVMs
     * share one copy): {@value #BINARIES_DIRECTORY_VARIABLE} if set, else the cluster's temporary directory.
     */
    static Path binariesDirectory(Path work) {
        String shared = System.getenv(BINARIES_DIRECTORY_VARIABLE);
        return shared == null || shared.isBlank() ? work.resolve("binaries") : Path.of(shared);
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
        Class<?> containerClass = testcontainersClass(TESTCONTAINERS_POSTGRESQL);
        List<AutoCloseable> started = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                Object container = containerClass.getConstructor(String.class).newInstance(image);
                containerClass.getMethod("start").invoke(container);
                started.add((AutoCloseable) container);
                Method url = containerClass.getMethod("getJdbcUrl");
                Method user = containerClass.getMethod("getUsername");
                Method password = containerClass.getMethod("getPassword");
                urls.add(url.invoke(container) + "&user=" + user.invoke(container) + "&password="
                        + password.invoke(container));
            }
        } catch (InvocationTargetException | RuntimeException e) {
            closeAll(started);
            Throwable cause = e instanceof InvocationTargetException thrown ? thrown.getCause() : e;
            throw new PostgresProvisioningException(
                    "cannot start PostgreSQL with Testcontainers (it needs a running " + "Docker engine): "
                            + cause.getMessage(),
                    cause);
        } catch (ReflectiveOperationException e) {
            closeAll(started);
            throw new PostgresProvisioningException(
                    "cannot use the Testcontainers backend: " + containerClass.getName()
                            + " is not the class this code was written for (" + e + ")",
                    e);
        }
        return new PostgresCluster(PostgresBackend.TESTCONTAINERS, urls, started, null);
    }

    /**
     * Testcontainers' container class {@code name}, loaded by reflection so that its classes load only when that
     * backend is chosen. Its absence is a class-path problem, reported as such (never as a missing Docker engine).
     */
    static Class<?> testcontainersClass(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new PostgresProvisioningException(
                    "cannot use the Testcontainers backend: " + name + " is not on the " + "class path (" + e
                            + "); it is in org.testcontainers:testcontainers-postgresql 2.x",
                    e);
        }
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
        if (backend != PostgresBackend.EMBEDDED) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < jdbcUrls.size(); i++) {
            pids.add(postmasterPid(embeddedDataDirectory(i)));
        }
        return pids;
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
        Path data = embeddedDataDirectory(index);
        long pid = postmasterPid(data);
        ProcessHandle postmaster = ProcessHandle.of(pid)
                .orElseThrow(() -> new PostgresProvisioningException(
                        "PostgreSQL server " + index + " (pid " + pid + ") is not running"));
        List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
        all.add(0, postmaster); // first, so that it cannot start a replacement for a child killed before it
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle process : all) {
            while (process.isAlive()) {
                if (System.nanoTime() > deadline) {
                    throw new PostgresProvisioningException(
                            "process " + process.pid() + " of PostgreSQL server " + index + " survived SIGKILL");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            }
        }
        return pid;
    }

    /**
     * Starts embedded server {@code index} again after {@link #kill}: the same binary, data directory, port and
     * settings (PostgreSQL recorded its command line in {@code postmaster.opts}); it recovers from the crash (WAL
     * replay) like any server restarted after a power loss. Returns once it accepts connections; {@link #close} stops
     * it as it stops the others.
     */
    public void restart(int index) {
        Path data = embeddedDataDirectory(index);
        List<String> command;
        try {
            command = commandLine(
                    Files.readString(data.resolve("postmaster.opts")).trim());
        } catch (IOException e) {
            throw new PostgresProvisioningException(
                    "cannot read how PostgreSQL server " + index + " was started: " + e.getMessage(), e);
        }
        if (io.zonky.test.db.postgres.util.LinuxUtils.isUnshareAvailable()) {
            // As zonky starts it: PostgreSQL refuses to run as root, and in a user namespace of its own it is not.
            command.addAll(0, List.of("unshare", "-U"));
        }
        Path log = workDirectory.resolve("restart-" + index + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            restarted.add(process);
        } catch (IOException e) {
            throw new PostgresProvisioningException(
                    "cannot start PostgreSQL server " + index + " again: " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection connection = connect(index)) {
                connection.isValid(JdbcConnections.CONNECT_TIMEOUT_SECONDS);
                return;
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw new PostgresProvisioningException(
                            "PostgreSQL server " + index + " did not accept connections within 60 s of its restart ("
                                    + e.getMessage() + "); its output is in " + log,
                            e);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // recovering: 57P03, or refused
            }
        }
    }

    private Path embeddedDataDirectory(int index) {
        if (backend != PostgresBackend.EMBEDDED) {
            throw new UnsupportedOperationException(
                    "only embedded PostgreSQL servers can be killed and started again by Gargamel (this cluster's "
                            + "servers are " + backend + ")");
        }
        if (index < 0 || index >= jdbcUrls.size()) {
            throw new IllegalArgumentException(
                    "no PostgreSQL server " + index + " (there are " + jdbcUrls.size() + ")");
        }
        return workDirectory.resolve("data-" + index);
    }

    /** The first line of {@code postmaster.pid}: the running postmaster's pid. */
    private static long postmasterPid(Path data) {
        try {
            return Long.parseLong(
                    Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new PostgresProvisioningException(
                    "cannot read the postmaster's pid from " + data.resolve("postmaster.pid") + ": " + e, e);
        }
    }

    /** {@code postmaster.opts}: the binary, then each argument in double quotes, e.g. {@code /x/postgres "-D" "/d"}. */
    static List<String> commandLine(String opts) {
        List<String> words = new ArrayList<>();
        int firstArgument = opts.indexOf(" \"");
        if (firstArgument > 0) { // the binary is written unquoted, and its path may hold spaces
            words.add(opts.substring(0, firstArgument));
            opts = opts.substring(firstArgument + 1);
        }
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean inWord = false;
        for (int i = 0; i < opts.length(); i++) {
            char c = opts.charAt(i);
            if (c == '"') {
                quoted = !quoted;
                inWord = true;
            } else if (Character.isWhitespace(c) && !quoted) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
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
        for (Process process : restarted) {
            process.destroyForcibly(); // in case the stop above missed it (it failed, or came too early)
        }
        if (workDirectory != null) {
            awaitDataDirectoriesRemoved();
            deleteRecursively(workDirectory);
            removeZonkyLeftovers();
        }
    }

    /**
     * zonky writes a distribution-detection script into the temporary directory on every start and never deletes
     * it, and leaves an empty {@code embedded-pg} directory: remove the scripts that appeared since this class
     * was loaded, and the directory if it is empty (another process may be using it otherwise).
     */
    private void removeZonkyLeftovers() {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        try (var files = Files.list(temporary)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("detect_linux_distribution_")
                            && f.getFileName().toString().endsWith(".sh"))
                    .toList()) {
                // Not one that predates us, and old enough that no other JVM is about to run it.
                if (!ZONKY_SCRIPTS_BEFORE.contains(file)
                        && Files.getLastModifiedTime(file).toMillis() < System.currentTimeMillis() - 2_000) {
                    Files.deleteIfExists(file);
                }
            }
            Path lockDirectory = temporary.resolve("embedded-pg");
            if (Files.isDirectory(lockDirectory)) {
                try (var entries = Files.list(lockDirectory)) {
                    if (entries.findAny().isEmpty()) {
                        Files.deleteIfExists(lockDirectory);
                    }
                }
            }
        } catch (IOException e) {
            // Best effort: a leftover script of 551 bytes is not worth failing a run for.
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

    private static void closeAll(List<AutoCloseable> servers) {
        for (AutoCloseable server : servers) {
            try {
                server.close();
            } catch (Exception e) {
                LOG.warn("could not stop a PostgreSQL server: {}", e.getMessage(), e);
            }
        }
    }

    /** Lets {@code network} connect to the server of {@code data} without a password, at once (a reload). */
    private static void trust(Path data, String network, String url) throws IOException {
        Files.writeString(
                data.resolve("pg_hba.conf"),
                "\nhost all all " + network + " trust\n",
                java.nio.file.StandardOpenOption.APPEND);
        try (Connection connection = JdbcConnections.connect(url);
                java.sql.Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_reload_conf()");
        } catch (SQLException e) {
            throw new IOException("cannot reload the configuration of " + url + ": " + e.getMessage(), e);
        }
    }

    /** Server {@code index}'s URL with {@code host} in place of its loopback address. */
    public String jdbcUrl(int index, String host) {
        return jdbcUrls.get(index).replaceFirst("//(localhost|127\\.0\\.0\\.1):", "//" + host + ":");
    }

    private static void requirePositive(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("the number of PostgreSQL servers must be at least 1, was " + count);
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                    Files.deleteIfExists(directory);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
