package org.gargamel.classifier;

import static org.gargamel.tpcc.testing.TpccCalls.delivery;
import static org.gargamel.tpcc.testing.TpccCalls.newOrder;
import static org.gargamel.tpcc.testing.TpccCalls.orderStatus;
import static org.gargamel.tpcc.testing.TpccCalls.paymentById;
import static org.gargamel.tpcc.testing.TpccCalls.paymentByName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The kit's default TPC-C rules, with increments (issue 18), case by case: the conflict table docs/classifier.md shows
 * beside Table 6.1 (PSI), SI unchanged from Table 6.1's rules, and every declared increment checked against the
 * procedures' SQL.
 */
@Tag("unit")
class CommutativeTpccRulesTest {
    private final ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private final ClassifierRules table61 = ClassifierRules.loadResource(TpccRules.class, TpccRules.TABLE61_RESOURCE);

    private void assertConflict(boolean expected, ProcedureCall a, ProcedureCall b, Isolation isolation) {
        Optional<String> forward = rules.conflict(a, b, isolation);
        Optional<String> backward = rules.conflict(b, a, isolation);
        assertEquals(expected, forward.isPresent(), a + " vs " + b + " (" + isolation + "): " + forward);
        assertEquals(forward.isPresent(), backward.isPresent(), "conflict must be symmetric: " + a + " vs " + b);
    }

    private void assertConflict(boolean expected, ProcedureCall a, ProcedureCall b) {
        assertConflict(expected, a, b, Isolation.PSI);
    }

    @Test
    void theIncrementsAreTheColumnsTpccOnlyAddsTo() {
        assertEquals(
                Map.of(
                        "warehouse", Set.of("w_ytd"),
                        "district", Set.of("d_ytd"),
                        "customer", Set.of("c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt"),
                        "stock", Set.of("s_ytd", "s_order_cnt", "s_remote_cnt")),
                rules.incrementColumns());
        assertEquals(Map.of("stock", Set.of("s_ytd", "s_order_cnt", "s_remote_cnt")), rules.increments("new_order"));
        assertEquals(Map.of("customer", Set.of("c_balance", "c_delivery_cnt")), rules.increments("delivery"));
        assertEquals(Map.of(), rules.increments("order_status"));
    }

    /** w_ytd, d_ytd, c_balance and c_delivery_cnt: only increments touch them, so they order nothing. */
    @Test
    void paymentAndDeliveryAreOrderedOnlyByWhatIsNotAnIncrement() {
        List<String> payment = new java.util.ArrayList<>();
        rules.conflictKeys(paymentById(1, 2, 1, 2, 3), Isolation.PSI)
                .forEach(key -> payment.add(rules.slotName(key.slot()) + (key.shared() ? " shared" : "")));
        assertEquals(List.of("customer[c_ytd_payment, c_payment_cnt, c_data]"), payment);
        List<String> delivery = new java.util.ArrayList<>();
        rules.conflictKeys(delivery(1), Isolation.PSI).forEach(key -> delivery.add(rules.slotName(key.slot())));
        assertEquals(
                List.of("new_order[no_o_id, no_d_id, no_w_id]", "orders[o_carrier_id]", "order_line[ol_delivery_d]"),
                delivery);
        // The write keys (what the run-time check covers) keep them: warehouse, district and both customer slots.
        assertEquals(
                4, rules.writeKeys(paymentById(1, 2, 1, 2, 3), Isolation.PSI).size());
    }

