package org.gargamel.provisioning;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * The processes of a cluster's embedded servers, found through their data directories ({@code data-i} under the
 * cluster's work directory): their postmasters' pids, a crash (SIGKILL to all of a server's processes at once) and a
 * restart with the command line PostgreSQL recorded.
 *
 * <p>Invariant: every server started again is a child of this JVM listed in {@link #restarted}, so that the cluster's
 * close stops it even if zonky's stop misses it ({@code PostgresClusterTest}: the restarted server is stopped by
 * close, and its data removed).
 */
final class EmbeddedProcesses {
    private final Path workDirectory;
    private final int count;
    /** Servers started again by {@link #restart} (children of this JVM). */
    private final List<Process> restarted = new CopyOnWriteArrayList<>();

    EmbeddedProcesses(Path workDirectory, int count) {
        this.workDirectory = workDirectory;
        this.count = count;
    }

    /** The running postmasters' pids, in server order. */
    List<Long> postmasterPids() {
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pids.add(postmasterPid(dataDirectory(i)));
        }
        return pids;
    }

    /** See {@link PostgresCluster#kill}. */
    long kill(int index) {
        Path data = dataDirectory(index);
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

    /** See {@link PostgresCluster#restart}; {@code jdbcUrl} is the server's, polled until it accepts connections. */
    void restart(int index, String jdbcUrl) {
        Path data = dataDirectory(index);
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
            try (Connection connection = JdbcConnections.connect(jdbcUrl)) {
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

    /** Kills the servers started again, in case the cluster's stop missed them (it failed, or came too early). */
    void destroyRestarted() {
        for (Process process : restarted) {
            process.destroyForcibly();
        }
    }

    private Path dataDirectory(int index) {
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("no PostgreSQL server " + index + " (there are " + count + ")");
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
}
