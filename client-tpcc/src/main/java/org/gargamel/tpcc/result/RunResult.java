package org.gargamel.tpcc.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.gargamel.common.stats.LatencyHistogram;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * The contract of {@code result.json} (docs/commands.md, result.json): what ran, what it achieved, and whether the database
 * was consistent and the replicas identical afterwards.
 */
@JsonPropertyOrder({
    "mode",
    "isolation",
    "client",
    "tpccRules",
    "replicas",
    "warehouses",
    "terminals",
    "rate",
    "warmupSeconds",
    "durationSeconds",
    "tpmC",
    "throughputTps",
    "committed",
    "userAborts",
    "conflictAborts",
    "retries",
    "errors",
    "dropped",
    "latencyMs",
    "mix",
    "consistency",
    "convergence",
    "seed",
    "startedAt",
    "firstError",
    "acknowledgedNewOrders",
    "acknowledgedMissing",
    "duplicateOrders",
    "faults",
    "unsoundWrites",
    "cpu",
    "sites"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record RunResult(
        String mode,
        String isolation,
        String client,
        String tpccRules,
        int replicas,
        int warehouses,
        int terminals,
        Double rate,
        double warmupSeconds,
        double durationSeconds,
        double tpmC,
        double throughputTps,
        Map<String, Long> committed,
        long userAborts,
        long conflictAborts,
        long retries,
        long errors,
        long dropped,
        Map<String, Map<String, Double>> latencyMs,
        Map<String, Double> mix,
        Object consistency,
        Object convergence,
        long seed,
        String startedAt,
        String firstError,
        Long acknowledgedNewOrders,
        Long acknowledgedMissing,
        Long duplicateOrders,
        Object faults,
        Long unsoundWrites,
        RunCpu cpu,
        Object sites) {

    /** The key of {@code latencyMs} over every call of the run, whatever its type. */
    public static final String ALL_TYPES = "ALL";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Builds the result of a run from its merged statistics; checks are attached with {@link #withChecks}. */
    public static RunResult of(RunDescription run, RunStatistics statistics, double measuredSeconds) {
        Map<String, Long> committed = new LinkedHashMap<>();
        Map<String, Map<String, Double>> latency = new LinkedHashMap<>();
        Map<String, Double> mix = new LinkedHashMap<>();
        long finished = statistics.finished();
        for (TransactionType type : TransactionType.values()) {
            committed.put(type.name(), statistics.committed(type));
            LatencyHistogram histogram = statistics.latency(type);
            Map<String, Double> percentiles = new LinkedHashMap<>();
            percentiles.put("p50", round(histogram.percentileMillis(50)));
            percentiles.put("p95", round(histogram.percentileMillis(95)));
            percentiles.put("p99", round(histogram.percentileMillis(99)));
            percentiles.put("max", round(histogram.maxMillis()));
            latency.put(type.name(), percentiles);
            mix.put(type.name(), finished == 0 ? 0 : round(100.0 * statistics.finished(type) / finished));
        }
        LatencyHistogram all = new LatencyHistogram();
        for (TransactionType type : TransactionType.values()) {
            all.add(statistics.latency(type));
        }
        Map<String, Double> overall = new LinkedHashMap<>();
        overall.put("p50", round(all.percentileMillis(50)));
        overall.put("p95", round(all.percentileMillis(95)));
        overall.put("p99", round(all.percentileMillis(99)));
        overall.put("max", round(all.maxMillis()));
        latency.put(ALL_TYPES, overall);
        double minutes = measuredSeconds / 60.0;
        double tpmC = minutes == 0 ? 0 : statistics.committed(TransactionType.NEW_ORDER) / minutes;
        double tps = measuredSeconds == 0 ? 0 : finished / measuredSeconds;
        return new RunResult(
                run.mode(),
                run.isolation(),
                run.client(),
                run.tpccRules(),
                run.replicas(),
                run.warehouses(),
                run.terminals(),
                run.rate(),
                round(run.warmup().toMillis() / 1000.0),
                round(measuredSeconds),
                round(tpmC),
                round(tps),
                committed,
                statistics.userAborts(),
                statistics.conflictAborts(),
                statistics.retries(),
                statistics.errors(),
                statistics.dropped(),
                latency,
                mix,
                null,
                null,
                run.seed(),
                run.startedAt(),
                statistics.firstError(),
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    public RunResult withChecks(Object consistency, Object convergence) {
        return edit(draft -> {
            draft.consistency = consistency;
            draft.convergence = convergence;
        });
    }

    /** Adds what the nodes counted: certification aborts and transparent re-executions. */
    public RunResult withServerCounters(long serverConflictAborts, long serverRetries) {
        return edit(draft -> {
            draft.conflictAborts = conflictAborts + serverConflictAborts;
            draft.retries = retries + serverRetries;
        });
    }

    /**
     * Adds the ledger check: New-Orders acknowledged to the terminals, how many of them some replica lacks, and orders
     * created beyond those acknowledged (and those whose outcome the terminal never learnt).
     */
    public RunResult withLedger(long acknowledged, long missing, long duplicates) {
        return edit(draft -> {
            draft.acknowledgedNewOrders = acknowledged;
            draft.acknowledgedMissing = missing;
            draft.duplicateOrders = duplicates;
        });
    }

    /** Adds the faults a chaos run injected (one entry each). */
    public RunResult withFaults(Object injected) {
        return edit(draft -> draft.faults = injected);
    }

    /**
     * Adds what the nodes counted as written outside the calls' rules (rulesCheck; docs/classifier.md): 0 for sound
     * rules. Null in a run without nodes (direct).
     */
    public RunResult withUnsoundWrites(long written) {
        return edit(draft -> draft.unsoundWrites = written);
    }

    /** Adds where the CPU went over the measurement interval (null where it could not be read). */
    public RunResult withCpu(RunCpu measured) {
        return edit(draft -> draft.cpu = measured);
    }

    /**
     * Adds a multi-site run's figures (docs/multisite.md): the sites, their agreement, collisions, cancels, kills and
     * stalls, and the latency by site. Null for one site.
     */
    public RunResult withSites(Object figures) {
        return edit(draft -> draft.sites = figures);
    }

    private RunResult edit(Consumer<Draft> change) {
        Draft draft = new Draft(this);
        change.accept(draft);
        return draft.build();
    }

    /** Every field of a {@link RunResult}, changeable: so that each wither names only what it adds. */
    private static final class Draft {
        String mode;
        String isolation;
        String client;
        String tpccRules;
        int replicas;
        int warehouses;
        int terminals;
        Double rate;
        double warmupSeconds;
        double durationSeconds;
        double tpmC;
        double throughputTps;
        Map<String, Long> committed;
        long userAborts;
        long conflictAborts;
        long retries;
        long errors;
        long dropped;
        Map<String, Map<String, Double>> latencyMs;
        Map<String, Double> mix;
        Object consistency;
        Object convergence;
        long seed;
        String startedAt;
        String firstError;
        Long acknowledgedNewOrders;
        Long acknowledgedMissing;
        Long duplicateOrders;
        Object faults;
        Long unsoundWrites;
        RunCpu cpu;
        Object sites;

        Draft(RunResult result) {
            mode = result.mode;
            isolation = result.isolation;
            client = result.client;
            tpccRules = result.tpccRules;
            replicas = result.replicas;
            warehouses = result.warehouses;
            terminals = result.terminals;
            rate = result.rate;
            warmupSeconds = result.warmupSeconds;
            durationSeconds = result.durationSeconds;
            tpmC = result.tpmC;
            throughputTps = result.throughputTps;
            committed = result.committed;
            userAborts = result.userAborts;
            conflictAborts = result.conflictAborts;
            retries = result.retries;
            errors = result.errors;
            dropped = result.dropped;
            latencyMs = result.latencyMs;
            mix = result.mix;
            consistency = result.consistency;
            convergence = result.convergence;
            seed = result.seed;
            startedAt = result.startedAt;
            firstError = result.firstError;
            acknowledgedNewOrders = result.acknowledgedNewOrders;
            acknowledgedMissing = result.acknowledgedMissing;
            duplicateOrders = result.duplicateOrders;
            faults = result.faults;
            unsoundWrites = result.unsoundWrites;
            cpu = result.cpu;
            sites = result.sites;
        }

        RunResult build() {
            return new RunResult(
                    mode,
                    isolation,
                    client,
                    tpccRules,
                    replicas,
                    warehouses,
                    terminals,
                    rate,
                    warmupSeconds,
                    durationSeconds,
                    tpmC,
                    throughputTps,
                    committed,
                    userAborts,
                    conflictAborts,
                    retries,
                    errors,
                    dropped,
                    latencyMs,
                    mix,
                    consistency,
                    convergence,
                    seed,
                    startedAt,
                    firstError,
                    acknowledgedNewOrders,
                    acknowledgedMissing,
                    duplicateOrders,
                    faults,
                    unsoundWrites,
                    cpu,
                    sites);
        }
    }

    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        JSON.writeValue(file.toFile(), this);
    }

    public static RunResult read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), RunResult.class);
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