    @Test
    void newOrderAgainstNewOrderIsAsInTable61() {
        // d_next_o_id becomes the order's key and s_quantity wraps around: both stay plain writes.
        assertConflict(true, newOrder(1, 3, List.of(1), List.of(10)), newOrder(1, 3, List.of(1), List.of(20)));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), newOrder(1, 4, List.of(1), List.of(20)));
        assertConflict(true, newOrder(1, 3, List.of(1, 1), List.of(10, 11)), newOrder(1, 4, List.of(1), List.of(11)));
        assertConflict(true, newOrder(1, 3, List.of(2), List.of(10)), newOrder(2, 5, List.of(2), List.of(10)));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), newOrder(2, 3, List.of(2), List.of(10)));
    }

    @Test
    void paymentsConflictOnlyThroughTheSameCustomer() {
        // Same warehouse and district, other customers: w_ytd and d_ytd are increments.
        assertConflict(false, paymentById(1, 1, 1, 1, 5), paymentById(1, 1, 2, 2, 6));
        assertConflict(false, paymentById(1, 1, 1, 1, 5), paymentById(1, 2, 1, 1, 6));
        // The same customer: c_data is a plain write.
        assertConflict(true, paymentById(1, 1, 3, 2, 5), paymentById(2, 1, 3, 2, 5));
        assertConflict(false, paymentById(1, 1, 3, 2, 5), paymentById(2, 1, 3, 2, 6));
        // By name: every customer of that district, and no other district.
        assertConflict(true, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentById(2, 1, 3, 2, 6));
        assertConflict(true, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentByName(2, 1, 3, 2, "OUGHTOUGHTOUGHT"));
        assertConflict(false, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentById(1, 1, 3, 1, 6));
    }

    @Test
    void deliveryConflictsWithDeliveryOfItsWarehouseOnlyAndNeverWithPayment() {
        assertConflict(true, delivery(1), delivery(1));
        assertConflict(false, delivery(1), delivery(2));
        // Both only add to c_balance.
        assertConflict(false, delivery(1), paymentById(2, 1, 1, 7, 9));
        assertConflict(false, delivery(1), paymentByName(2, 1, 1, 7, "BARBARABLE"));
        assertConflict(false, delivery(1), paymentById(1, 1, 1, 7, 9));
    }

    @Test
    void newOrderConflictsWithNeitherPaymentNorDelivery() {
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), paymentById(1, 3, 1, 3, 42));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), delivery(1));
        assertConflict(false, orderStatus(1, 1, 1), paymentById(1, 1, 1, 1, 1));
    }

    /** In SI an increment is an ordinary write: the commutative rules classify every pair as Table 6.1's do. */
    @Test
    void siIsTable61sRowGranularity() {
        assertConflict(true, paymentById(1, 1, 1, 1, 5), paymentById(1, 2, 2, 2, 6), Isolation.SI);
        assertConflict(true, delivery(1), paymentById(2, 1, 1, 7, 9), Isolation.SI);
        SplittableRandom random = new SplittableRandom(61);
        int conflicting = 0;
        for (int i = 0; i < 3_000; i++) {
            ProcedureCall a = TpccCalls.random(random, 2);
            ProcedureCall b = TpccCalls.random(random, 2);
            boolean expected = table61.conflict(a, b, Isolation.SI).isPresent();
            assertEquals(expected, rules.conflict(a, b, Isolation.SI).isPresent(), a + " vs " + b);
            conflicting += expected ? 1 : 0;
        }
        assertTrue(conflicting > 300, "too few conflicting pairs to mean much: " + conflicting);
    }

    /** The classifier's slots and modes decide as the cell-by-cell reading of the rules does, in PSI and SI. */
    @Test
    void slotsAndModesAgreeWithTheCellByCellOracle() {
        for (Isolation isolation : Isolation.values()) {
            CellOracle oracle = new CellOracle(rules, isolation);
            SplittableRandom random = new SplittableRandom(18);
            int conflicting = 0;
            for (int i = 0; i < 3_000; i++) {
                ProcedureCall a = TpccCalls.random(random, 2);
                ProcedureCall b = TpccCalls.random(random, 2);
                boolean expected = oracle.conflict(a, b);
                assertEquals(expected, rules.conflict(a, b, isolation).isPresent(), isolation + " " + a + " vs " + b);
                conflicting += expected ? 1 : 0;
            }
            assertTrue(conflicting > 100, isolation + ": too few conflicting pairs to mean much: " + conflicting);
        }
    }

    /**
     * Every column a TPC-C procedure declares {@code add:} is assigned {@code col = alias.col + expr} or {@code - expr}
     * in procedures.sql, where expr does not read the column; and a column some procedure plainly writes is not
     * assigned that way by a procedure that declares it an increment.
     */
    @Test
    void everyDeclaredIncrementIsAnAdditionInTheProceduresSql() throws Exception {
        String sql;
        try (var in = TpccRules.class.getResourceAsStream("/org/gargamel/tpcc/schema/procedures.sql")) {
            sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        int checked = 0;
        for (ProcedureRule procedure : rules.procedures().values()) {
            String body = body(sql, procedure.name());
            for (Map.Entry<String, Set<String>> table :
                    rules.increments(procedure.name()).entrySet()) {
                for (String column : table.getValue()) {
                    // e.g. "w_ytd = w.w_ytd + paid" or "c_balance = c.c_balance - paid", up to the comma or WHERE.
                    Matcher assignment = Pattern.compile(
                                    "\\b" + column + "\\s*=\\s*(\\w+\\.)?" + column
                                            + "\\s*([+-])\\s*(.+?)\\s*(,\\s*$|$|\\bWHERE\\b)",
                                    Pattern.MULTILINE)
                            .matcher(body);
                    assertTrue(
                            assignment.find(),
                            procedure.name() + " does not assign " + column + " = " + column
                                    + " + expr in procedures.sql");
                    String expression = assignment.group(3);
                    assertTrue(
                            !Pattern.compile("\\b" + column + "\\b")
                                    .matcher(expression)
                                    .find(),
                            procedure.name() + ": " + column + " is added " + expression + ", which reads it");
                    assertTrue(
                            !assignment.find(), procedure.name() + " assigns " + column + " twice: check both by hand");
                    checked++;
                }
            }
        }
        assertEquals(10, checked, "w_ytd, d_ytd, 3 of payment's customer, 2 of delivery's, 3 of stock");
    }

    /** The text of {@code CREATE ... FUNCTION name(} up to the next function. */
    private static String body(String sql, String procedure) {
        Matcher start = Pattern.compile("CREATE OR REPLACE FUNCTION " + procedure + "\\(")
                .matcher(sql);
        assertTrue(start.find(), "procedures.sql has no function " + procedure);
        int end = sql.indexOf("CREATE OR REPLACE FUNCTION", start.end());
        return sql.substring(start.start(), end < 0 ? sql.length() : end);
    }
}
