package org.gargamel.tpcc.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.gargamel.tpcc.random.TpccRandom;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.schema.TpccTable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The initial population of clause 4.3.3.1, read on the pristine server of {@link LoadedTpccServers}. */
@Tag("integration")
class TpccLoaderTest {
    private static LoadedTpccServers servers;

    @BeforeAll
    static void load() throws SQLException {
        servers = LoadedTpccServers.get();
    }

    @Test
    void everyTableHasTheRowCountOfClause4331() throws SQLException {
        try (Connection connection = servers.connect(LoadedTpccServers.PRISTINE)) {
            assertEquals(100_000, count(connection, "SELECT count(*) FROM item"));
            assertEquals(1, count(connection, "SELECT count(*) FROM warehouse"));
            assertEquals(100_000, count(connection, "SELECT count(*) FROM stock WHERE s_w_id = 1"));
            assertEquals(10, count(connection, "SELECT count(*) FROM district WHERE d_next_o_id = 3001"));
            assertEquals(30_000, count(connection, "SELECT count(*) FROM customer"));
            assertEquals(30_000, count(connection, "SELECT count(*) FROM history"));
            assertEquals(30_000, count(connection, "SELECT count(*) FROM orders"));
            assertEquals(9_000, count(connection, "SELECT count(*) FROM new_order"));
            assertEquals(
                    count(connection, "SELECT sum(o_ol_cnt) FROM orders"),
                    count(connection, "SELECT count(*) FROM order_line"));
            // 900 new orders per district, exactly o_id 2101..3000, exactly the orders without a carrier.
            assertEquals(10, count(connection, """
                    SELECT count(*) FROM (SELECT no_d_id FROM new_order GROUP BY no_d_id
                    HAVING count(*) = 900 AND min(no_o_id) = 2101 AND max(no_o_id) = 3000) d"""));
            assertEquals(0, count(connection, """
                    SELECT count(*) FROM orders o LEFT JOIN new_order n
                      ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
                    WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)"""));
            assertEquals(0, count(connection, "SELECT count(*) FROM orders WHERE o_ol_cnt NOT BETWEEN 5 AND 15"));
            assertEquals(0, count(connection, """
                    SELECT count(*) FROM order_line
                    WHERE (ol_o_id < 2101) <> (ol_delivery_d IS NOT NULL)
                       OR (ol_o_id < 2101 AND ol_amount <> 0) OR (ol_o_id >= 2101 AND ol_amount = 0)"""));
            // Each district's orders name each of its customers once (a permutation).
            assertEquals(10, count(connection, """
                    SELECT count(*) FROM (SELECT o_d_id FROM orders GROUP BY o_d_id
                    HAVING count(DISTINCT o_c_id) = 3000 AND min(o_c_id) = 1 AND max(o_c_id) = 3000) d"""));
        }
    }

    @Test
    void randomColumnsFollowTheirDistributions() throws SQLException {
        try (Connection connection = servers.connect(LoadedTpccServers.PRISTINE)) {
            long badCredit = count(connection, "SELECT count(*) FROM customer WHERE c_credit = 'BC'");
            assertTrue(
                    badCredit > 2_400 && badCredit < 3_600, "about 10% of 30,000 customers are BC, were " + badCredit);
            long originalItems = count(connection, "SELECT count(*) FROM item WHERE i_data LIKE '%ORIGINAL%'");
            assertTrue(
                    originalItems > 9_000 && originalItems < 11_000, "about 10% ORIGINAL items, were " + originalItems);
            assertEquals(0, count(connection, "SELECT count(*) FROM stock WHERE s_quantity NOT BETWEEN 10 AND 100"));
            // Customers 1..1000 of every district carry the 1,000 last names in sequence.
            assertEquals(
                    TpccRandom.lastName(0),
                    string(connection, "SELECT c_last FROM customer WHERE c_d_id = 7 AND c_id = 1"));
            assertEquals(
                    TpccRandom.lastName(999),
                    string(connection, "SELECT c_last FROM customer WHERE c_d_id = 3 AND c_id = 1000"));
            try (Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT c_id, c_last FROM customer WHERE c_d_id = 5 AND c_id <= 1000 ORDER BY c_id")) {
                int seen = 0;
                while (rows.next()) {
                    assertEquals(
                            TpccRandom.lastName(rows.getInt(1) - 1),
                            rows.getString(2),
                            "c_last of c_id " + rows.getInt(1));
                    seen++;
                }
                assertEquals(1_000, seen);
            }
            // The money adds up from the start (consistency conditions 1, 8, 10).
            assertEquals(
                    0,
                    count(
                            connection,
                            "SELECT count(*) FROM warehouse w WHERE w_ytd <> (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id)"));
            assertEquals(0, count(connection, "SELECT count(*) FROM customer WHERE c_balance <> -10.00"));
            assertEquals(300_000, count(connection, "SELECT sum(h_amount)::bigint FROM history"));
        }
    }

    @Test
    void theSameSeedGivesIdenticalTablesOnEveryServer() {
        Map<String, String> first = servers.checksumsAfterLoad(LoadedTpccServers.SCRATCH);
        Map<String, String> second = servers.checksumsAfterLoad(LoadedTpccServers.PRISTINE);
        assertEquals(TpccSchema.TABLES.size(), first.size(), "one checksum per table: " + first.keySet());
        for (TpccTable table : TpccSchema.TABLES) {
            assertTrue(!first.get(table.name()).startsWith("0:"), table.name() + " must not be empty");
        }
        assertEquals(first, second);
    }

    @Test
    void loadInfoRecordsTheSeedWarehousesAndConstants() throws SQLException {
        try (Connection connection = servers.connect(LoadedTpccServers.PRISTINE)) {
            LoadInfo info = TpccSchema.readLoadInfo(connection);
            assertEquals(
                    new LoadInfo(LoadedTpccServers.SEED, 1, TpccLoader.loadConstants(LoadedTpccServers.SEED)), info);
            assertEquals(servers.loadInfo(), info);
            assertTrue(
                    TpccSchema.inspect(connection).isLoaded(),
                    TpccSchema.inspect(connection).toString());
        }
    }

    @Test
    void refusesToLoadIntoADatabaseThatIsNotEmpty() {
        String url = servers.jdbcUrl(LoadedTpccServers.PRISTINE);
        LoadException e = assertThrows(
                LoadException.class, () -> new TpccLoader(new LoadOptions(1, 1, 1), LoadProgress.silent()).load(url));
        assertTrue(e.getMessage().contains("refusing to load into " + url), e.getMessage());
        assertTrue(e.getMessage().contains("LOADED"), e.getMessage());
    }

    static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    static String string(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
