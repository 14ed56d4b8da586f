package org.gargamel.tpcc.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.common.convergence.TableConvergence;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Convergence across two embedded servers loaded with the same fixture. */
@Tag("integration")
class TableChecksumsTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static PostgresCluster cluster;

    private final TableChecksums checksums = new TableChecksums(CheckRunner.TABLES);

    @BeforeAll
    static void startServers() throws SQLException {
        cluster = PostgresCluster.embedded(2);
        for (String url : cluster.jdbcUrls()) {
            TpccFixture.installTemplate(url);
        }
    }

    @AfterAll
    static void stopServers() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A fresh copy of the fixture on each server: [url on server 0, url on server 1]. */
    private static List<String> freshPair() throws SQLException {
        String name = "convergence_" + DATABASES.incrementAndGet();
        return List.of(TpccFixture.copy(cluster.jdbcUrl(0), name), TpccFixture.copy(cluster.jdbcUrl(1), name));
    }

    @Test
    void theSameFixtureOnTwoServersIsIdentical() throws SQLException {
        ConvergenceReport report = checksums.compare(freshPair());

        assertTrue(report.identical(), report::toString);
        assertEquals(
                CheckRunner.TABLES,
                report.tables().stream().map(TableConvergence::table).toList());
        assertEquals(2, report.databases().size());
        assertTrue(
                report.databases().get(1).startsWith("db1 jdbc:postgresql://"),
                report.databases().get(1));
        assertEquals(2 * 4211, report.table("order_line").checksums().get(0).rows());
        assertEquals(7, report.table("history").checksums().get(1).rows());
        // Different contents give different checksums: no two tables of the fixture share one.
        Set<String> distinct = new HashSet<>();
        report.tables().forEach(t -> distinct.add(t.checksums().get(0).checksum()));
        assertEquals(CheckRunner.TABLES.size(), distinct.size(), report::toString);
    }

    @Test
    void physicalRowOrderDoesNotMatter() throws SQLException {
        List<String> pair = freshPair();
        // Rewriting every other row moves it to the end of the heap on server 1 only.
        TpccFixture.execute(
                pair.get(1),
                "UPDATE order_line SET ol_quantity = ol_quantity WHERE ol_number = 1;"
                        + "UPDATE stock SET s_quantity = s_quantity WHERE s_i_id % 2 = 0");
        assertNotEquals(physicalOrder(pair.get(0)), physicalOrder(pair.get(1)), "the update should move rows");

        ConvergenceReport report = checksums.compare(pair);

        assertTrue(report.identical(), report::toString);
    }

    @Test
    void aNumericWrittenWithAnotherScaleIsStoredAtTheColumnsScale() throws SQLException {
        // Typed numeric(12,2) columns store 160.0 and 160.001 as 160.00, so the data is the same; an
        // untyped numeric would keep the scale, and the checksum (over the text form) would tell them apart.
        List<String> pair = freshPair();
        TpccFixture.execute(
                pair.get(1),
                "UPDATE warehouse SET w_ytd = 160.0;"
                        + "UPDATE customer SET c_balance = -10.001 WHERE (c_w_id, c_d_id, c_id) = (1, 1, 1)");

        assertTrue(checksums.compare(pair).identical());
    }

    static Stream<Arguments> differences() {
        return Stream.of(
                Arguments.of("warehouse", "UPDATE warehouse SET w_ytd = w_ytd + 0.01"),
                Arguments.of("district", "UPDATE district SET d_next_o_id = 2107 WHERE d_id = 2"),
                Arguments.of("customer", "UPDATE customer SET c_data = c_data || 'x' WHERE (c_d_id, c_id) = (2, 3)"),
                // history has no primary key: a duplicated row is a different table.
                Arguments.of("history", "INSERT INTO history SELECT * FROM history WHERE h_data = 'payment'"),
                Arguments.of("new_order", "DELETE FROM new_order WHERE (no_d_id, no_o_id) = (1, 2105)"),
                Arguments.of(
                        "orders",
                        "UPDATE orders SET o_entry_d = o_entry_d + interval '1 microsecond'"
                                + " WHERE (o_d_id, o_id) = (1, 77)"),
                // NULL and a value differ.
                Arguments.of(
                        "order_line",
                        "UPDATE order_line SET ol_delivery_d = NULL"
                                + " WHERE (ol_d_id, ol_o_id, ol_number) = (2, 3, 1)"),
                Arguments.of("item", "INSERT INTO item VALUES (11, 11, 'item 11', 12.00, 'item data 11')"),
                // Trailing blanks of char(n) are padding, but a changed character is not.
                Arguments.of("stock", "UPDATE stock SET s_dist_05 = 'D05' WHERE s_i_id = 7"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("differences")
    void oneChangedTableIsNamedWithTheDatabaseThatDiffers(String table, String change) throws SQLException {
        List<String> pair = freshPair();
        TpccFixture.execute(pair.get(1), change);

        ConvergenceReport report = checksums.compare(pair);

        assertFalse(report.identical());
        assertEquals(List.of(table), report.differingTables(), report::toString);
        TableConvergence differing = report.table(table);
        assertEquals(List.of(report.databases().get(1)), differing.differing());
        assertNotEquals(
                differing.checksums().get(0).checksum(),
                differing.checksums().get(1).checksum());
    }

    @Test
    void theMajorityDecidesWhichDatabaseDiffers() throws SQLException {
        List<String> pair = freshPair();
        String third = TpccFixture.copy(cluster.jdbcUrl(0), "convergence_" + DATABASES.incrementAndGet());
        TpccFixture.execute(pair.get(0), "DELETE FROM item WHERE i_id = 3");

        ConvergenceReport report = checksums.compare(List.of(pair.get(0), pair.get(1), third));

        TableConvergence item = report.table("item");
        assertEquals(List.of(report.databases().get(0)), item.differing(), item::toString);
        assertEquals(9, item.checksums().get(0).rows());
        assertEquals(10, item.checksums().get(2).rows());
    }

    @Test
    void theRunnerCombinesConsistencyAndConvergenceForTheReportAndResultJson() throws Exception {
        List<String> pair = freshPair();
        TpccFixture.execute(
                pair.get(1),
                "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1" + " WHERE (c_w_id, c_d_id, c_id) = (1, 2, 3)");

        CheckReport report = new CheckRunner().run(pair);

        assertFalse(report.passed());
        assertTrue(report.consistency().get(0).passed());
        assertEquals(List.of(12), report.consistency().get(1).failedConditions());
        assertEquals(List.of("customer"), report.convergence().differingTables());

        String text = report.render();
        assertTrue(text.contains("db0  1  W_YTD = sum(D_YTD) per warehouse: ok (1 warehouses)"), text);
        assertTrue(
                text.contains("db1 12  C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of delivered lines) per customer:"
                        + " VIOLATED in 1 of 6 customers, e.g. c_w_id=1, c_d_id=2, c_id=3:"),
                text);
        assertTrue(
                text.contains("db0 11  count(ORDER) - count(NEW-ORDER) = 2100 per district, before its first"
                        + " Delivery: ok (applied to 1 of 2 districts; the other 1 have had a Delivery: their order 2101 is no"
                        + " longer in new_order)"),
                text);
        assertTrue(text.contains("  customer   DIFFERENT in db1:"), text);
        assertTrue(text.contains("  stock      identical  10 rows  "), text);
        assertEquals(1 + 2 * 13 + 1 + CheckRunner.TABLES.size(), text.lines().count(), text);

        JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report.toResultMap()));
        assertFalse(json.get("passed").asBoolean());
        assertFalse(json.at("/consistency/passed").asBoolean());
        assertEquals(12, json.at("/consistency/databases/1/conditions").size());
        assertEquals(
                1, json.at("/consistency/databases/1/conditions/11/violations").asLong());
        assertFalse(json.at("/convergence/identical").asBoolean());
        assertEquals("customer", json.at("/convergence/tables/2/table").asText());
        assertEquals(
                report.convergence().databases().get(1),
                json.at("/convergence/tables/2/differing/0").asText());
        assertEquals(6, json.at("/convergence/tables/2/checksums/1/rows").asLong());
    }

    private static List<String> physicalOrder(String url) throws SQLException {
        try (Connection connection = JdbcConnections.connect(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT s_i_id::text FROM stock ORDER BY ctid")) {
            List<String> ids = new java.util.ArrayList<>();
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
            return ids;
        }
    }
}
