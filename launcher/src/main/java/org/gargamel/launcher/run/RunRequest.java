package org.gargamel.launcher.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gargamel.provisioning.PostgresBackend;

/**
 * A validated TPC-C run: everything the run needs, nothing started yet. {@code jdbcUrls} are the servers given (empty:
 * {@code backend} starts {@code replicas} of them); {@code rate} is null for closed-loop terminals. {@code freshCopies}:
 * the replicas were just copied from one template database (compare), so the table-by-table comparison before the
 * run (35 s at 4 warehouses here) is skipped.
 */
public record RunRequest(
        RunTarget target,
        int replicas,
        List<String> jdbcUrls,
        PostgresBackend backend,
        int warehouses,
        int terminals,
        Duration warmup,
        Duration duration,
        Double rate,
        boolean keying,
        long seed,
        long loadSeed,
        Path out,
        boolean freshCopies) {

    public RunRequest {
        jdbcUrls = List.copyOf(jdbcUrls);
    }

    /**
     * The same run on servers started and loaded elsewhere, given by {@code urls} (one per replica): PostgreSQL
     * servers that bench costs's native run set up as publisher and subscriber, say.
     */
    public RunRequest onServers(List<String> urls) {
        return new RunRequest(
                target,
                urls.size(),
                urls,
                PostgresBackend.EXTERNAL,
                warehouses,
                terminals,
                warmup,
                duration,
                rate,
                keying,
                seed,
                loadSeed,
                out,
                freshCopies);
    }

    /** How long the terminals run, for the log line (see {@link #interval(Duration, Duration)}). */
    public String interval() {
        return interval(warmup, duration);
    }

    /** How long terminals run, for log lines: "PT1M", or "PT10S warm-up + PT1M measured". */
    public static String interval(Duration warmup, Duration duration) {
        return warmup.isZero() ? duration.toString() : warmup + " warm-up + " + duration + " measured";
    }
}
