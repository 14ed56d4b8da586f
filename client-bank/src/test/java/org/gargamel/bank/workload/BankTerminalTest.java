package org.gargamel.bank.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How a terminal classifies what the cluster answers (a sender that plays the cluster, no sockets): insufficient funds
 * is a user abort, a missing account it had just opened a read-your-writes miss, a missing loaded account an error,
 * and a read-only call whose totals disagree a torn read; what committed lands in the ledger of acknowledged outcomes.
 */
@Tag("unit")
class BankTerminalTest {
    private static final long OPENED = 5_001;
    private static final WorkloadSettings SETTINGS =
            new WorkloadSettings(1, Duration.ofSeconds(1), 7, 4, 4_000, 10, 20);

    @Test
    void theMixCoversEveryRollOnce() {
        assertEquals(
                100,
                Arrays.stream(BankProcedure.values())
                        .mapToInt(BankProcedure::percent)
                        .sum());
        assertEquals(BankProcedure.OPEN_ACCOUNT, BankProcedure.forRoll(0));
        assertEquals(BankProcedure.BRANCH_AUDIT, BankProcedure.forRoll(99));
    }

    @Test
    void outcomesAreClassifiedAndAcknowledgedOnesRecorded() {
        RunRecord record = run(500, call -> switch (call.procedure()) {
            case "open_account" -> CallOutcome.committed(1, 1, Long.toString(OPENED));
            case "deposit" ->
                call.arguments().get(0).equals(OPENED)
                        ? CallOutcome.userAborted(1, 1, BankSchema.NO_SUCH_ACCOUNT_SQLSTATE, "no account 5001")
                        : CallOutcome.committed(1, 1, "100.00");
            case "withdraw" -> CallOutcome.userAborted(1, 1, BankSchema.INSUFFICIENT_FUNDS_SQLSTATE, "insufficient");
            case "transfer" -> CallOutcome.committed(1, 1, "77");
            case "account_statement" -> CallOutcome.committed(1, 1, "(100.00,90.00,3)");
            default -> CallOutcome.committed(1, 1, "(10,500.00,500.00)");
        });

        long opened = record.committed(BankProcedure.OPEN_ACCOUNT);
        assertTrue(opened > 0 && record.committed(BankProcedure.ACCOUNT_STATEMENT) > 0, "the mix reached every call");
        assertEquals(0, record.errors(), record::firstError);
        assertTrue(record.readYourWritesMisses() >= opened, "each open is followed by a deposit into the new account");
        assertEquals(record.userAborts(BankProcedure.WITHDRAW), record.userAborts());
        assertEquals(record.committed(BankProcedure.ACCOUNT_STATEMENT), record.tornReads(), "statements are torn");
        assertTrue(record.firstTornRead().startsWith("account_statement("), record::firstTornRead);
        assertEquals(opened, record.accounts().size());
        assertEquals(
                record.committed(BankProcedure.TRANSFER), record.transfers().size());
        assertTrue(record.transfers().stream().allMatch(t -> t.id() == 77 && t.from() != t.to()));
        assertEquals(BigDecimal.ZERO, record.withdrawn(), "no withdrawal committed");
        BigDecimal openings =
                record.accounts().stream().map(Acknowledged.Account::initial).reduce(BigDecimal.ZERO, BigDecimal::add);
        assertTrue(record.deposited().compareTo(openings) > 0, "deposits and openings are money in");
    }

    @Test
    void aMissingLoadedAccountOrARejectionIsAnError() {
        RunRecord record = run(
                200,
                call -> call.procedure().equals("branch_audit")
                        ? CallOutcome.rejected(1, 1, "overloaded")
                        : CallOutcome.userAborted(1, 1, BankSchema.NO_SUCH_ACCOUNT_SQLSTATE, "no account"));

        assertEquals(200, record.errors() + record.readYourWritesMisses());
        assertEquals(0, record.readYourWritesMisses(), "no account was opened here");
        assertTrue(record.firstError().contains("BK002") || record.firstError().contains("rejected"));
    }

    /** Runs one terminal for {@code calls} calls against {@code cluster}. */
    private static RunRecord run(int calls, java.util.function.Function<ProcedureCall, CallOutcome> cluster) {
        AtomicInteger left = new AtomicInteger(calls);
        BooleanSupplier running = () -> left.getAndDecrement() > 0;
        BankTerminal terminal = new BankTerminal(1, SETTINGS, cluster::apply, running);
        terminal.run();
        return terminal.record();
    }
}
