package org.gargamel.tpcc.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.tpcc.loader.LoadedTpccServers;
import org.gargamel.tpcc.loader.TableChecksums;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The five procedures against the profiles of clauses 2.4 to 2.8, called as a client sends them
 * ({@link ProcedureCall#toSql()}), on the scratch server of {@link LoadedTpccServers}. Each test reads
 * the state it expects to change first, so the tests do not depend on one another; the last one checks
 * the consistency conditions of clause 3.3.2 after all of them.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TpccProceduresTest {
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 3, 4, 10, 11, 12);

    private static LoadedTpccServers servers;

    @BeforeAll
    static void load() throws SQLException {
        servers = LoadedTpccServers.get();
    }

    private static Connection connect() throws SQLException {
        return servers.connect(LoadedTpccServers.SCRATCH);
    }

    @Test
    void newOrderCommitsItsLinesInCallOrderAndAdvancesTheDistrict() throws SQLException {
        try (Connection connection = connect()) {
            int lowItem = integer(
                    connection, "SELECT min(s_i_id) FROM stock WHERE s_w_id = 1 AND s_i_id > 1000 AND s_quantity < 20");
            // Out of (supply, item) order on purpose, with item 7 twice: numbering follows the call.
            List<Integer> items = List.of(lowItem, 500, 7, 300, 7);
            List<Integer> quantities = List.of(10, 2, 3, 4, 5);
            int nextOrder = integer(connection, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1");
            Map<Integer, int[]> stockBefore = new HashMap<>();
            Map<Integer, BigDecimal> prices = new HashMap<>();
            for (int item : items) {
                stockBefore.put(item, stock(connection, 1, item));
                prices.put(item, decimal(connection, "SELECT i_price FROM item WHERE i_id = " + item));
            }
            BigDecimal discount =
                    decimal(connection, "SELECT c_discount FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1");
            BigDecimal warehouseTax = decimal(connection, "SELECT w_tax FROM warehouse WHERE w_id = 1");
            BigDecimal districtTax = decimal(connection, "SELECT d_tax FROM district WHERE d_w_id = 1 AND d_id = 1");

            Map<String, Object> result = single(call(
                    connection,
                    ProcedureCall.of("new_order", 1, 1, 1, items, List.of(1, 1, 1, 1, 1), quantities, NOW)));

            assertEquals(nextOrder, result.get("order_id"));
            assertEquals(
                    nextOrder + 1,
                    integer(connection, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1"));
            List<Map<String, Object>> order =
                    rows(connection, "SELECT * FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = " + nextOrder);
            assertEquals(1, order.size());
            assertEquals(1, order.get(0).get("o_c_id"));
            assertEquals(5, order.get(0).get("o_ol_cnt"));
            assertEquals(1, order.get(0).get("o_all_local"));
            assertNull(order.get(0).get("o_carrier_id"));
            assertEquals(Timestamp.valueOf(NOW), order.get(0).get("o_entry_d"));
            assertEquals(
                    1,
                    integer(
                            connection,
                            "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = "
                                    + nextOrder));

            List<Map<String, Object>> lines = rows(
                    connection,
                    "SELECT ol.*, s.s_dist_01 FROM order_line ol "
                            + "JOIN stock s ON s.s_w_id = ol.ol_supply_w_id AND s.s_i_id = ol.ol_i_id "
                            + "WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = " + nextOrder + " ORDER BY ol_number");
            assertEquals(5, lines.size());
            BigDecimal linesTotal = BigDecimal.ZERO;
            for (int i = 0; i < 5; i++) {
                Map<String, Object> line = lines.get(i);
                assertEquals(i + 1, line.get("ol_number"));
                assertEquals(items.get(i), line.get("ol_i_id"), "item of line " + (i + 1));
                assertEquals(quantities.get(i), line.get("ol_quantity"));
                assertEquals(1, line.get("ol_supply_w_id"));
                assertNull(line.get("ol_delivery_d"));
                BigDecimal amount = prices.get(items.get(i)).multiply(BigDecimal.valueOf(quantities.get(i)));
                assertEquals(0, amount.compareTo((BigDecimal) line.get("ol_amount")), "amount of line " + (i + 1));
                assertEquals(line.get("s_dist_01"), line.get("ol_dist_info"), "ol_dist_info is s_dist of district 1");
                linesTotal = linesTotal.add(amount);
            }
            BigDecimal expectedTotal = linesTotal
                    .multiply(BigDecimal.ONE.subtract(discount))
                    .multiply(BigDecimal.ONE.add(warehouseTax).add(districtTax))
                    .setScale(2, RoundingMode.HALF_UP);
            assertEquals(
                    0,
                    expectedTotal.compareTo((BigDecimal) result.get("total_amount")),
                    "total " + result.get("total_amount") + ", expected " + expectedTotal);

            // Stock: the +91 rule, s_ytd, s_order_cnt; item 7 twice, in line order.
            int[] low = stockBefore.get(lowItem);
            assertTrue(low[0] < 20);
            assertEquals(
                    List.of(low[0] - 10 + 91, low[1] + 10, low[2] + 1, low[3]), asList(stock(connection, 1, lowItem)));
            int[] seven = stockBefore.get(7);
            int afterFirst = refill(seven[0], 3);
            assertEquals(
                    List.of(refill(afterFirst, 5), seven[1] + 8, seven[2] + 2, seven[3]),
                    asList(stock(connection, 1, 7)));
            int[] item500 = stockBefore.get(500);
            assertEquals(
                    List.of(refill(item500[0], 2), item500[1] + 2, item500[2] + 1, item500[3]),
                    asList(stock(connection, 1, 500)));
        }
    }

    @Test
    void newOrderWithAnUnusedItemRaisesItsSqlStateAndChangesNothing() throws SQLException {
        try (Connection connection = connect()) {
            Map<String, String> before = TableChecksums.of(connection);
            SQLException e = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of(
                                    "new_order",
                                    1,
                                    2,
                                    3,
                                    List.of(1, 2, 100001),
                                    List.of(1, 1, 1),
                                    List.of(1, 1, 1),
                                    NOW)));
            assertEquals(TpccSchema.INVALID_ITEM_SQLSTATE, e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("Item number is not valid"), e.getMessage());
            assertTrue(e.getMessage().contains("item 100001 on line 3"), e.getMessage());
            assertEquals(before, TableChecksums.of(connection));
        }
    }

    @Test
    void newOrderRejectsMalformedArgumentsAndMissingRows() throws SQLException {
        try (Connection connection = connect()) {
            int nextOrder = integer(connection, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 2");
            SQLException lengths = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("new_order", 1, 2, 3, List.of(1, 2), List.of(1), List.of(1, 1), NOW)));
            assertEquals(TpccSchema.INVALID_ARGUMENT_SQLSTATE, lengths.getSQLState(), lengths.getMessage());
            SQLException quantity = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("new_order", 1, 2, 3, List.of(1), List.of(1), List.of(0), NOW)));
            assertEquals(TpccSchema.INVALID_ARGUMENT_SQLSTATE, quantity.getSQLState(), quantity.getMessage());
            SQLException supply = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("new_order", 1, 2, 3, List.of(1, 2), List.of(1, 2), List.of(1, 1), NOW)));
            assertEquals(TpccSchema.MISSING_ROW_SQLSTATE, supply.getSQLState(), supply.getMessage());
            assertTrue(
                    supply.getMessage().contains("stock (w_id 2, i_id 2) of line 2 does not exist"),
                    supply.getMessage());
            SQLException customer = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("new_order", 1, 2, 3001, List.of(1), List.of(1), List.of(1), NOW)));
            assertEquals(TpccSchema.MISSING_ROW_SQLSTATE, customer.getSQLState(), customer.getMessage());
            assertEquals(
                    nextOrder, integer(connection, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 2"));
        }
    }

    @Test
    void newOrdersOfTwoDistrictsWithItemsInOppositeOrderDoNotDeadlock() throws Exception {
        List<Integer> ascending = List.of(11, 12, 13, 14, 15, 16, 17, 18, 19, 20);
        List<Integer> descending = new ArrayList<>(ascending);
        java.util.Collections.reverse(descending);
        List<Integer> ones = java.util.Collections.nCopies(ascending.size(), 1);
        int rounds = 25;
        CyclicBarrier barrier = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int district : new int[] {9, 10}) {
                List<Integer> items = district == 9 ? ascending : descending;
                results.add(pool.submit(() -> {
                    try (Connection connection = connect()) {
                        for (int round = 0; round < rounds; round++) {
                            barrier.await(30, TimeUnit.SECONDS);
                            call(
                                    connection,
                                    ProcedureCall.of("new_order", 1, district, 1 + round, items, ones, ones, NOW));
                        }
                    } catch (SQLException e) {
                        barrier.reset(); // release the other thread at once
                        throw e;
                    }
                    return rounds;
                }));
            }
            List<String> failures = new ArrayList<>();
            for (Future<Integer> result : results) {
                try {
                    result.get(120, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof SQLException sql) {
                        failures.add("SQLSTATE " + sql.getSQLState() + ": " + sql.getMessage());
                    }
                }
            }
            assertEquals(List.of(), failures, "every New-Order commits, none is chosen as a deadlock victim");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void paymentByIdMovesTheAmountThroughWarehouseDistrictCustomerAndHistory() throws SQLException {
        try (Connection connection = connect()) {
            int customer = integer(
                    connection, "SELECT min(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_credit = 'GC'");
            BigDecimal amount = new BigDecimal("123.45");
            BigDecimal warehouseYtd = decimal(connection, "SELECT w_ytd FROM warehouse WHERE w_id = 1");
            BigDecimal districtYtd = decimal(connection, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 3");
            Map<String, Object> before = customer(connection, 3, customer);
            long history = count(connection, "SELECT count(*) FROM history");

            Map<String, Object> result =
                    single(call(connection, ProcedureCall.of("payment", 1, 3, 1, 3, customer, null, amount, NOW)));

            BigDecimal expectedBalance = ((BigDecimal) before.get("c_balance")).subtract(amount);
            assertEquals(customer, result.get("customer_id"));
            assertEquals(0, expectedBalance.compareTo((BigDecimal) result.get("customer_balance")));
            assertEquals(
                    0,
                    warehouseYtd
                            .add(amount)
                            .compareTo(decimal(connection, "SELECT w_ytd FROM warehouse WHERE w_id = 1")));
            assertEquals(
                    0,
                    districtYtd
                            .add(amount)
                            .compareTo(
                                    decimal(connection, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 3")));
            Map<String, Object> after = customer(connection, 3, customer);
            assertEquals(0, expectedBalance.compareTo((BigDecimal) after.get("c_balance")));
            assertEquals(
                    0, ((BigDecimal) before.get("c_ytd_payment")).add(amount).compareTo((BigDecimal)
                                    after.get("c_ytd_payment")));
            assertEquals((Integer) before.get("c_payment_cnt") + 1, after.get("c_payment_cnt"));
            assertEquals(before.get("c_data"), after.get("c_data"), "a GC customer's c_data is left alone");
            assertEquals(history + 1, count(connection, "SELECT count(*) FROM history"));
            Map<String, Object> row = single(rows(
                    connection,
                    "SELECT h.*, w.w_name, d.d_name FROM history h "
                            + "JOIN warehouse w ON w.w_id = h.h_w_id JOIN district d ON d.d_w_id = h.h_w_id AND d.d_id = h.h_d_id "
                            + "WHERE h_date = '" + Timestamp.valueOf(NOW) + "' AND h_c_id = " + customer
                            + " AND h_c_d_id = 3"));
            assertEquals(0, amount.compareTo((BigDecimal) row.get("h_amount")));
            assertEquals(row.get("w_name") + "    " + row.get("d_name"), row.get("h_data"));
        }
    }

    @Test
    void paymentOfABadCreditCustomerOfAnotherDistrictPrependsToCData() throws SQLException {
        try (Connection connection = connect()) {
            int customer = integer(
                    connection, "SELECT min(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_credit = 'BC'");
            String data = (String) customer(connection, 5, customer).get("c_data");

            call(connection, ProcedureCall.of("payment", 1, 4, 1, 5, customer, null, new BigDecimal("50"), NOW));

            String expected = (customer + " 5 1 4 1 50.00 | " + data);
            expected = expected.substring(0, Math.min(500, expected.length()));
            assertEquals(expected, customer(connection, 5, customer).get("c_data"));
            Map<String, Object> row = single(rows(
                    connection,
                    "SELECT * FROM history WHERE h_date = '" + Timestamp.valueOf(NOW) + "' AND h_c_id = " + customer
                            + " AND h_c_d_id = 5"));
            assertEquals(4, row.get("h_d_id"), "the paying district");
            assertEquals(5, row.get("h_c_d_id"), "the customer's district");
        }
    }

    @Test
    void paymentByLastNamePicksThePositionCeilOfHalfOrderedByFirstName() throws SQLException {
        try (Connection connection = connect()) {
            String lastName = string(
                    connection,
                    "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 6 "
                            + "GROUP BY c_last HAVING count(*) = 4 ORDER BY c_last LIMIT 1");
            List<Integer> byFirstName = integers(
                    connection,
                    "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 6 " + "AND c_last = '" + lastName
                            + "' ORDER BY c_first COLLATE \"C\", c_id");
            assertEquals(4, byFirstName.size());
            int expected = byFirstName.get(1); // ceil(4 / 2) = 2, the second

            Map<String, Object> result = single(call(
                    connection, ProcedureCall.of("payment", 1, 6, 1, 6, null, lastName, new BigDecimal("10.00"), NOW)));
            assertEquals(expected, result.get("customer_id"));

            SQLException both = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("payment", 1, 6, 1, 6, 1, lastName, new BigDecimal("10.00"), NOW)));
            assertEquals(TpccSchema.INVALID_ARGUMENT_SQLSTATE, both.getSQLState(), both.getMessage());
            SQLException neither = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("payment", 1, 6, 1, 6, null, null, new BigDecimal("10.00"), NOW)));
            assertEquals(TpccSchema.INVALID_ARGUMENT_SQLSTATE, neither.getSQLState(), neither.getMessage());
            SQLException unknown = assertThrows(
                    SQLException.class,
                    () -> call(
                            connection,
                            ProcedureCall.of("payment", 1, 6, 1, 6, null, "NOBODY", new BigDecimal("10.00"), NOW)));
            assertEquals(TpccSchema.MISSING_ROW_SQLSTATE, unknown.getSQLState(), unknown.getMessage());
        }
    }

    @Test
    void deliveryDeliversTheOldestNewOrderOfEveryDistrict() throws SQLException {
        try (Connection connection = connect()) {
            List<Integer> oldest = integers(
                    connection,
                    "SELECT min(no_o_id) FROM new_order WHERE no_w_id = 1 GROUP BY no_d_id ORDER BY no_d_id");
            assertEquals(10, oldest.size());
            int order = oldest.get(7);
            int customer = integer(
                    connection, "SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 8 AND o_id = " + order);
            BigDecimal lines = decimal(
                    connection,
                    "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 8 AND ol_o_id = " + order);
            Map<String, Object> before = customer(connection, 8, customer);

            Map<String, Object> result = single(call(connection, ProcedureCall.of("delivery", 1, 7, NOW)));

            assertEquals(10, result.get("delivered_orders"));
            for (int district = 1; district <= 10; district++) {
                int delivered = oldest.get(district - 1);
                String key = " WHERE o_w_id = 1 AND o_d_id = " + district + " AND o_id = " + delivered;
                assertEquals(
                        0,
                        count(
                                connection,
                                "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = " + district
                                        + " AND no_o_id = " + delivered));
                assertEquals(7, integer(connection, "SELECT o_carrier_id FROM orders" + key));
                assertEquals(
                        0,
                        count(
                                connection,
                                "SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = " + district
                                        + " AND ol_o_id = " + delivered + " AND ol_delivery_d IS DISTINCT FROM '"
                                        + Timestamp.valueOf(NOW) + "'"));
            }
            Map<String, Object> after = customer(connection, 8, customer);
            assertEquals(0, ((BigDecimal) before.get("c_balance")).add(lines).compareTo((BigDecimal)
                            after.get("c_balance")));
            assertEquals((Integer) before.get("c_delivery_cnt") + 1, after.get("c_delivery_cnt"));
        }
    }

    @Test
    void deliverySkipsADistrictWithoutNewOrders() throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 10");
                Map<String, Object> result = single(call(connection, ProcedureCall.of("delivery", 1, 3, NOW)));
                assertEquals(9, result.get("delivered_orders"));
            } finally {
                connection.rollback();
            }
        }
    }

    @Test
    void orderStatusReturnsTheCustomersLastOrderAndItsLines() throws SQLException {
        try (Connection connection = connect()) {
            connection.setReadOnly(true); // a read-only procedure runs in a read-only transaction
            int lastOrder =
                    integer(connection, "SELECT max(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 9 AND o_c_id = 42");
            int lineCount = integer(
                    connection, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = 9 AND o_id = " + lastOrder);

            List<Map<String, Object>> byId = call(connection, ProcedureCall.of("order_status", 1, 9, 42, null));

            assertEquals(lineCount, byId.size());
            for (int i = 0; i < byId.size(); i++) {
                assertEquals(42, byId.get(i).get("customer_id"));
                assertEquals(lastOrder, byId.get(i).get("order_id"));
                assertEquals(i + 1, byId.get(i).get("line_number"));
            }
            assertEquals(0, ((BigDecimal) customer(connection, 9, 42).get("c_balance")).compareTo((BigDecimal)
                            byId.get(0).get("customer_balance")));

            String lastName = string(
                    connection,
                    "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 9 "
                            + "GROUP BY c_last HAVING count(*) = 3 ORDER BY c_last LIMIT 1");
            List<Integer> byFirstName = integers(
                    connection,
                    "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 9 " + "AND c_last = '" + lastName
                            + "' ORDER BY c_first COLLATE \"C\", c_id");
            List<Map<String, Object>> byName = call(connection, ProcedureCall.of("order_status", 1, 9, null, lastName));
            assertEquals(byFirstName.get(1), byName.get(0).get("customer_id"), "ceil(3 / 2) = 2, the second");
            assertEquals(lastName, byName.get(0).get("customer_last"));
        }
    }

    @Test
    void stockLevelCountsDistinctLowItemsOfTheLast20Orders() throws SQLException {
        try (Connection connection = connect()) {
            connection.setReadOnly(true);
            String last20 = "FROM order_line ol JOIN district d ON d.d_w_id = ol.ol_w_id AND d.d_id = ol.ol_d_id "
                    + "WHERE ol.ol_w_id = 1 AND ol.ol_d_id = 4 AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id";
            long distinctItems = count(connection, "SELECT count(DISTINCT ol.ol_i_id) " + last20);
            long below15 = count(
                    connection,
                    "SELECT count(*) FROM stock s WHERE s.s_w_id = 1 AND s.s_quantity < 15 "
                            + "AND s.s_i_id IN (SELECT ol.ol_i_id " + last20 + ")");
            assertTrue(distinctItems > 20, "20 orders of 5 to 15 lines, were " + distinctItems + " items");

            assertEquals(
                    (int) distinctItems,
                    single(call(connection, ProcedureCall.of("stock_level", 1, 4, 101)))
                            .get("low_stock"));
            assertEquals(
                    (int) below15,
                    single(call(connection, ProcedureCall.of("stock_level", 1, 4, 15)))
                            .get("low_stock"));
            // The +91 rule keeps every s_quantity at 10 or more.
            assertEquals(
                    0,
                    single(call(connection, ProcedureCall.of("stock_level", 1, 4, 10)))
                            .get("low_stock"));
        }
    }

    @Test
    void proceduresCanBeReinstalled() throws SQLException {
        try (Connection connection = connect()) {
            TpccSchema.installProcedures(connection);
            TpccSchema.installProcedures(connection);
            assertTrue(
                    TpccSchema.inspect(connection).isLoaded(),
                    TpccSchema.inspect(connection).toString());
        }
    }

    /** Clause 3.3.2 conditions 1 to 10 and 12 after every transaction above (11 fails once a Delivery ran). */
    @Test
    @Order(Integer.MAX_VALUE)
    void consistencyConditionsHoldAfterTheTransactions() throws SQLException {
        try (Connection connection = connect()) {
            assertNotEquals(
                    servers.checksumsAfterLoad(LoadedTpccServers.SCRATCH),
                    TableChecksums.of(connection),
                    "the tests above changed the scratch database");
            Map<String, String> conditions = new LinkedHashMap<>();
            conditions.put(
                    "1",
                    "SELECT count(*) FROM warehouse w WHERE w.w_ytd <> (SELECT sum(d_ytd) FROM district WHERE d_w_id = w.w_id)");
            conditions.put("2", """
                    SELECT count(*) FROM district d WHERE d.d_next_o_id - 1 <> (SELECT max(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id)
                       OR d.d_next_o_id - 1 <> (SELECT max(no_o_id) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id)""");
            conditions.put(
                    "3",
                    "SELECT count(*) FROM (SELECT 1 FROM new_order GROUP BY no_w_id, no_d_id "
                            + "HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)) x");
            conditions.put("4", """
                    SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS lines FROM orders GROUP BY o_w_id, o_d_id) o
                    JOIN (SELECT ol_w_id, ol_d_id, count(*) AS lines FROM order_line GROUP BY ol_w_id, ol_d_id) l
                      ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id WHERE o.lines <> l.lines""");
            conditions.put("5", """
                    SELECT count(*) FROM orders o LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
                    WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)""");
            conditions.put("6", """
                    SELECT count(*) FROM orders o WHERE o.o_ol_cnt <> (SELECT count(*) FROM order_line
                    WHERE ol_w_id = o.o_w_id AND ol_d_id = o.o_d_id AND ol_o_id = o.o_id)""");
            conditions.put("7", """
                    SELECT count(*) FROM order_line ol JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = ol.ol_o_id
                    WHERE (ol.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)""");
            conditions.put(
                    "8",
                    "SELECT count(*) FROM warehouse w WHERE w.w_ytd <> (SELECT sum(h_amount) FROM history WHERE h_w_id = w.w_id)");
            conditions.put(
                    "9",
                    "SELECT count(*) FROM district d WHERE d.d_ytd <> (SELECT sum(h_amount) FROM history "
                            + "WHERE h_w_id = d.d_w_id AND h_d_id = d.d_id)");
            String delivered = """
                    (SELECT ol.ol_w_id, ol.ol_d_id, o.o_c_id, sum(ol.ol_amount) AS amount FROM order_line ol
                     JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = ol.ol_o_id
                     WHERE ol.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) dl
                    ON dl.ol_w_id = c.c_w_id AND dl.ol_d_id = c.c_d_id AND dl.o_c_id = c.c_id""";
            conditions.put(
                    "10",
                    "SELECT count(*) FROM customer c LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, "
                            + "sum(h_amount) AS amount FROM history GROUP BY 1, 2, 3) h "
                            + "ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id LEFT JOIN "
                            + delivered
                            + "\nWHERE c.c_balance <> coalesce(dl.amount, 0) - coalesce(h.amount, 0)");
            conditions.put(
                    "12",
                    "SELECT count(*) FROM customer c LEFT JOIN " + delivered
                            + "\nWHERE c.c_balance + c.c_ytd_payment <> coalesce(dl.amount, 0)");
            for (Map.Entry<String, String> condition : conditions.entrySet()) {
                assertEquals(
                        0,
                        count(connection, condition.getValue()),
                        "rows violating consistency condition " + condition.getKey());
            }
        }
    }

    // --- helpers ---

    private static int refill(int quantity, int ordered) {
        return quantity >= ordered + 10 ? quantity - ordered : quantity - ordered + 91;
    }

    private static List<Integer> asList(int[] values) {
        List<Integer> list = new ArrayList<>();
        for (int value : values) {
            list.add(value);
        }
        return list;
    }

    /** s_quantity, s_ytd, s_order_cnt, s_remote_cnt. */
    private static int[] stock(Connection connection, int warehouse, int item) throws SQLException {
        Map<String, Object> row = single(rows(
                connection,
                "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock " + "WHERE s_w_id = " + warehouse
                        + " AND s_i_id = " + item));
        return new int[] {
            (Integer) row.get("s_quantity"),
            (Integer) row.get("s_ytd"),
            (Integer) row.get("s_order_cnt"),
            (Integer) row.get("s_remote_cnt")
        };
    }

    private static Map<String, Object> customer(Connection connection, int district, int customer) throws SQLException {
        return single(rows(
                connection,
                "SELECT * FROM customer WHERE c_w_id = 1 AND c_d_id = " + district + " AND c_id = " + customer));
    }

    private static List<Map<String, Object>> call(Connection connection, ProcedureCall call) throws SQLException {
        return rows(connection, "SELECT * FROM " + call.toSql());
    }

    private static List<Map<String, Object>> rows(Connection connection, String sql) throws SQLException {
        List<Map<String, Object>> result = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            ResultSetMetaData meta = rows.getMetaData();
            while (rows.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i), rows.getObject(i));
                }
                result.add(row);
            }
        }
        return result;
    }

    private static Map<String, Object> single(List<Map<String, Object>> rows) {
        assertEquals(1, rows.size(), "expected exactly one row: " + rows);
        return rows.get(0);
    }

    private static long count(Connection connection, String sql) throws SQLException {
        return ((Number) single(rows(connection, sql)).values().iterator().next()).longValue();
    }

    private static int integer(Connection connection, String sql) throws SQLException {
        return ((Number) single(rows(connection, sql)).values().iterator().next()).intValue();
    }

    private static BigDecimal decimal(Connection connection, String sql) throws SQLException {
        return (BigDecimal) single(rows(connection, sql)).values().iterator().next();
    }

    private static String string(Connection connection, String sql) throws SQLException {
        return (String) single(rows(connection, sql)).values().iterator().next();
    }

    private static List<Integer> integers(Connection connection, String sql) throws SQLException {
        List<Integer> values = new ArrayList<>();
        for (Map<String, Object> row : rows(connection, sql)) {
            values.add(((Number) row.values().iterator().next()).intValue());
        }
        return values;
    }
}
