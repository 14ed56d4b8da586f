package org.gargamel.tpcc.result;

import java.util.EnumMap;
import java.util.Map;
import org.gargamel.common.stats.LatencyHistogram;
import org.gargamel.tpcc.workload.ExecutionOutcome;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * Counts and response times of one terminal (not thread-safe), merged into the run's totals at the end
 * with {@link #add}.
 */
public final class RunStatistics {
    private final Map<TransactionType, long[]> committed = new EnumMap<>(TransactionType.class);
    private final Map<TransactionType, long[]> userAborts = new EnumMap<>(TransactionType.class);
    private final Map<TransactionType, LatencyHistogram> latencies = new EnumMap<>(TransactionType.class);
    private long conflictAborts;
    private long retries;
    private long errors;
    private long dropped;
    private String firstError;

    public RunStatistics() {
        for (TransactionType type : TransactionType.values()) {
            committed.put(type, new long[1]);
            userAborts.put(type, new long[1]);
            latencies.put(type, new LatencyHistogram());
        }
    }

    /** Records one finished call; its latency counts for committed calls and user aborts alike. */
    public void record(TransactionType type, ExecutionOutcome outcome, long latencyNanos) {
        conflictAborts += outcome.conflictAborts();
        retries += outcome.retries();
        switch (outcome.kind()) {
            case COMMITTED -> {
                committed.get(type)[0]++;
                latencies.get(type).recordNanos(latencyNanos);
            }
            case USER_ABORT -> {
                userAborts.get(type)[0]++;
                latencies.get(type).recordNanos(latencyNanos);
            }
            case FAILED -> {
                errors++;
                if (firstError == null) {
                    firstError = type + ": " + outcome.message() + " (SQLSTATE " + outcome.sqlState() + ")";
                }
            }
        }
    }

    /**
     * A call of the warm-up: not measured, except a failure, which counts as an error like any other (a call without
     * an outcome fails the run, whenever it happens).
     */
    public void recordWarmUp(TransactionType type, ExecutionOutcome outcome) {
        if (outcome.kind() == ExecutionOutcome.Kind.FAILED) {
            record(type, outcome, 0);
        }
    }

    /** An open-loop arrival that found every worker busy and its queue full. */
    public void recordDropped() {
        dropped++;
    }

    public void add(RunStatistics other) {
        for (TransactionType type : TransactionType.values()) {
            committed.get(type)[0] += other.committed.get(type)[0];
            userAborts.get(type)[0] += other.userAborts.get(type)[0];
            latencies.get(type).add(other.latencies.get(type));
        }
        conflictAborts += other.conflictAborts;
        retries += other.retries;
        errors += other.errors;
        dropped += other.dropped;
        if (firstError == null) {
            firstError = other.firstError;
        }
    }

    public long committed(TransactionType type) {
        return committed.get(type)[0];
    }

    public long userAborts(TransactionType type) {
        return userAborts.get(type)[0];
    }

    public long userAborts() {
        return userAborts.values().stream().mapToLong(count -> count[0]).sum();
    }

    /** Calls that finished, committed or rolled back by the procedure. */
    public long finished(TransactionType type) {
        return committed(type) + userAborts(type);
    }

    public long finished() {
        long sum = 0;
        for (TransactionType type : TransactionType.values()) {
            sum += finished(type);
        }
        return sum;
    }

    public LatencyHistogram latency(TransactionType type) {
        return latencies.get(type);
    }

    public long conflictAborts() {
        return conflictAborts;
    }

    public long retries() {
        return retries;
    }

    public long errors() {
        return errors;
    }

    public long dropped() {
        return dropped;
    }

    public String firstError() {
        return firstError;
    }
}
