package org.gargamel.classifier;

import static org.gargamel.tpcc.testing.TpccCalls.delivery;
import static org.gargamel.tpcc.testing.TpccCalls.newOrder;
import static org.gargamel.tpcc.testing.TpccCalls.orderStatus;
import static org.gargamel.tpcc.testing.TpccCalls.paymentById;
import static org.gargamel.tpcc.testing.TpccCalls.paymentByName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thesis's TPC-C rules ({@code tpcc-rules-table61.yaml}, {@code --tpcc-rules table61}) against its Table 6.1, case
 * by case (PSI unless said otherwise). The kit's default rules declare increments: {@link CommutativeTpccRulesTest}.
 */
@Tag("unit")
class Table61Test {
    private final ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.TABLE61_RESOURCE);

    @Test
    void theThesisRulesDeclareNoIncrement() {
        assertEquals(java.util.Map.of(), rules.incrementColumns());
    }

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
    void newOrderAgainstNewOrder() {
        // (w1 = w2 and d1 = d2): the district's d_next_o_id.
        assertConflict(true, newOrder(1, 3, List.of(1), List.of(10)), newOrder(1, 3, List.of(1), List.of(20)));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), newOrder(1, 4, List.of(1), List.of(20)));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), newOrder(2, 3, List.of(2), List.of(10)));
        // A shared stock row through different districts, and through a remote supply warehouse.
        assertConflict(true, newOrder(1, 3, List.of(1, 1), List.of(10, 11)), newOrder(1, 4, List.of(1), List.of(11)));
        assertConflict(true, newOrder(1, 3, List.of(2), List.of(10)), newOrder(2, 5, List.of(2), List.of(10)));
        // The same item from different supply warehouses is a different stock row.
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), newOrder(2, 3, List.of(2), List.of(10)));
    }

    @Test
    void paymentAgainstPayment() {
        // w1 = w2: warehouse w_ytd.
        assertConflict(true, paymentById(1, 1, 1, 1, 5), paymentById(1, 2, 2, 2, 6));
        // The same customer paid through different warehouses.
        assertConflict(true, paymentById(1, 1, 3, 2, 5), paymentById(2, 1, 3, 2, 5));
        assertConflict(false, paymentById(1, 1, 3, 2, 5), paymentById(2, 1, 3, 2, 6));
        // By name: conservatively every customer of that district, and no other district.
        assertConflict(true, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentById(2, 1, 3, 2, 6));
        assertConflict(true, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentByName(2, 1, 3, 2, "OUGHTOUGHTOUGHT"));
        assertConflict(false, paymentByName(1, 1, 3, 2, "BARBARABLE"), paymentById(2, 1, 3, 1, 6));
    }

    @Test
    void deliveryAgainstDeliveryAndPayment() {
        assertConflict(true, delivery(1), delivery(1));
        assertConflict(false, delivery(1), delivery(2));
        // D x P: w1 = cw2, through customer c_balance.
        assertConflict(true, delivery(1), paymentById(2, 1, 1, 7, 9));
        assertConflict(true, delivery(1), paymentByName(2, 1, 1, 7, "BARBARABLE"));
        assertConflict(false, delivery(1), paymentById(1, 1, 2, 7, 9));
    }

    @Test
    void newOrderAgainstPaymentAndDelivery() {
        // Same district row, different columns (d_next_o_id vs d_ytd): no conflict in PSI.
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), paymentById(1, 3, 1, 3, 42));
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), delivery(1));
        // SI is row-granular: the shared district row conflicts.
        assertConflict(true, newOrder(1, 3, List.of(1), List.of(10)), paymentById(1, 3, 1, 3, 42), Isolation.SI);
        assertConflict(false, newOrder(1, 3, List.of(1), List.of(10)), paymentById(1, 4, 1, 3, 42), Isolation.SI);
    }

    @Test
    void readOnlyCallsConflictWithNothing() {
        assertTrue(rules.writeKeys(orderStatus(1, 1, 1), Isolation.PSI).isEmpty());
        assertConflict(false, orderStatus(1, 1, 1), paymentById(1, 1, 1, 1, 1));
        assertConflict(false, ProcedureCall.of("stock_level", 1, 1, 15), newOrder(1, 1, List.of(1), List.of(1)));
    }
}
