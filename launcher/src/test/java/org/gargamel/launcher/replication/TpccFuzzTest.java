package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.node.NodeServer;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.workload.NewOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fuzzing the TPC-C procedures through the whole middleware (real scheduler and classifier, real nodes, embedded
 * PostgreSQL): calls that pass the classifier (right procedures, arity and types) but fail inside the node in every
 * way we know (NULL array elements, NULL or out-of-range values, unknown warehouse, district, customer or item, both or
 * neither of c_id and c_last; and two the classifier itself refuses), mixed at random with valid calls of the same
 * districts, so they sit in the middle of conflict chains. Every call gets an outcome, the failing ones a clear
 * USER_ABORTED with the procedure's SQLSTATE, no chain stalls (every valid call commits and the cluster quiesces),
 * and afterwards every replica passes the TPC-C consistency conditions and the replicas are identical.
 */
@Tag("integration")
class TpccFuzzTest {
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 23, 12, 0);
    private static PostgresCluster replicas;

    @BeforeAll
    static void loadReplicas() {
        replicas = TpccDatabases.startEmbeddedLoaded(2, 1, 7, System.err);
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    /** A kind the scheduler's classifier refuses before it runs anywhere (a write key it cannot compute). */
    private static final String REJECTED = "rejected by the classifier";

    /**
     * One kind of call: how to make it for a district, and the SQLSTATE it must fail with (null: it commits;
     * {@link #REJECTED}: the scheduler refuses it).
     */
    private record Kind(String name, String sqlState, Function<Integer, ProcedureCall> make) {}

    private static ProcedureCall newOrder(int d, List<Integer> items, List<Integer> supply, List<Integer> quantities) {
        return ProcedureCall.of("new_order", 1, d, 1 + d, items, supply, quantities, NOW);
    }

    private static ProcedureCall payment(int d, Integer customer, String lastName, String amount) {
        return ProcedureCall.of("payment", 1, d, 1, d, customer, lastName, new BigDecimal(amount), NOW);
    }

    private static List<Kind> kinds() {
        List<Integer> items = List.of(11, 22, 33);
        List<Integer> ones = List.of(1, 1, 1);
        return List.of(
                new Kind("valid new_order", null, d -> newOrder(d, items, ones, List.of(5, 5, 5))),
                new Kind("valid payment", null, d -> payment(d, 7, null, "10.00")),
                new Kind("valid delivery", null, d -> ProcedureCall.of("delivery", 1, 1 + d % 10, NOW)),
                new Kind(
                        "new_order with NULL quantities",
                        "22023",
                        d -> newOrder(d, items, ones, Arrays.asList(null, null, null))),
                new Kind(
                        "new_order with one NULL quantity",
                        "22023",
                        d -> newOrder(d, items, ones, Arrays.asList(5, null, 5))),
                new Kind(
                        "new_order with a NULL supply warehouse (part of a write key)",
                        REJECTED,
                        d -> newOrder(d, items, Arrays.asList(1, null, 1), List.of(5, 5, 5))),
                new Kind(
                        "new_order with a negative quantity",
                        "22023",
                        d -> newOrder(d, items, ones, List.of(5, -1, 5))),
                new Kind(
                        "new_order with arrays of different lengths (zipped by the rules)",
                        REJECTED,
                        d -> newOrder(d, items, List.of(1, 1), List.of(5, 5, 5))),
                new Kind("new_order with no lines", "22023", d -> newOrder(d, List.of(), List.of(), List.of())),
                new Kind(
                        "new_order with an unused item (clause 2.4.2.3)",
                        "GA001",
                        d -> newOrder(d, List.of(11, NewOrder.UNUSED_ITEM_ID), List.of(1, 1), List.of(5, 5))),
                new Kind(
                        "new_order of a warehouse that does not exist",
                        "P0002",
                        d -> ProcedureCall.of("new_order", 99, d, 1, items, ones, ones, NOW)),
                new Kind(
                        "new_order of a district that does not exist",
                        "P0002",
                        d -> ProcedureCall.of("new_order", 1, 11, 1, items, ones, ones, NOW)),
                new Kind(
                        "new_order from a stock warehouse that does not exist",
                        "P0002",
                        d -> newOrder(d, items, List.of(1, 42, 1), List.of(5, 5, 5))),
                new Kind(
                        "new_order with an integer overflow in the quantity",
                        "22003",
                        d -> newOrder(d, items, ones, List.of(5, Integer.MAX_VALUE, 5))),
                new Kind("payment of a customer that does not exist", "P0002", d -> payment(d, 99_999, null, "1.00")),
                new Kind("payment by a last name nobody has", "P0002", d -> payment(d, null, "NOBODYHERE", "1.00")),
                new Kind("payment with neither c_id nor c_last", "22023", d -> payment(d, null, null, "1.00")),
                new Kind("payment with both c_id and c_last", "22023", d -> payment(d, 7, "BARBARBAR", "1.00")),
                new Kind("payment of a negative amount", "22023", d -> payment(d, 7, null, "-5.00")),
                new Kind("payment beyond numeric(12,2)", "22003", d -> payment(d, 7, null, "99999999999.00")),
                new Kind(
                        "delivery with a NULL carrier (not nullable in the rules)",
                        REJECTED,
                        d -> ProcedureCall.of("delivery", 1, null, NOW)),
                new Kind(
                        "order_status (read-only) of a customer that does not exist",
                        "P0002",
                        d -> ProcedureCall.of("order_status", 1, d, 99_999, null)),
                new Kind(
                        "stock_level (read-only) of a district that does not exist",
                        "P0002",
                        d -> ProcedureCall.of("stock_level", 1, 11, 15)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"gargamel, psi", "gargamel, si"})
    void failingCallsGetTheirOutcomeAndNoChainStalls(String mode, String isolation) throws Exception {
        Random random = new Random(mode.hashCode() * 31L + isolation.hashCode());
        List<Kind> kinds = kinds();
        List<Kind> sent = new ArrayList<>();
        List<CompletableFuture<CallOutcome>> outcomes = new ArrayList<>();
        try (InProcessGargamel gargamel = new InProcessGargamel(mode, isolation, replicas.jdbcUrls(), 3)) {
            List<Kind> plan = new ArrayList<>();
            for (int round = 0; round < 4; round++) {
                plan.addAll(kinds); // every kind several times, each valid kind more often
                plan.addAll(kinds.subList(0, 3));
                plan.addAll(kinds.subList(0, 3));
            }
            Collections.shuffle(plan, random);
            for (Kind kind : plan) {
                int district = 1 + random.nextInt(3); // three districts: the calls fall into a few long chains
                sent.add(kind);
                outcomes.add(gargamel.client.submit(kind.make().apply(district)));
            }
            for (int i = 0; i < outcomes.size(); i++) {
                Kind kind = sent.get(i);
                CallOutcome outcome = outcomes.get(i).get(60, TimeUnit.SECONDS);
                if (kind.sqlState() == null) {
                    assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), kind.name() + ": " + outcome);
                } else if (kind.sqlState().equals(REJECTED)) {
                    assertEquals(CallOutcome.Status.REJECTED, outcome.status(), kind.name() + ": " + outcome);
                    String procedure = kind.make().apply(1).procedure();
                    assertTrue(outcome.message().contains(procedure), kind.name() + " names the call: " + outcome);
                } else {
                    assertEquals(CallOutcome.Status.USER_ABORTED, outcome.status(), kind.name() + ": " + outcome);
                    assertEquals(kind.sqlState(), outcome.sqlState(), kind.name() + ": " + outcome);
                    assertTrue(
                            outcome.message() != null && outcome.message().length() > 10,
                            kind.name() + " says why: " + outcome);
                }
            }
            gargamel.client.awaitQuiescence(Duration.ofSeconds(60));
            for (NodeServer node : gargamel.nodes) {
                assertFalse(
                        node.failure().isDone(),
                        node.name() + " stopped: " + node.failure().getNow(null));
                assertEquals(
                        0, node.statistics().failedCalls(), node.name() + ": every failure was the procedure's own");
            }
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), mode + "/" + isolation + ":\n" + check.render());
        assertTrue(check.convergence().identical(), check.render());
    }
}
