package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.testing.Await;
import org.gargamel.provisioning.PostgresCluster;

/**
 * The node tests' cluster: two embedded PostgreSQL replicas holding the small bank schema (bank-schema.sql: district
 * and orders, procedures new_order, payment and a few more; rules in bank-rules.yaml), two NodeServers on them over the
 * in-memory JGroups transport, and a {@link FakeScheduler} that places calls where the test says.
 */
final class BankReplicas implements AutoCloseable {
    static final List<String> NODES = List.of("node-1", "node-2");

    final PostgresCluster servers;
    final List<NodeServer> nodes = new ArrayList<>();
    FakeScheduler scheduler;

    /** Starts the two replicas; {@link #reset} loads the schema before each test. */
    BankReplicas() {
        servers = PostgresCluster.embedded(2);
    }

    static String rules() {
        try {
            return Path.of(BankReplicas.class.getResource("bank-rules.yaml").toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh schema on both replicas and a fresh fake scheduler. */
    void reset() throws Exception {
        String sql;
        try (var in = BankReplicas.class.getResourceAsStream("bank-schema.sql")) {
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

    /** Starts a node on each replica (2 workers each) and waits until the scheduler heard from both. */
    void startNodes(Mode mode, Isolation isolation, Path statsDirectory) throws Exception {
        startNodes(mode, isolation, statsDirectory, NODES);
    }

    /** As above, with {@code members} as the write-set log's members (a test may add one that is not started). */
    void startNodes(Mode mode, Isolation isolation, Path statsDirectory, List<String> members) throws Exception {
        startNodes(mode, isolation, statsDirectory, members, java.util.function.UnaryOperator.identity());
    }

    /** As above, each node's configuration changed by {@code configure}. */
    void startNodes(
            Mode mode,
            Isolation isolation,
            Path statsDirectory,
            List<String> members,
            java.util.function.UnaryOperator<NodeConfig> configure)
            throws Exception {
        GroupSettings inMemory = GroupSettings.inMemory();
        for (int i = 0; i < 2; i++) {
            String stats = statsDirectory == null
                    ? null
                    : statsDirectory.resolve(NODES.get(i) + ".json").toString();
            nodes.add(new NodeServer(configure.apply(NodeConfig.builder()
                    .name(NODES.get(i))
                    .jdbcUrl(servers.jdbcUrls().get(i))
                    .workers(2)
                    .mode(mode)
                    .isolation(isolation)
                    .rules(rules())
                    .control(inMemory)
                    .writeSets(inMemory)
                    .replicas(members)
                    .statsFile(stats)
                    .build())));
        }
        // Together: a node's start waits for the write-set log, which needs a majority of the members.
        startAll(nodes);
        Await.until(
                "NODE_HELLO from both nodes",
                Duration.ofSeconds(10),
                () -> scheduler.hellos.size() == 2,
                () -> scheduler.hellos);
    }

    /** Starts the nodes at once, each on its own thread; fails with the first failure. */
    static void startAll(List<NodeServer> servers) throws Exception {
        List<java.util.concurrent.CompletableFuture<Void>> starts = new ArrayList<>();
        for (NodeServer server : servers) {
            starts.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    server.start();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }));
        }
        for (java.util.concurrent.CompletableFuture<Void> start : starts) {
            start.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Stops the nodes and the fake scheduler (the replicas stay). */
    void stopNodes() {
        for (NodeServer node : nodes) {
            node.close();
        }
        nodes.clear();
        if (scheduler != null) {
            scheduler.close();
        }
    }

    String dump(int server) throws Exception {
        StringBuilder text = new StringBuilder();
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement()) {
            try (ResultSet rows =
                    statement.executeQuery("SELECT w_id, d_id, next_o_id, ytd FROM district ORDER BY w_id, d_id")) {
                while (rows.next()) {
                    text.append(rows.getInt(1))
                            .append('/')
                            .append(rows.getInt(2))
                            .append(' ')
                            .append(rows.getInt(3))
                            .append(' ')
                            .append(rows.getString(4))
                            .append('\n');
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT * FROM orders ORDER BY o_w_id, o_d_id, o_id")) {
                while (rows.next()) {
                    text.append(rows.getInt(1))
                            .append('/')
                            .append(rows.getInt(2))
                            .append('/')
                            .append(rows.getInt(3))
                            .append(' ')
                            .append(rows.getString(4))
                            .append('\n');
                }
            }
        }
        return text.toString();
    }

    /** {@code next_o_id ytd} of one district on one replica. */
    String district(int server, int w, int d) throws Exception {
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT next_o_id, ytd FROM district WHERE w_id = " + w + " AND d_id = " + d)) {
            rows.next();
            return rows.getInt(1) + " " + rows.getString(2);
        }
    }

    void assertConverged() throws Exception {
        assertEquals(dump(0), dump(1), "replicas differ");
    }

    @Override
    public void close() {
        stopNodes();
        servers.close();
    }
}
