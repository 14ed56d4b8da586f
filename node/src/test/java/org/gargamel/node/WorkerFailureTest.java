package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Calls that reach a node and fail inside it in every way we could think of: NULL array elements, values out of range
 * for their column, a procedure that raises, a deferred constraint, calls the node's own rules refuse before any SQL
 * (an unknown procedure, one the database has and the rules do not name, the wrong number or types of arguments, NULL
 * where the rules forbid it, an update procedure sent as read-only), and an argument the node cannot bind. Every one gets exactly one outcome, the chain it belongs to never stalls (a valid call on the other replica
 * that depends on it commits), the nodes stay up, and the replicas converge. Last, a failure after the point of no
 * return (the backend of a transaction whose write-set was already delivered is killed) stops the node, naming the
 * transaction, instead of carrying on with a replica that may differ.
 */
@Tag("integration")
class WorkerFailureTest {
    private static final long TIMEOUT = 30_000;
    private static BankReplicas cluster;

    @BeforeAll
    static void startServers() {
        cluster = new BankReplicas();
    }

    @AfterAll
    static void stopServers() {
        cluster.close();
    }

    @BeforeEach
    void reset() throws Exception {
        cluster.reset();
    }

    @AfterEach
    void stop() {
        cluster.stopNodes();
    }

    /** A bad call and the status (and SQLSTATE, for user aborts) it must end with. */
    private record Bad(String what, boolean readOnly, ProcedureCall call, CallOutcome.Status status, String sqlState) {}

