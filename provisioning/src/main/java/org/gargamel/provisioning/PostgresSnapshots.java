package org.gargamel.provisioning;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Stopped data directories of embedded servers that hold a given population (a TPC-C load of some scale and seed),
 * kept between runs: a run that needs N servers holding it copies the files instead of loading N times
 * ({@link PostgresCluster#embeddedCopies}). Loading one warehouse costs PostgreSQL about 5 CPU-seconds per server;
 * copying its ~200 MB a fraction of one.
 *
 * <p>Opt-in through {@value #DIRECTORY_VARIABLE}: the build sets it for its tests, so that the dozens of clusters its
 * end-to-end tests start load each population once per build. A snapshot is made once per key under a file lock
 * (concurrent test JVMs and the commands they start wait for the one making it) and published by an atomic rename,
 * so a crash while making one leaves only a partial directory that is never used. The key must name everything the
 * data depends on (its scale, its seed, a fingerprint of the code that loads it): nothing here can tell a stale
 * snapshot from a good one.
 */
public final class PostgresSnapshots {
    /** The environment variable naming the directory of the snapshots; unset, nothing is kept. */
    public static final String DIRECTORY_VARIABLE = "GARGAMEL_POSTGRES_SNAPSHOTS";

    private static final ConcurrentMap<String, ReentrantLock> MAKING = new ConcurrentHashMap<>();

    private final Path root;

    /** What puts the population into an empty database: the server's maintenance database URL. */
    @FunctionalInterface
    public interface Population {
        void populate(String jdbcUrl) throws Exception;
    }

    public PostgresSnapshots(Path root) {
        this.root = root;
    }

    /** The snapshots of {@value #DIRECTORY_VARIABLE}, if it is set. */
    public static Optional<PostgresSnapshots> fromEnvironment() {
        String directory = System.getenv(DIRECTORY_VARIABLE);
        return directory == null || directory.isBlank()
                ? Optional.empty()
                : Optional.of(new PostgresSnapshots(Path.of(directory)));
    }

    /**
     * The data directory of snapshot {@code key}, made now by {@code population} on a fresh server if there is none
     * yet. Only read it (copy it): it is shared.
     */
    public Path snapshot(String key, Population population) {
        if (!key.matches("[A-Za-z0-9_.-]{1,200}")) {
            throw new IllegalArgumentException(
                    "a snapshot key is letters, digits, '.', '_' and '-', got '" + key + "'");
        }
        Path done = root.resolve(key);
        if (Files.isDirectory(done)) {
            return done;
        }
        // A file lock is held by the JVM, not the thread: threads of one JVM take turns on a lock of their own first.
        ReentrantLock inThisJvm = MAKING.computeIfAbsent(key, k -> new ReentrantLock());
        inThisJvm.lock();
        try {
            Files.createDirectories(root);
            try (FileChannel channel = FileChannel.open(
                    root.resolve(key + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock = channel.lock(); // released when the channel closes
                if (!Files.isDirectory(done)) {
                    make(done, population);
                }
                lock.release();
            }
            return done;
        } catch (IOException e) {
            throw new PostgresProvisioningException(
                    "cannot make the PostgreSQL snapshot " + done + ": " + e.getMessage(), e);
        } finally {
            inThisJvm.unlock();
        }
    }

    private void make(Path done, Population population) throws IOException {
        Path partial = root.resolve(
                done.getFileName() + ".partial-" + ProcessHandle.current().pid());
        TemporaryFiles.deleteRecursively(partial); // a crashed attempt of an earlier process with the same pid
        EmbeddedPostgres server =
                EmbeddedServer.start(partial, EmbeddedServer.binariesDirectory(root), false, "localhost");
        try {
            population.populate(server.getJdbcUrl("postgres", "postgres"));
        } catch (Exception e) {
            server.close();
            TemporaryFiles.deleteRecursively(partial);
            throw new PostgresProvisioningException(
                    "cannot populate the PostgreSQL snapshot " + done + ": " + e.getMessage(), e);
        }
        server.close(); // a clean shutdown: a checkpoint, so that a copy starts without recovery
        Files.deleteIfExists(partial.resolve(EmbeddedServer.ZONKY_LOCK_FILE));
        Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
    }
}
