package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Increments (issue 18) through two NodeServers on two embedded replicas, driven by {@link FakeScheduler}: Payments of
 * one warehouse (which only add to its totals) run at once on both replicas and on two workers of one, and every
 * replica ends with the same bytes and the sums the payments made; a procedure declared {@code add:} that overwrites,
 * or adds to a NULL, is caught and, under {@code rulesCheck: reject}, rejected without effect.
 */
@Tag("integration")
class IncrementReplicationTest {
    private static final long TIMEOUT = 30_000;
    private static final List<String> NODES = List.of("node-1", "node-2");
    private static PostgresCluster servers;
    private FakeScheduler scheduler;
    private final List<NodeServer> nodes = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        servers = PostgresCluster.embedded(2);
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    @BeforeEach
    void schema() throws Exception {
        String sql;
        try (var in = IncrementReplicationTest.class.getResourceAsStream("increment-schema.sql")) {
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (int i = 0; i < 2; i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }
        scheduler = new FakeScheduler();
    }

    @AfterEach
    void stop() {
        for (NodeServer node : nodes) {
            node.close();
        }
        nodes.clear();
        scheduler.close();
    }

    /** Two nodes, 2 workers each, gargamel PSI, probing every call of a procedure declaring increments. */
    private void startNodes(RulesCheck check) throws Exception {
        String rules;
        try {
            rules = Path.of(IncrementReplicationTest.class
                            .getResource("increment-rules.yaml")
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        GroupSettings inMemory = GroupSettings.inMemory();
        for (int i = 0; i < 2; i++) {
            nodes.add(new NodeServer(NodeConfig.builder()
                    .name(NODES.get(i))
                    .jdbcUrl(servers.jdbcUrls().get(i))
                    .workers(2)
                    .mode(Mode.GARGAMEL)
                    .isolation(Isolation.PSI)
                    .rules(rules)
                    .control(inMemory)
                    .writeSets(inMemory)
                    .replicas(NODES)
                    .rulesCheck(check)
                    .incrementProbe(Integer.MAX_VALUE)
                    .build()));
        }
        BankReplicas.startAll(nodes);
        Await.until(
                "NODE_HELLO from both nodes",
                Duration.ofSeconds(10),
                () -> scheduler.hellos.size() == 2,
                () -> scheduler.hellos);
    }

    private static ProcedureCall payment(int w, int d, String amount) {
        return ProcedureCall.of("payment", w, d, new BigDecimal(amount));
    }

    private static String query(int server, String sql) throws Exception {
        StringBuilder text = new StringBuilder();
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                text.append(rows.getString(1)).append('\n');
            }
        }
        return text.toString();
    }

    /** Every table, row by row, as text: byte-identical replicas give the same string. */
    private static String dump(int server) throws Exception {
        return query(server, "SELECT w::text FROM warehouse w ORDER BY w_id")
                + query(server, "SELECT d::text FROM district d ORDER BY w_id, d_id")
                + query(server, "SELECT h::text FROM history h ORDER BY h::text");
    }

    private long sum(java.util.function.ToLongFunction<NodeStatistics> counter) {
        return nodes.stream()
                .mapToLong(node -> counter.applyAsLong(node.statistics()))
                .sum();
    }

    private void awaitCommitted(long[] txns) throws Exception {
        for (long txn : txns) {
            CallOutcome outcome = scheduler.awaitOutcome(txn, TIMEOUT);
            assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), "transaction " + txn + ": " + outcome);
        }
        scheduler.awaitVisibleEverywhere(NODES, txns, TIMEOUT);
    }

    @Test
    void paymentsOfOneWarehouseOnBothReplicasAtOnceConverge() throws Exception {
        startNodes(RulesCheck.REJECT);
        // 24 Payments of warehouse 1, spread over both replicas and their workers, none depending on another.
        long[] txns = LongStream.rangeClosed(1, 24).toArray();
        for (long txn : txns) {
            int i = (int) txn;
            scheduler.execute(
                    NODES.get(i % 2), (i / 2) % 2, txn, new long[0], payment(1, 1 + i % 4, i + "." + (i % 10) + "5"));
        }
        awaitCommitted(txns);
        String expectedTotal = "311.20"; // the sum over i of i.(i mod 10)5
        for (int server = 0; server < 2; server++) {
            assertEquals(
                    expectedTotal + " 24\n",
                    query(server, "SELECT w_ytd || ' ' || w_payments FROM warehouse WHERE w_id = 1"),
                    "replica " + server);
            assertEquals(expectedTotal + "\n", query(server, "SELECT sum(d_ytd) FROM district WHERE w_id = 1"));
            assertEquals(expectedTotal + "\n", query(server, "SELECT sum(h_amount) FROM history WHERE h_w_id = 1"));
        }
        assertEquals(dump(0), dump(1), "replicas differ");
        assertEquals(0, sum(NodeStatistics::retries), "no serialization failure or deadlock retried");
        assertEquals(0, sum(NodeStatistics::unsoundWrites), "every probed payment is a pure addition");
    }

    @Test
    void twoPaymentsOfOneDistrictOnTwoWorkersOfOneNodeAtOnce() throws Exception {
        startNodes(RulesCheck.REJECT);
        // Both hold the warehouse row for 50 ms: the second one waits for the first's row lock, then adds to the
        // newest value (READ COMMITTED), where REPEATABLE READ would fail with a serialization failure.
        scheduler.execute("node-1", 0, 1, new long[0], payment(1, 2, "10.25"));
        scheduler.execute("node-1", 1, 2, new long[0], payment(1, 2, "4.50"));
        // And one on the other replica at the same time, applied on node-1 while they run.
        scheduler.execute("node-2", 0, 3, new long[0], payment(1, 2, "1.00"));
        awaitCommitted(new long[] {1, 2, 3});
        for (int server = 0; server < 2; server++) {
            assertEquals(
                    "15.75 3 15.75\n",
                    query(
                            server,
                            "SELECT w_ytd || ' ' || w_payments || ' ' || d_ytd FROM warehouse JOIN district "
                                    + "USING (w_id) WHERE w_id = 1 AND d_id = 2"));
        }
        assertEquals(dump(0), dump(1), "replicas differ");
        assertEquals(0, sum(NodeStatistics::retries), "no serialization failure or deadlock retried");
    }

    @Test
    void aProcedureDeclaredAddThatOverwritesIsRejectedWithoutEffect() throws Exception {
        startNodes(RulesCheck.REJECT);
        scheduler.execute("node-1", 0, 1, new long[0], payment(1, 1, "5.00"));
        awaitCommitted(new long[] {1});
        scheduler.execute(
                "node-1", 0, 2, new long[] {1}, ProcedureCall.of("overwrite_payment", 1, 1, new BigDecimal("7.00")));
        CallOutcome rejected = scheduler.awaitOutcome(2, TIMEOUT);
        assertEquals(CallOutcome.Status.REJECTED, rejected.status(), rejected.toString());
        assertEquals(RulesCheck.SQLSTATE, rejected.sqlState());
        assertTrue(
                rejected.message().contains("warehouse(w_id=1) column w_ytd")
                        && rejected.message().contains("by +2.00, and by +1.00 when the cell held 1 more")
                        && rejected.message().contains("increment-rules.yaml:"),
                rejected.message());
        // A later payment still runs: the rejected call settled with an empty write-set.
        scheduler.execute("node-2", 0, 3, new long[] {2}, payment(1, 1, "1.00"));
        awaitCommitted(new long[] {3});
        for (int server = 0; server < 2; server++) {
            assertEquals("6.00\n", query(server, "SELECT w_ytd FROM warehouse WHERE w_id = 1"), "replica " + server);
        }
        assertEquals(1, sum(NodeStatistics::unsoundWrites));
        assertEquals(dump(0), dump(1), "replicas differ");
    }

    @Test
    void underWarnAnOverwriteIsCountedAndCommitted() throws Exception {
        startNodes(RulesCheck.WARN);
        scheduler.execute(
                "node-2", 1, 1, new long[0], ProcedureCall.of("overwrite_payment", 2, 1, new BigDecimal("7.00")));
        awaitCommitted(new long[] {1});
        assertEquals(1, sum(NodeStatistics::unsoundWrites));
        for (int server = 0; server < 2; server++) {
            assertEquals("7.00\n", query(server, "SELECT w_ytd FROM warehouse WHERE w_id = 2"), "replica " + server);
        }
        assertEquals(dump(0), dump(1), "replicas differ");
    }

    @Test
    void anIncrementOfANullCellIsRejected() throws Exception {
        startNodes(RulesCheck.REJECT);
        scheduler.execute("node-1", 1, 1, new long[0], ProcedureCall.of("bonus", 1));
        CallOutcome rejected = scheduler.awaitOutcome(1, TIMEOUT);
        assertEquals(CallOutcome.Status.REJECTED, rejected.status(), rejected.toString());
        assertTrue(
                rejected.message().contains("column w_bonus (not an addition: its old value was NULL)"),
                rejected.message());
        scheduler.awaitVisibleEverywhere(NODES, new long[] {1}, TIMEOUT);
        for (int server = 0; server < 2; server++) {
            assertEquals("\n", query(server, "SELECT coalesce(w_bonus::text, '') FROM warehouse WHERE w_id = 1"));
        }
    }
}
