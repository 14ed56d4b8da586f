package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys drawn from sequences at three replicas (docs/node.md, Sequences): a procedure inserting into a bigserial table,
 * an identity-by-default table and an identity-always table (with a generated column), declared {@code fresh: true},
 * so its calls conflict with nothing and run anywhere at once. Each node draws from its own residue class, so the
 * keys never collide: not when every replica inserts at the same time, not when a chain moves to another replica after
 * its node stopped, and not after a node is rebuilt from a peer (whose sequences, in the peer's class, come with the
 * copy). Three real NodeServers on three embedded PostgreSQL servers, driven by a {@link FakeScheduler}.
 */
@Tag("integration")
class SequenceReplicationTest {
    private static final long TIMEOUT = 60_000;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    private static final List<String> TABLES = List.of("ticket", "badge", "stamp");
    private static PostgresCluster servers;
    private final List<NodeServer> nodes = new ArrayList<>();
    private FakeScheduler scheduler;

    @TempDir
    Path directory;

    @BeforeAll
    static void startServers() {
        servers = PostgresCluster.embedded(3);
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    @BeforeEach
    void reset() throws Exception {
        String sql;
        try (var in = SequenceReplicationTest.class.getResourceAsStream("sequence-schema.sql")) {
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (int i = 0; i < NODES.size(); i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP SCHEMA IF EXISTS gargamel CASCADE");
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

    private static NodeConfig config(int index) {
        String rules;
        try {
            rules = Path.of(SequenceReplicationTest.class
                            .getResource("sequence-rules.yaml")
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        GroupSettings inMemory = GroupSettings.inMemory();
        return NodeConfig.builder()
                .name(NODES.get(index))
                .jdbcUrl(servers.jdbcUrls().get(index))
                .workers(2)
                .mode(Mode.GARGAMEL)
                .isolation(Isolation.PSI)
                .rules(rules)
                .control(inMemory)
                .writeSets(inMemory)
                .replicas(NODES)
                .build();
    }

    private void startAll(List<NodeConfig> configs) throws Exception {
        List<NodeServer> started = new ArrayList<>();
        for (NodeConfig config : configs) {
            started.add(new NodeServer(config));
        }
        nodes.addAll(started);
        BankReplicas.startAll(started);
        Await.until(
                "NODE_HELLO from every node",
                Duration.ofSeconds(20),
                () -> scheduler.hellos.keySet().containsAll(NODES),
                () -> scheduler.hellos);
    }

    private static ProcedureCall issue(String note) {
        return ProcedureCall.of("issue", note);
    }

    /** Places {@code calls} calls of {@code issue} on {@code node}; {@code chained}: each depends on the one before. */
    private long[] place(String node, int worker, long firstTxn, int calls, boolean chained) throws Exception {
        long[] txns = new long[calls];
        for (int i = 0; i < calls; i++) {
            long txn = firstTxn + i;
            txns[i] = txn;
            long[] dependencies = chained && txn > 1 ? new long[] {txn - 1} : new long[0];
            scheduler.execute(node, worker, txn, dependencies, issue(node + " call " + txn));
        }
        return txns;
    }

    /** Every call committed (none failed on a duplicate key), and every replica in {@code at} applied it. */
    private void awaitCommitted(long[] txns, List<String> at) throws Exception {
        for (long txn : txns) {
            CallOutcome outcome = scheduler.awaitOutcome(txn, TIMEOUT);
            assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), "transaction " + txn + ": " + outcome);
        }
        Await.until(
                "every replica applied transactions up to " + txns[txns.length - 1], Duration.ofMillis(TIMEOUT), () -> {
                    failIfANodeStopped();
                    for (String node : at) {
                        for (long txn : txns) {
                            if (!scheduler
                                    .visible
                                    .getOrDefault(node, java.util.Set.of())
                                    .contains(txn)) {
                                return false;
                            }
                        }
                    }
                    return true;
                });
    }

    private void failIfANodeStopped() {
        for (NodeServer node : nodes) {
            if (node.failure().isDone()) {
                throw new AssertionError(
                        node.name() + " stopped: " + node.failure().getNow(null));
            }
        }
    }

    /** Every row of the three tables, by table and key. */
    private static String dump(int server) throws Exception {
        StringBuilder text = new StringBuilder();
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement()) {
            for (String table : TABLES) {
                try (ResultSet rows = statement.executeQuery("SELECT t::text FROM " + table + " t ORDER BY id")) {
                    while (rows.next()) {
                        text.append(table).append(' ').append(rows.getString(1)).append('\n');
                    }
                }
            }
        }
        return text.toString();
    }

    private static int count(int server, String table) throws Exception {
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** The same rows everywhere; each key drawn by node k is ≡ 1 + k (mod 3) (every sequence starts at 1). */
    private static void assertConvergedInClasses(int rowsPerTable) throws Exception {
        String first = dump(0);
        for (int server = 1; server < NODES.size(); server++) {
            assertEquals(first, dump(server), "replica " + NODES.get(server) + " differs from node-1");
        }
        for (String table : TABLES) {
            assertEquals(rowsPerTable + (table.equals("stamp") ? 0 : 3), count(0, table), table);
        }
        try (Connection connection = servers.connect(0);
                Statement statement = connection.createStatement()) {
            for (String table : TABLES) {
                try (ResultSet rows =
                        statement.executeQuery("SELECT id, note FROM " + table + " WHERE note LIKE 'node-%'")) {
                    while (rows.next()) {
                        int slot = NODES.indexOf(rows.getString(2).split(" ", -1)[0]);
                        assertEquals(
                                (1 + slot) % NODES.size(),
                                Math.floorMod(rows.getLong(1), NODES.size()),
                                table + " " + rows.getLong(1) + " drawn by " + rows.getString(2));
                    }
                }
            }
        }
    }

    /**
     * The reported failure: every replica inserts at once. Each replica had its own sequence at the same position,
     * so node-1 and node-2 both drew 4 and applying the other's row failed with a duplicate key; every node stopped.
     */
    @Test
    void freshInsertsAtEveryReplicaAtOnceDrawDistinctKeys() throws Exception {
        startAll(List.of(config(0), config(1), config(2)));
        List<Long> all = new ArrayList<>();
        for (int round = 0; round < 10; round++) {
            for (int node = 0; node < NODES.size(); node++) {
                long txn = all.size() + 1L;
                all.add(txn);
                scheduler.execute(
                        NODES.get(node), round % 2, txn, new long[0], issue(NODES.get(node) + " call " + txn));
            }
        }
        awaitCommitted(all.stream().mapToLong(Long::longValue).toArray(), NODES);
        assertConvergedInClasses(30);
    }

    /**
     * A chain (a wildcard key makes every call of it one) runs on node-1; node-1 stops and the chain moves to node-2,
     * whose sequence never drew a value: it used to draw node-1's values again and fail with a duplicate key. Then
     * node-1 comes back (catching up from its log) and the chain goes on there; the three replicas converge.
     */
    @Test
    void aChainThatMovesToAnotherReplicaAfterItsNodeStoppedGoesOnWithoutDuplicateKeys() throws Exception {
        NodeConfig first = config(0).toBuilder()
                .dataDir(directory.resolve("node-1").toString(), false)
                .build();
        startAll(List.of(first, config(1), config(2)));
        awaitCommitted(place("node-1", 0, 1, 10, true), NODES);

        nodes.remove(0).close();
        scheduler.hellos.remove("node-1");
        awaitCommitted(place("node-2", 0, 11, 10, true), List.of("node-2", "node-3"));

        NodeServer restarted = new NodeServer(first);
        nodes.add(restarted);
        restarted.start();
        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        awaitCommitted(place("node-1", 1, 21, 5, true), NODES);
        assertConvergedInClasses(25);
    }

    /**
     * node-1 drew many keys (up to 31 in its class), node-2 few; node-1 is then rebuilt from node-2, whose sequences,
     * in node-2's class and far below 31, come with the copy. The rebuilt node aligns them again: its own class, above
     * every key it now holds (its own earlier ones included, which the copied sequences know nothing of), so its new
     * calls neither collide with the others' keys nor with its own.
     */
    @Test
    void aNodeRebuiltFromAPeerDrawsFromItsOwnClassAboveEverythingItHolds() throws Exception {
        startAll(List.of(config(0), config(1), config(2)));
        long[] early = place("node-1", 0, 1, 10, true);
        long[] few = place("node-2", 0, 11, 2, false);
        awaitCommitted(early, NODES);
        awaitCommitted(few, NODES);

        nodes.remove(0).close();
        scheduler.hellos.remove("node-1");
        try (Connection connection = servers.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("UPDATE gargamel.replica_state SET tainted = 'a test marked it'");
        }
        awaitCommitted(place("node-2", 1, 13, 2, false), List.of("node-2", "node-3"));

        NodeServer rebuilt = new NodeServer(
                config(0).toBuilder().peers(List.of(servers.jdbcUrls().get(1))).build());
        nodes.add(rebuilt);
        rebuilt.start();
        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        try (Connection connection = servers.connect(0);
                Statement statement = connection.createStatement()) {
            for (String table : TABLES) {
                String sequence = table + "_id_seq";
                try (ResultSet rows = statement.executeQuery("SELECT q.seqincrement, s.last_value, s.is_called, "
                        + "(SELECT max(id) FROM " + table + ") FROM " + sequence + " s, pg_sequence q "
                        + "WHERE q.seqrelid = '" + sequence + "'::regclass")) {
                    rows.next();
                    long next = rows.getBoolean(3) ? rows.getLong(2) + rows.getLong(1) : rows.getLong(2);
                    assertEquals(3, rows.getLong(1), sequence + " steps by the number of replicas");
                    assertEquals(1, Math.floorMod(next, 3), sequence + ": node-1's class, next value " + next);
                    assertTrue(next > rows.getLong(4), sequence + ": next value " + next + " above " + rows.getLong(4));
                }
            }
        }
        awaitCommitted(place("node-1", 0, 15, 5, true), NODES);
        assertConvergedInClasses(19);
    }
}
