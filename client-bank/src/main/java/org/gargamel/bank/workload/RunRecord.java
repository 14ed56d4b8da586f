package org.gargamel.bank.workload;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the terminals saw: per procedure the calls committed, user-aborted and their latencies; the calls without an
 * outcome (errors); the read-your-writes misses; the torn reads; and the money and rows acknowledged, which the
 * checks after the run compare with every replica. One per terminal while it runs (no sharing), merged at the end.
 */
public final class RunRecord {
    private final Map<BankProcedure, long[]> counts = new EnumMap<>(BankProcedure.class);
    private final Map<BankProcedure, Latencies> latencies = new EnumMap<>(BankProcedure.class);
    private final List<Acknowledged.Account> accounts = new ArrayList<>();
    private final List<Acknowledged.Transfer> transfers = new ArrayList<>();
    private BigDecimal deposited = BigDecimal.ZERO;
    private BigDecimal withdrawn = BigDecimal.ZERO;
    private long errors;
    private String firstError;
    private long readYourWritesMisses;
    private String firstReadYourWritesMiss;
    private long tornReads;
    private String firstTornRead;

    private static final int COMMITTED = 0;
    private static final int USER_ABORTED = 1;

    public RunRecord() {
        for (BankProcedure procedure : BankProcedure.values()) {
            counts.put(procedure, new long[2]);
            latencies.put(procedure, new Latencies());
        }
    }

    void committed(BankProcedure procedure, long latencyMicros) {
        counts.get(procedure)[COMMITTED]++;
        latencies.get(procedure).add(latencyMicros);
    }

    void userAborted(BankProcedure procedure, long latencyMicros) {
        counts.get(procedure)[USER_ABORTED]++;
        latencies.get(procedure).add(latencyMicros);
    }

    void error(String description) {
        errors++;
        if (firstError == null) {
            firstError = description;
        }
    }

    void readYourWritesMiss(String description) {
        readYourWritesMisses++;
        if (firstReadYourWritesMiss == null) {
            firstReadYourWritesMiss = description;
        }
    }

    void tornRead(String description) {
        tornReads++;
        if (firstTornRead == null) {
            firstTornRead = description;
        }
    }

    void opened(Acknowledged.Account account) {
        accounts.add(account);
        deposited = deposited.add(account.initial());
    }

    void deposited(BigDecimal amount) {
        deposited = deposited.add(amount);
    }

    void withdrawn(BigDecimal amount) {
        withdrawn = withdrawn.add(amount);
    }

    void transferred(Acknowledged.Transfer transfer) {
        transfers.add(transfer);
    }

    /** Adds {@code other}'s calls and acknowledgements to this one's. */
    public void merge(RunRecord other) {
        for (BankProcedure procedure : BankProcedure.values()) {
            long[] mine = counts.get(procedure);
            long[] theirs = other.counts.get(procedure);
            mine[COMMITTED] += theirs[COMMITTED];
            mine[USER_ABORTED] += theirs[USER_ABORTED];
            latencies.get(procedure).addAll(other.latencies.get(procedure));
        }
        accounts.addAll(other.accounts);
        transfers.addAll(other.transfers);
        deposited = deposited.add(other.deposited);
        withdrawn = withdrawn.add(other.withdrawn);
        errors += other.errors;
        firstError = firstError != null ? firstError : other.firstError;
        readYourWritesMisses += other.readYourWritesMisses;
        firstReadYourWritesMiss =
                firstReadYourWritesMiss != null ? firstReadYourWritesMiss : other.firstReadYourWritesMiss;
        tornReads += other.tornReads;
        firstTornRead = firstTornRead != null ? firstTornRead : other.firstTornRead;
    }

    public long committed(BankProcedure procedure) {
        return counts.get(procedure)[COMMITTED];
    }

    public long userAborts(BankProcedure procedure) {
        return counts.get(procedure)[USER_ABORTED];
    }

    public long committed() {
        return counts.values().stream().mapToLong(c -> c[COMMITTED]).sum();
    }

    public long userAborts() {
        return counts.values().stream().mapToLong(c -> c[USER_ABORTED]).sum();
    }

    /** p50, p99 and max in milliseconds of the procedure's calls that got an outcome (committed or user-aborted). */
    public Map<String, Double> latencyMillis(BankProcedure procedure) {
        Latencies calls = latencies.get(procedure);
        Map<String, Double> percentiles = new LinkedHashMap<>();
        percentiles.put("p50", calls.percentileMillis(50));
        percentiles.put("p99", calls.percentileMillis(99));
        percentiles.put("max", calls.percentileMillis(100));
        return percentiles;
    }

    /** Money put in: the deposits and the initial balances of the accounts opened, acknowledged. */
    public BigDecimal deposited() {
        return deposited;
    }

    /** Money taken out by acknowledged withdrawals. */
    public BigDecimal withdrawn() {
        return withdrawn;
    }

    public List<Acknowledged.Account> accounts() {
        return List.copyOf(accounts);
    }

    public List<Acknowledged.Transfer> transfers() {
        return List.copyOf(transfers);
    }

    /** Calls that got no outcome, or one the workload did not expect: they fail the run. */
    public long errors() {
        return errors;
    }

    public String firstError() {
        return firstError;
    }

    /**
     * Calls on an account this terminal had just opened (acknowledged) that found no such account at the replica
     * that ran them: the read-your-writes gap (docs/bank.md). Counted apart, never as a pass.
     */
    public long readYourWritesMisses() {
        return readYourWritesMisses;
    }

    public String firstReadYourWritesMiss() {
        return firstReadYourWritesMiss;
    }

    /** Read-only calls that returned a state that never existed (their totals disagree). */
    public long tornReads() {
        return tornReads;
    }

    public String firstTornRead() {
        return firstTornRead;
    }
}
