package org.gargamel.tpcc.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Tag("integration")
class ConsistencyCheckerTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static PostgresCluster cluster;
    private static String serverUrl;

    private final ConsistencyChecker checker = new ConsistencyChecker();

    @BeforeAll
    static void startServer() throws SQLException {
        cluster = PostgresCluster.embedded(1);
        serverUrl = cluster.jdbcUrl(0);
        TpccFixture.installTemplate(serverUrl);
    }

    @AfterAll
    static void stopServer() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String freshCopy() throws SQLException {
        return TpccFixture.copy(serverUrl, "consistency_" + DATABASES.incrementAndGet());
    }

    @Test
    void theFixturePassesEveryCondition() throws SQLException {
        ConsistencyReport report = checker.check(freshCopy(), "fixture");

        assertTrue(report.passed(), () -> "fixture should be consistent: " + report);
        assertEquals(
                List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
                report.conditions().stream().map(ConditionResult::number).toList());
        assertEquals(1, report.condition(1).checked(), "warehouses");
        assertEquals(2, report.condition(2).checked(), "districts");
        assertEquals(2 * 2105, report.condition(5).checked(), "orders");
        assertEquals(6, report.condition(10).checked(), "customers");
        for (ConditionResult condition : report.conditions()) {
            assertTrue(condition.applicable(), () -> "every condition applies to the fixture: " + condition);
            assertEquals(0, condition.violations(), condition::toString);
            assertTrue(condition.examples().isEmpty(), condition::toString);
        }
    }

    @Test
    void conditionElevenAppliesOnlyToDistrictsWithoutDelivery() throws SQLException {
        // District 2 had a Delivery in the fixture (2105 orders - 4 new orders = 2101, which would fail).
        ConditionResult eleven = checker.check(freshCopy(), "fixture").condition(11);

        assertTrue(eleven.passed(), eleven::toString);
        assertTrue(eleven.applicable());
        assertEquals(1, eleven.checked(), "only district 1 still has order 2101 undelivered");
        assertTrue(eleven.note().contains("applied to 1 of 2 districts"), eleven.note());
    }

    @Test
    void conditionElevenIsNotApplicableOnceEveryDistrictHadADelivery() throws SQLException {
        String url = freshCopy();
        TpccFixture.execute(url, deliver(1, 2101));

        ConsistencyReport report = checker.check(url, "delivered");

        assertTrue(report.passed(), report::toString);
        ConditionResult eleven = report.condition(11);
        assertFalse(eleven.applicable(), eleven::toString);
        assertEquals(0, eleven.checked());
        assertTrue(eleven.note().startsWith("not applicable"), eleven.note());
    }

    /** Each case: the condition it targets, the statements that break it, every condition that must fail. */
    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of(
                        1,
                        "UPDATE district SET d_ytd = d_ytd + 5 WHERE (d_w_id, d_id) = (1, 1)",
                        List.of(1, 9),
                        "w_id=1: w_ytd 160.00, sum(d_ytd) 165.00"),
                Arguments.of(
                        2,
                        "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE (d_w_id, d_id) = (1, 2)",
                        List.of(2),
                        "d_w_id=1, d_id=2: d_next_o_id - 1 = 2106, max(o_id) 2105, max(no_o_id) 2105"),
                // Delivering 2102 before 2101 leaves a gap in new_order (and breaks 11, which still applies).
                Arguments.of(
                        3,
                        deliver(1, 2102),
                        List.of(3, 11),
                        "no_w_id=1, no_d_id=1: max(no_o_id) - min(no_o_id) + 1 = 5, new_order rows 4"),
                Arguments.of(
                        4,
                        "DELETE FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id, ol_number) = (1, 1, 5, 1)",
                        List.of(4, 6),
                        "w_id=1, d_id=1: sum(o_ol_cnt) 4211, order_line rows 4210"),
                Arguments.of(
                        5,
                        "UPDATE orders SET o_carrier_id = 3 WHERE (o_w_id, o_d_id, o_id) = (1, 1, 2102)",
                        List.of(5, 7),
                        "o_w_id=1, o_d_id=1, o_id=2102: o_carrier_id 3, new_order row exists"),
                Arguments.of(
                        6,
                        "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE (o_w_id, o_d_id, o_id) = (1, 1, 10);"
                                + "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE (o_w_id, o_d_id, o_id) = (1, 1, 11)",
                        List.of(6),
                        "o_w_id=1, o_d_id=1, o_id=10: o_ol_cnt 3, order_line rows 2"),
                Arguments.of(
                        7,
                        "UPDATE order_line SET ol_delivery_d = NULL"
                                + " WHERE (ol_w_id, ol_d_id, ol_o_id, ol_number) = (1, 2, 7, 1)",
                        List.of(7),
                        "ol_w_id=1, ol_d_id=2, ol_o_id=7, ol_number=1: ol_delivery_d null, o_carrier_id 8"),
                // Booking the payment at a warehouse that does not exist takes it away from warehouse 1 and district 1.
                Arguments.of(
                        8,
                        "UPDATE history SET h_w_id = 2 WHERE h_data = 'payment'",
                        List.of(8, 9),
                        "w_id=1: w_ytd 160.00, sum(h_amount) 60.00"),
                Arguments.of(
                        9,
                        "UPDATE district SET d_ytd = d_ytd + 1 WHERE (d_w_id, d_id) = (1, 1);"
                                + "UPDATE district SET d_ytd = d_ytd - 1 WHERE (d_w_id, d_id) = (1, 2)",
                        List.of(9),
                        "d_w_id=1, d_id=1: d_ytd 131.00, sum(h_amount) 130.00"),
                // The payment credited to the wrong customer: history no longer matches either balance.
                Arguments.of(
                        10,
                        "UPDATE history SET h_c_id = 3 WHERE h_data = 'payment'",
                        List.of(10),
                        "c_w_id=1, c_d_id=1, c_id=2: c_balance -110.00,"
                                + " sum(delivered ol_amount) 0.00 - sum(h_amount) 10.00 = -10.00"),
                // A delivered order without lines changes nothing but the orders count.
                Arguments.of(
                        11,
                        "INSERT INTO orders VALUES (0, 1, 1, 1, '2026-01-01 00:00:00', 1, 0, 1)",
                        List.of(11),
                        "d_w_id=1, d_id=1: count(orders) 2106 - count(new_order) 5 = 2101"),
                Arguments.of(
                        12,
                        "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1"
                                + " WHERE (c_w_id, c_d_id, c_id) = (1, 2, 3)",
                        List.of(12),
                        "c_w_id=1, c_d_id=2, c_id=3: c_balance -10.00 + c_ytd_payment 11.00 = 1.00,"
                                + " sum(delivered ol_amount) 0.00"),
                Arguments.of(
                        10,
                        "UPDATE customer SET c_balance = c_balance + 1 WHERE (c_w_id, c_d_id, c_id) = (1, 2, 1)",
                        List.of(10, 12),
                        "c_w_id=1, c_d_id=2, c_id=1: c_balance -5.25,"
                                + " sum(delivered ol_amount) 3.75 - sum(h_amount) 10.00 = -6.25"));
    }

    @ParameterizedTest(name = "condition {0} broken by: {1}")
    @MethodSource("violations")
    void aBrokenConditionIsReportedWithItsKey(
            int condition, String breakingSql, List<Integer> expectedFailures, String expectedExample)
            throws SQLException {
        String url = freshCopy();
        TpccFixture.execute(url, breakingSql);

        ConsistencyReport report = checker.check(url, "broken");

        assertFalse(report.passed());
        assertEquals(expectedFailures, report.failedConditions(), report::toString);
        ConditionResult result = report.condition(condition);
        assertTrue(result.violations() >= 1, result::toString);
        assertTrue(result.examples().size() <= result.violations(), result::toString);
        assertTrue(
                result.examples().contains(expectedExample),
                () -> "expected example '" + expectedExample + "' in " + result.examples());
    }

    @Test
    void violationsAreCountedInFullButOnlyFiveExamplesAreKept() throws SQLException {
        String url = freshCopy();
        // Every delivered line of district 1 loses its delivery date: 2100 orders with 1 to 3 lines each.
        TpccFixture.execute(url, "UPDATE order_line SET ol_delivery_d = NULL WHERE ol_d_id = 1 AND ol_o_id < 2101");

        ConditionResult seven = checker.check(url, "broken").condition(7);

        assertEquals(4200, seven.violations(), "lines of orders 1..2100 in district 1 (1 + o % 3 each)");
        assertEquals(ConditionResult.MAX_EXAMPLES, seven.examples().size());
        assertTrue(
                seven.examples().get(0).startsWith("ol_w_id=1, ol_d_id=1, ol_o_id=1, ol_number=1:"),
                seven.examples().get(0));
    }

    @Test
    void aDatabaseWithoutTheTpccTablesFailsWithTheTableAndSqlState() throws SQLException {
        String name = "empty_" + DATABASES.incrementAndGet();
        TpccFixture.execute(serverUrl, "CREATE DATABASE " + name);
        String url = TpccFixture.databaseUrl(serverUrl, name);

        CheckException error = assertThrows(CheckException.class, () -> checker.check(url, "empty"));

        assertTrue(error.getMessage().contains("warehouse"), error.getMessage());
        assertTrue(error.getMessage().contains("SQLSTATE 42P01"), error.getMessage());
    }

    /** A Delivery of order {@code orderId} in district {@code district} of warehouse 1, done by hand. */
    private static String deliver(int district, int orderId) {
        String order = "(1, " + district + ", " + orderId + ")";
        return "DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) = " + order + ";"
                + "UPDATE orders SET o_carrier_id = 5 WHERE (o_w_id, o_d_id, o_id) = " + order + ";"
                + "UPDATE order_line SET ol_delivery_d = '2026-01-03 00:00:00' WHERE (ol_w_id, ol_d_id, ol_o_id) = "
                + order + ";"
                + "UPDATE customer SET c_balance = c_balance + (SELECT sum(ol_amount) FROM order_line"
                + " WHERE (ol_w_id, ol_d_id, ol_o_id) = " + order + "), c_delivery_cnt = c_delivery_cnt + 1"
                + " WHERE (c_w_id, c_d_id, c_id) = (1, " + district + ", (SELECT o_c_id FROM orders"
                + " WHERE (o_w_id, o_d_id, o_id) = " + order + "))";
    }
}
