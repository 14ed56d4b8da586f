package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.node.NodeServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 14, "a bad argument wedges a chain": a call whose array argument holds only NULLs, through the real scheduler
 * and three nodes on embedded PostgreSQL, on a small application that is not TPC-C. When the array builds keys
 * ({@code ids[]}, {@code names[]}: an integer and a hashed text key), the classifier cannot tell which rows the call
 * writes: in Gargamel mode the call is REJECTED, naming the parameter; in the modes that do not classify it reaches
 * the procedure, which judges it. An array that builds no key always reaches the procedure. Either way the call gets
 * exactly one outcome, no node fails, and the later calls on the same rows commit.
 */
@Tag("integration")
class NullArrayArgumentTest {
    private static final long TIMEOUT_SECONDS = 60;
    private static AccountsReplicas accounts;

    @BeforeAll
    static void startReplicas() {
        accounts = new AccountsReplicas();
    }

    @AfterAll
    static void stopReplicas() {
        if (accounts != null) {
            accounts.close();
        }
    }

    @BeforeEach
    void freshDatabases() throws Exception {
        accounts.reset();
    }

    /** A call and the outcome it must get: a status, and the SQLSTATE or words of the message that must be there. */
    private record Expected(ProcedureCall call, CallOutcome.Status status, String sqlState, List<String> words) {}

    private static BigDecimal amount(String text) {
        return new BigDecimal(text);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"gargamel, psi", "gargamel, si", "round-robin, psi", "centralized, psi"})
    void aCallWhoseArrayHoldsOnlyNullsGetsOneOutcomeAndLaterCallsOnItsRowsCommit(
            String mode, String isolation, @TempDir Path directory) throws Exception {
        boolean classified = mode.equals("gargamel");
        ProcedureCall nullIds =
                ProcedureCall.of("deposit_each", Arrays.asList(null, null), List.of(amount("1.00"), amount("1.00")));
        ProcedureCall nullNames = ProcedureCall.of("use_labels", Arrays.asList(null, null));
        List<Expected> calls = List.of(
                committed(ProcedureCall.of("deposit_each", List.of(3, 4), List.of(amount("1.00"), amount("1.00")))),
                classified
                        ? new Expected(
                                nullIds, CallOutcome.Status.REJECTED, null, List.of("deposit_each", "ids", "NULL"))
                        : new Expected(nullIds, CallOutcome.Status.USER_ABORTED, "22023", List.of("NULL")),
                classified
                        ? new Expected(
                                nullNames, CallOutcome.Status.REJECTED, null, List.of("use_labels", "names", "NULL"))
                        : committed(nullNames),
                new Expected(
                        ProcedureCall.of("deposit_each", List.of(3, 4), Arrays.asList(null, null)),
                        CallOutcome.Status.USER_ABORTED,
                        "22023",
                        List.of("NULL")),
                committed(ProcedureCall.of("deposit", 3, amount("1.00"))),
                committed(ProcedureCall.of("deposit_each", List.of(3), List.of(amount("1.00")))),
                committed(ProcedureCall.of("use_labels", List.of("red", "blue"))),
                committed(ProcedureCall.of("audit", 3)));
        try (InProcessGargamel gargamel = new InProcessGargamel(
                mode, isolation, accounts.servers.jdbcUrls(), 2, AccountsReplicas.rules(directory, true))) {
            List<CompletableFuture<CallOutcome>> outcomes = new ArrayList<>();
            for (Expected expected : calls) {
                outcomes.add(gargamel.client.submit(expected.call()));
            }
            for (int i = 0; i < calls.size(); i++) {
                Expected expected = calls.get(i);
                CallOutcome outcome = outcomes.get(i).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                String what = expected.call() + ": " + outcome;
                assertEquals(expected.status(), outcome.status(), what);
                if (expected.sqlState() != null) {
                    assertEquals(expected.sqlState(), outcome.sqlState(), what);
                }
                for (String word : expected.words()) {
                    assertTrue(outcome.message() != null && outcome.message().contains(word), what);
                }
            }
            gargamel.client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            assertEquals(classified ? 2 : 0, gargamel.scheduler.rejectedCount(), "calls the scheduler rejected");
            for (NodeServer node : gargamel.nodes) {
                assertFalse(
                        node.failure().isDone(),
                        node.name() + " stopped: " + node.failure().getNow(null));
                assertEquals(
                        0, node.statistics().failedCalls(), node.name() + ": every failure was the procedure's own");
            }
        }
        for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
            assertEquals("103.00", accounts.balance(replica, 3), "replica " + replica);
            assertEquals("101.00", accounts.balance(replica, 4), "replica " + replica);
            assertEquals("1", accounts.query(replica, "SELECT uses FROM label WHERE name = 'red'"));
        }
        accounts.assertConverged();
    }

    private static Expected committed(ProcedureCall call) {
        return new Expected(call, CallOutcome.Status.COMMITTED, null, List.of());
    }
}
