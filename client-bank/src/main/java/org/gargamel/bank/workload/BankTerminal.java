package org.gargamel.bank.workload;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;

/**
 * One closed-loop terminal: picks a procedure by the mix, builds its call as a bank application would, sends it,
 * records the outcome. A terminal that opened an account uses it at once (its next call deposits into it) and now and
 * then later, as a customer would: that is where a read-your-writes miss shows. The totals a read-only call returns
 * must agree (a statement's balance with its entries, an audit's balances with its entries); if not, the call read a
 * torn state.
 */
final class BankTerminal implements Runnable {
    /** Percent of non-hot account choices that fall on an account this terminal opened. */
    private static final int OWN_ACCOUNT_PERCENT = 10;

    private final int number;
    private final WorkloadSettings settings;
    private final CallSender sender;
    private final BooleanSupplier running;
    private final SplittableRandom random;
    private final RunRecord record = new RunRecord();
    private final List<Long> ownAccounts = new ArrayList<>();
    private final Set<Long> ownAccountSet = new HashSet<>();
    /** An account just opened here, which the next call deposits into; or null. */
    private Long justOpened;

    private int opened;

    BankTerminal(int number, WorkloadSettings settings, CallSender sender, BooleanSupplier running) {
        this.number = number;
        this.settings = settings;
        this.sender = sender;
        this.running = running;
        this.random = new SplittableRandom(settings.seed() + number);
    }

    RunRecord record() {
        return record;
    }

    @Override
    public void run() {
        while (running.getAsBoolean()) {
            if (!callOnce()) {
                return;
            }
        }
    }

    /** One call; false when the thread was interrupted. */
    private boolean callOnce() {
        BankProcedure procedure =
                justOpened != null ? BankProcedure.DEPOSIT : BankProcedure.forRoll(random.nextInt(100));
        ProcedureCall call = build(procedure);
        justOpened = null;
        long start = System.nanoTime();
        CallOutcome outcome;
        try {
            outcome = sender.send(call);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (RuntimeException e) {
            record.error(call.toSql() + ": no outcome: " + e.getMessage());
            return true;
        }
        long latencyMicros = (System.nanoTime() - start) / 1_000;
        switch (outcome.status()) {
            case COMMITTED -> {
                record.committed(procedure, latencyMicros);
                acknowledge(procedure, call, outcome.result());
            }
            case USER_ABORTED -> aborted(procedure, call, outcome, latencyMicros);
            case REJECTED -> record.error(call.toSql() + ": rejected: " + outcome.message());
        }
        return true;
    }

    private ProcedureCall build(BankProcedure procedure) {
        return switch (procedure) {
            case OPEN_ACCOUNT ->
                ProcedureCall.of(
                        procedure.sqlName(), 1 + random.nextInt(settings.branches()), nextOwner(), amount(0, 500));
            case DEPOSIT ->
                ProcedureCall.of(procedure.sqlName(), justOpened != null ? justOpened : account(), amount(1, 200));
            case WITHDRAW -> ProcedureCall.of(procedure.sqlName(), account(), amount(1, 300));
            case TRANSFER -> {
                long from = account();
                long to = account();
                while (to == from) {
                    to = account();
                }
                yield ProcedureCall.of(procedure.sqlName(), from, to, amount(1, 300));
            }
            case ACCOUNT_STATEMENT -> ProcedureCall.of(procedure.sqlName(), account());
            case BRANCH_AUDIT -> ProcedureCall.of(procedure.sqlName(), 1 + random.nextInt(settings.branches()));
        };
    }

    /** A hot account, one this terminal opened, or any loaded account. */
    private long account() {
        if (random.nextInt(100) < settings.hotPercent()) {
            return 1L + random.nextInt(settings.hotAccounts());
        }
        if (!ownAccounts.isEmpty() && random.nextInt(100) < OWN_ACCOUNT_PERCENT) {
            return ownAccounts.get(random.nextInt(ownAccounts.size()));
        }
        return 1 + random.nextLong(settings.accounts());
    }

    private String nextOwner() {
        opened++;
        return "terminal " + number + " customer " + opened;
    }

    /** Whole cents between {@code min} and {@code max} units. */
    private BigDecimal amount(int min, int max) {
        return BigDecimal.valueOf(min * 100L + random.nextLong((max - min) * 100L + 1), 2);
    }

    private void acknowledge(BankProcedure procedure, ProcedureCall call, String result) {
        List<Object> arguments = call.arguments();
        switch (procedure) {
            case OPEN_ACCOUNT -> {
                long id = Long.parseLong(result);
                record.opened(new Acknowledged.Account(
                        id, (Integer) arguments.get(0), (String) arguments.get(1), (BigDecimal) arguments.get(2)));
                ownAccounts.add(id);
                ownAccountSet.add(id);
                justOpened = id;
            }
            case DEPOSIT -> record.deposited((BigDecimal) arguments.get(1));
            case WITHDRAW -> record.withdrawn((BigDecimal) arguments.get(1));
            case TRANSFER ->
                record.transferred(new Acknowledged.Transfer(
                        Long.parseLong(result), (Long) arguments.get(0), (Long) arguments.get(1), (BigDecimal)
                                arguments.get(2)));
            case ACCOUNT_STATEMENT, BRANCH_AUDIT -> checkTotals(call, result);
        }
    }

    /** account_statement: (balance, entries_total, entries); branch_audit: (accounts, balance_total, entries_total). */
    private void checkTotals(ProcedureCall call, String result) {
        String[] columns = result.substring(1, result.length() - 1).split(",", -1);
        BigDecimal balance = new BigDecimal(columns[call.procedure().equals("branch_audit") ? 1 : 0]);
        BigDecimal entries = new BigDecimal(columns[call.procedure().equals("branch_audit") ? 2 : 1]);
        if (balance.compareTo(entries) != 0) {
            record.tornRead(call.toSql() + " returned " + result + ": balances " + balance + " but entries " + entries);
        }
    }

    private void aborted(BankProcedure procedure, ProcedureCall call, CallOutcome outcome, long latencyMicros) {
        String sqlState = outcome.sqlState();
        if (BankSchema.INSUFFICIENT_FUNDS_SQLSTATE.equals(sqlState)) {
            record.userAborted(procedure, latencyMicros);
        } else if (BankSchema.NO_SUCH_ACCOUNT_SQLSTATE.equals(sqlState) && namesOwnAccount(call)) {
            record.readYourWritesMiss(call.toSql() + ": " + outcome.message());
        } else {
            record.error(call.toSql() + ": " + sqlState + " " + outcome.message());
        }
    }

    /** Whether the call names an account this terminal opened (and was told so). */
    private boolean namesOwnAccount(ProcedureCall call) {
        return call.arguments().stream()
                .anyMatch(argument -> argument instanceof Long id && ownAccountSet.contains(id));
    }
}
