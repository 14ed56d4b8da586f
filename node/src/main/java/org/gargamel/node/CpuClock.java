package org.gargamel.node;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CPU time spent on a call or a write-set on both ends of one JDBC connection (issue 17 compares executing and applying
 * in CPU, not only in wall time, which on a shared machine counts waiting for a core and for row locks): the calling
 * thread's, and that of the PostgreSQL backend serving the connection.
 *
 * <p>The backend's is read from {@code /proc/PID/schedstat} (the nanoseconds the kernel ran it), so only where
 * PostgreSQL runs on this machine and this process may look at it. The pid is the connection's {@code pg_backend_pid()};
 * it is taken to be that backend only if {@code /proc/PID/cwd} is the server's {@code data_directory} (a server on
 * another host may have a backend whose pid is some unrelated local process). Otherwise, or where the server does not
 * show its data directory (it needs superuser or {@code pg_read_all_settings}), the backend's CPU is unknown (-1) and
 * only the thread's is counted. One clock per connection, used by the one thread that owns it.
 */
public final class CpuClock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CpuClock.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * Wall time and CPU spent between {@link #start} and {@link Timing#stop}; {@code backendNanos} is -1 where the
     * backend is not measured.
     */
    public record Elapsed(long wallNanos, long threadNanos, long backendNanos) {
        public boolean backendMeasured() {
            return backendNanos >= 0;
        }

        /**
         * The share {@code part / whole} of it: a write-set's in a group applied in one transaction, by its rows (a
         * 50-row write-set costs more of the group's work than a 1-row one beside it).
         */
        public Elapsed share(long part, long whole) {
            return new Elapsed(
                    wallNanos * part / whole,
                    threadNanos * part / whole,
                    backendMeasured() ? backendNanos * part / whole : -1);
        }
    }

    /** A started measurement, stopped by the thread that started it. */
    public final class Timing {
        private final long wallStart = System.nanoTime();
        private final long threadStart = THREADS.getCurrentThreadCpuTime();
        private final long backendStart = backendNanos();

        private Timing() {}

        public Elapsed stop() {
            long backendEnd = backendStart < 0 ? -1 : backendNanos();
            return new Elapsed(
                    System.nanoTime() - wallStart,
                    THREADS.getCurrentThreadCpuTime() - threadStart,
                    backendEnd < 0 ? -1 : backendEnd - backendStart);
        }
    }

    /** Open on the backend's schedstat, re-read from its start each time; null where it is not measured. */
    private final FileChannel schedstat;

    private final ByteBuffer buffer = ByteBuffer.allocate(128);

    private CpuClock(FileChannel schedstat) {
        this.schedstat = schedstat;
    }

    /** Only the calling thread's CPU. */
    public static CpuClock threadOnly() {
        return new CpuClock(null);
    }

    /**
     * A clock for {@code connection}'s backend when it is measurable from here, else {@link #threadOnly}. Asks the
     * server once; in a transaction of its own when the connection is not in auto-commit mode.
     */
    public static CpuClock of(Connection connection, String who) {
        long pid;
        String dataDirectory;
        try (Statement statement = connection.createStatement();
                ResultSet row =
                        statement.executeQuery("SELECT pg_backend_pid(), current_setting('data_directory', true)")) {
            row.next();
            pid = row.getLong(1);
            dataDirectory = row.getString(2);
        } catch (SQLException e) {
            LOG.info("{}: the PostgreSQL backend's CPU is not measured: {}", who, e.getMessage());
            endTransaction(connection);
            return threadOnly();
        }
        endTransaction(connection);
        Path process = Path.of("/proc", Long.toString(pid));
        try {
            if (dataDirectory == null
                    || !Files.readSymbolicLink(process.resolve("cwd"))
                            .equals(Path.of(dataDirectory).toRealPath())) {
                LOG.info(
                        "{}: the PostgreSQL backend's CPU is not measured: its server does not run on this machine, or"
                                + " does not show its data directory",
                        who);
                return threadOnly();
            }
            return new CpuClock(FileChannel.open(process.resolve("schedstat"), StandardOpenOption.READ));
        } catch (IOException | SecurityException e) {
            LOG.info("{}: the PostgreSQL backend's CPU is not measured: {}", who, e.toString());
            return threadOnly();
        }
    }

    /** Starts measuring the work the calling thread does now on this clock's connection. */
    public Timing start() {
        return new Timing();
    }

    /** The first field of schedstat: nanoseconds on a CPU since the backend started; -1 if not measured. */
    private long backendNanos() {
        if (schedstat == null) {
            return -1;
        }
        try {
            buffer.clear();
            schedstat.read(buffer, 0);
            buffer.flip();
            String text = StandardCharsets.US_ASCII.decode(buffer).toString();
            int end = text.indexOf(' ');
            return Long.parseLong(end < 0 ? text.trim() : text.substring(0, end));
        } catch (IOException | NumberFormatException e) {
            return -1; // the backend is gone (the connection broke): its owner finds out from JDBC
        }
    }

    /** Lets go of the backend's schedstat file. */
    @Override
    public void close() {
        if (schedstat != null) {
            try {
                schedstat.close();
            } catch (IOException e) {
                LOG.debug("closing a backend's schedstat failed", e); // nothing is read from it any more
            }
        }
    }

    private static void endTransaction(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException e) {
            LOG.debug("ending the CPU clock's query failed", e); // the connection's owner meets a broken one itself
        }
    }
}
