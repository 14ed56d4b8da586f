package org.gargamel.bank.check;

import java.math.BigDecimal;
import java.util.List;
import org.gargamel.bank.workload.Acknowledged;
import org.gargamel.bank.workload.RunRecord;

/**
 * What every replica must hold after a run: the state before it ({@code baseline}) plus what the clients were told
 * committed. {@code unknownOutcomes}: calls whose outcome no client learnt, which may or may not have created a row.
 */
public record Expectation(
        Baseline baseline,
        BigDecimal deposited,
        BigDecimal withdrawn,
        List<Acknowledged.Account> accounts,
        List<Acknowledged.Transfer> transfers,
        long unknownOutcomes) {
    public Expectation {
        accounts = List.copyOf(accounts);
        transfers = List.copyOf(transfers);
    }

    /** The expectation after a run that started at {@code baseline} and recorded {@code record}. */
    public static Expectation after(Baseline baseline, RunRecord record) {
        return new Expectation(
                baseline,
                record.deposited(),
                record.withdrawn(),
                record.accounts(),
                record.transfers(),
                record.errors());
    }

    /** The money the bank must hold: before, plus deposits and opening balances, minus withdrawals. */
    public BigDecimal total() {
        return baseline.total().add(deposited).subtract(withdrawn);
    }

    /** The database's money and row counts before a run. */
    public record Baseline(BigDecimal total, long accounts, long transfers) {}
}