    private static List<Bad> badCalls() {
        return List.of(
                new Bad(
                        "array of NULLs (bound with its declared type; the procedure rejects it)",
                        false,
                        ProcedureCall.of("order_lines", 2, 1, Arrays.asList(null, null)),
                        CallOutcome.Status.USER_ABORTED,
                        "22023"),
                new Bad(
                        "array with one NULL",
                        false,
                        ProcedureCall.of("order_lines", 2, 1, Arrays.asList(3, null)),
                        CallOutcome.Status.USER_ABORTED,
                        "22023"),
                new Bad(
                        "value out of range for numeric(12,2)",
                        false,
                        ProcedureCall.of("quick_payment", 2, 1, new BigDecimal("99999999999")),
                        CallOutcome.Status.USER_ABORTED,
                        "22003"),
                new Bad(
                        "integer overflow inside the procedure",
                        false,
                        ProcedureCall.of("order_lines", 2, 1, List.of(1, 2)),
                        CallOutcome.Status.USER_ABORTED,
                        "22003"),
                new Bad(
                        "the procedure raises (invalid item)",
                        false,
                        ProcedureCall.of("new_order", 2, 1, "invalid"),
                        CallOutcome.Status.USER_ABORTED,
                        "GA001"),
                new Bad(
                        "NULL where the rules forbid it (refused by the node's rules, no SQL)",
                        false,
                        ProcedureCall.of("payment", 2, 1, null),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "a deferred key violated (checked before the write-set leaves)",
                        false,
                        ProcedureCall.of("audit_twice", 7),
                        CallOutcome.Status.USER_ABORTED,
                        "23505"),
                new Bad(
                        "unknown procedure (refused by the node's rules, no SQL)",
                        false,
                        ProcedureCall.of("no_such_procedure", 1),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "too few arguments (refused by the node's rules, no SQL)",
                        false,
                        ProcedureCall.of("payment", 2, 1),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "text where numeric is expected (refused by the node's rules, no SQL)",
                        false,
                        ProcedureCall.of("payment", 2, 1, "abc"),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "bigint beyond integer's range (refused by the node's rules, no SQL)",
                        false,
                        ProcedureCall.of("new_order", 1L << 40, 1, "x"),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "an array of NULLs the node cannot type (procedure not in the rules): settled, REJECTED",
                        false,
                        ProcedureCall.of("no_such_procedure", Arrays.asList(null, null)),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "a procedure of the database the rules do not name (it would write): refused, no SQL",
                        false,
                        ProcedureCall.of("outside_rules", 9),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "read-only: unknown procedure (refused by the node's rules, no SQL)",
                        true,
                        ProcedureCall.of("no_such_reader", 1),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "read-only: a procedure the rules say writes (refused: it would run uncaptured)",
                        true,
                        ProcedureCall.of("quick_payment", 2, 3, new BigDecimal("1.00")),
                        CallOutcome.Status.REJECTED,
                        null),
                new Bad(
                        "read-only: an array of NULLs the node cannot type",
                        true,
                        ProcedureCall.of("no_such_reader", Arrays.asList(null, null)),
                        CallOutcome.Status.REJECTED,
                        null));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"gargamel, psi", "gargamel, si", "round-robin, si"})
    void everyFailingCallGetsOneOutcomeAndNoChainStalls(String mode, String isolation) throws Exception {
        // district 2/1 overflows on purpose: next_o_id near the top of integer's range
        for (int server = 0; server < 2; server++) {
            try (Connection connection = cluster.servers.connect(server);
                    Statement statement = connection.createStatement()) {
                statement.execute("UPDATE district SET next_o_id = 2147483646 WHERE w_id = 2 AND d_id = 1");
            }
        }
        cluster.startNodes(Mode.parse(mode), Isolation.parse(isolation), null);
        FakeScheduler scheduler = cluster.scheduler;
        List<Bad> bad = badCalls();
        Map<Long, Bad> badByTxn = new LinkedHashMap<>();
        List<Long> good = new ArrayList<>();
        long txn = 0;
        long previousBad = 0;
        for (Bad call : bad) {
            long badTxn = ++txn;
            badByTxn.put(badTxn, call);
            // the bad update calls form one chain on node-1, each with a valid dependent on node-2 (as in the
            // scheduler, nothing depends on a read-only call)
            scheduler.execute(
                    "node-1",
                    0,
                    badTxn,
                    previousBad == 0 ? new long[0] : new long[] {previousBad},
                    call.readOnly(),
                    call.call());
            long goodTxn = ++txn;
            good.add(goodTxn);
            scheduler.execute(
                    "node-2",
                    (int) (goodTxn % 2),
                    goodTxn,
                    call.readOnly() ? new long[0] : new long[] {badTxn},
                    ProcedureCall.of("quick_payment", 2, 2, new BigDecimal("1.00")));
            if (!call.readOnly()) {
                previousBad = badTxn;
            }
        }
        for (Map.Entry<Long, Bad> entry : badByTxn.entrySet()) {
            CallOutcome outcome = scheduler.awaitOutcome(entry.getKey(), TIMEOUT);
            Bad call = entry.getValue();
            assertEquals(call.status(), outcome.status(), call.what() + ": " + outcome);
            if (call.sqlState() != null) {
                assertEquals(call.sqlState(), outcome.sqlState(), call.what() + ": " + outcome);
            }
            assertTrue(outcome.message() != null && !outcome.message().isBlank(), call.what() + " names its reason");
            if (call.status() == CallOutcome.Status.REJECTED && !call.what().contains("cannot type")) {
                assertTrue(outcome.message().contains("ran no SQL"), call.what() + ": " + outcome.message());
            }
        }
        for (long goodTxn : good) {
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(goodTxn, TIMEOUT).status(),
                    "the valid dependent " + goodTxn + " ran: no chain stalled");
        }
        long[] all = LongStream.rangeClosed(1, txn).toArray();
        scheduler.awaitVisibleEverywhere(List.of("node-1"), all, TIMEOUT);
        long[] updates = LongStream.rangeClosed(1, txn)
                .filter(t -> !badByTxn.containsKey(t) || !badByTxn.get(t).readOnly())
                .toArray();
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, updates, TIMEOUT);
        for (long t = 1; t <= txn; t++) {
            assertEquals(1, scheduler.outcomeCount(t), "exactly one outcome for transaction " + t);
        }
        long rejected = badByTxn.values().stream()
                .filter(b -> b.status() == CallOutcome.Status.REJECTED)
                .count();
        assertEquals(rejected, cluster.nodes.get(0).statistics().failedCalls(), "settled failures are counted");
        for (NodeServer node : cluster.nodes) {
            assertFalse(
                    node.failure().isDone(),
                    node.name() + " is still up: " + node.failure().getNow(null));
        }
        for (int server = 0; server < 2; server++) {
            assertEquals("2147483646 0.00", cluster.district(server, 2, 1), "nothing of the bad calls committed");
            assertEquals("1 " + good.size() + ".00", cluster.district(server, 2, 2), "every valid call committed");
            assertEquals("1 0.00", cluster.district(server, 2, 3), "the read-only call that writes changed nothing");
            assertEquals(0, count(server, "SELECT count(*) FROM audit"), "the deferred key's rows were rolled back");
        }
        cluster.assertConverged();
    }

    /**
     * SI: a transaction whose write-set was delivered (every replica applies it) but whose commit fails here (its
     * PostgreSQL backend is killed while it waits for its turn) leaves this replica different from the others: the
     * node stops, naming the transaction, and sends no outcome for it.
     */
    @Test
    void aCommitThatFailsAfterTheWriteSetWasDeliveredStopsTheNode() throws Exception {
        cluster.startNodes(Mode.GARGAMEL, Isolation.SI, null);
        FakeScheduler scheduler = cluster.scheduler;
        try (Connection blocker = cluster.servers.connect(0);
                Statement statement = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            statement.execute("SELECT * FROM district WHERE w_id = 1 AND d_id = 9 FOR UPDATE");
            scheduler.execute("node-2", 0, 1, new long[0], ProcedureCall.of("payment", 1, 9, new BigDecimal("5.00")));
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(1, TIMEOUT).status());
            Await.until(
                    "node-1's applier waiting for the row lock",
                    Duration.ofSeconds(20),
                    () -> count(0, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'") == 1);
            scheduler.execute("node-1", 0, 2, new long[0], ProcedureCall.of("new_order", 1, 8, "doomed"));
            String waiting = "SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction' AND backend_type = "
                    + "'client backend' AND pid <> pg_backend_pid() AND pid <> " + pid(blocker);
            Await.until(
                    "node-1's call executed and waiting for its turn",
                    Duration.ofSeconds(20),
                    () -> count(0, "SELECT count(*) FROM (" + waiting + ") w") == 1);
            assertEquals(1, count(0, "SELECT count(pg_terminate_backend(pid)) FROM (" + waiting + ") w"));
            blocker.rollback();
        }
        Throwable failure = cluster.nodes.get(0).failure().get(TIMEOUT, TimeUnit.MILLISECONDS);
        assertTrue(
                failure.getMessage().contains("transaction 2")
                        && failure.getMessage().contains("new_order"),
                failure.getMessage());
        assertEquals(
                null, scheduler.outcomesByTxn.get(2L), "no outcome is sent for a transaction whose fate is unknown");
    }

    private static int pid(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static int count(int server, String query) {
        try (Connection connection = cluster.servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            rows.next();
            return rows.getInt(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(query + ": " + e.getMessage(), e);
        }
    }
}
