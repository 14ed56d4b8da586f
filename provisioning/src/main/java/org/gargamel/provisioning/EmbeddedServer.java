package org.gargamel.provisioning;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * How one embedded PostgreSQL server is started on a data directory, for {@link PostgresCluster} and
 * {@link PostgresSnapshots}: the settings of a throw-away server (no fsync), where the binaries are unpacked, copying a
 * stopped data directory, and trusting another network.
 *
 * <p>Invariant: a copied data directory keeps PostgreSQL's permissions and holds neither zonky's lock file nor a
 * {@code postmaster.pid}, so that a server starts on it as on its own ({@code PostgresSnapshotsTest}).
 */
final class EmbeddedServer {
    /** zonky's lock file in a data directory, held while its server runs. */
    static final String ZONKY_LOCK_FILE = "epg-lock";

    private EmbeddedServer() {}

    /**
     * One embedded server on {@code data}. fsync is off: its data is thrown away when it stops (a snapshot's is
     * made again if lost). {@code clean}: run initdb on an empty directory and delete it when the server stops.
     */
    static EmbeddedPostgres start(Path data, Path binaries, boolean clean, String listenAddresses) throws IOException {
        return start(data, binaries, clean, listenAddresses, Map.of());
    }

    /**
     * {@link #start(Path, Path, boolean, String)} with {@code extraSettings} too (name to value, e.g. {@code wal_level}
     * {@code logical} for a publisher), given after the settings above and so taking precedence over them.
     */
    static EmbeddedPostgres start(
            Path data, Path binaries, boolean clean, String listenAddresses, Map<String, String> extraSettings)
            throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(clean)
                .setOverrideWorkingDirectory(binaries.toFile())
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_buffers", "128MB")
                .setServerConfig("max_locks_per_transaction", "256")
                .setServerConfig("listen_addresses", listenAddresses);
        extraSettings.forEach(builder::setServerConfig);
        return builder.start();
    }

    /**
     * Where zonky unpacks the binaries (into a PG-digest directory of its own, under a file lock, so concurrent JVMs
     * share one copy): {@value PostgresCluster#BINARIES_DIRECTORY_VARIABLE} if set, else the cluster's temporary
     * directory.
     */
    static Path binariesDirectory(Path work) {
        String shared = System.getenv(PostgresCluster.BINARIES_DIRECTORY_VARIABLE);
        return shared == null || shared.isBlank() ? work.resolve("binaries") : Path.of(shared);
    }

    /** Copies a stopped data directory, keeping PostgreSQL's permissions (it refuses a group- or world-readable one). */
    static void copyDataDirectory(Path snapshot, Path data) throws IOException {
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

    /** Lets {@code network} connect to the server of {@code data} without a password, at once (a reload). */
    static void trust(Path data, String network, String url) throws IOException {
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
}
