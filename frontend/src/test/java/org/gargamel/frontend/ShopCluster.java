package org.gargamel.frontend;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.node.NodeConfig;
import org.gargamel.node.NodeServer;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;

/**
 * The tests' application (shop-schema.sql, shop-rules.yaml) on embedded PostgreSQL replicas, the real scheduler and
 * nodes over JGroups' in-memory transport, and a front end in this JVM that pgjdbc and psql connect to.
 */
final class ShopCluster implements AutoCloseable {
    static final String USER = "tester";
    static final String PASSWORD = "s3cret pass";

    final PostgresCluster servers;
    final SchedulerServer scheduler;
    final List<NodeServer> nodes = new ArrayList<>();
    final FrontendServer frontend;

    ShopCluster(int replicas, Path directory) throws Exception {
        servers = PostgresCluster.embedded(replicas);
        SchedulerServer startedScheduler = null;
        FrontendServer startedFrontend = null;
        try {
            String sql = resource("shop-schema.sql");
            for (int i = 0; i < replicas; i++) {
                try (Connection connection = servers.connect(i);
                        Statement statement = connection.createStatement()) {
                    statement.execute(sql);
                    // The front end's user runs as a role of its own name (docs/frontend.md, Security): it may use
                    // the application's tables as its procedures do, nothing more.
                    statement.execute("CREATE ROLE " + USER + " LOGIN");
                    statement.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + USER);
                    statement.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + USER);
                }
            }
            Path rules = directory.resolve("shop-rules.yaml");
            Files.writeString(rules, resource("shop-rules.yaml"), StandardCharsets.UTF_8);
            startedScheduler = new SchedulerServer(new SchedulerConfig(
                    GroupSettings.inMemory(), Mode.GARGAMEL, Isolation.PSI, rules.toString(), 100_000));
            startedScheduler.start();
            List<String> members = new ArrayList<>();
            for (int i = 1; i <= replicas; i++) {
                members.add("node-" + i);
            }
            for (int i = 0; i < replicas; i++) {
                nodes.add(new NodeServer(NodeConfig.builder()
                        .name("node-" + (i + 1))
                        .jdbcUrl(servers.jdbcUrl(i))
                        .workers(2)
                        .mode(Mode.GARGAMEL)
                        .isolation(Isolation.PSI)
                        .rules(rules.toString())
                        .control(GroupSettings.inMemory())
                        .writeSets(GroupSettings.inMemory())
                        .replicas(members)
                        .roles(new RoleLogins(List.of(RoleLogin.trusted(USER)), false))
                        .build()));
            }
            startAll(nodes);
            try (GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults())) {
                client.awaitNodes(replicas, Duration.ofSeconds(60));
            }
            startedFrontend = new FrontendServer(new FrontendConfig(
                    "127.0.0.1:0",
                    GroupSettings.inMemory(),
                    rules.toString(),
                    FrontendConfig.Authentication.SCRAM_SHA_256,
                    List.of(new FrontendConfig.User(USER, PASSWORD, null)),
                    servers.jdbcUrl(0),
                    null,
                    null,
                    null,
                    null));
            startedFrontend.start();
        } catch (Exception | Error e) {
            if (startedFrontend != null) {
                startedFrontend.close();
            }
            for (NodeServer node : nodes) {
                node.close();
            }
            if (startedScheduler != null) {
                startedScheduler.close();
            }
            servers.close();
            throw e;
        }
        scheduler = startedScheduler;
        frontend = startedFrontend;
    }

    private static void startAll(List<NodeServer> servers) throws Exception {
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        for (NodeServer server : servers) {
            starts.add(CompletableFuture.runAsync(() -> {
                try {
                    server.start();
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }));
        }
        for (CompletableFuture<Void> start : starts) {
            start.get(120, TimeUnit.SECONDS);
        }
    }

    static String resource(String name) throws IOException {
        try (InputStream in = ShopCluster.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    String url() {
        return "jdbc:postgresql://" + frontend.host() + ":" + frontend.port() + "/shop";
    }

    /** A pgjdbc connection through the front end. */
    Connection connect(String user, String password, Properties extra) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.putAll(extra);
        return DriverManager.getConnection(url(), properties);
    }

    Connection connect() throws SQLException {
        return connect(USER, PASSWORD, new Properties());
    }

    /** The first column of the first row of {@code query} on replica {@code replica}, directly. */
    String query(int replica, String query) throws SQLException {
        try (Connection connection = servers.connect(replica);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    @Override
    public void close() {
        frontend.close();
        for (NodeServer node : nodes) {
            node.close();
        }
        scheduler.close();
        servers.close();
    }
}
