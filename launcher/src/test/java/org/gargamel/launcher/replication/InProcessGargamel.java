package org.gargamel.launcher.replication;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.node.NodeConfig;
import org.gargamel.node.NodeServer;
import org.gargamel.node.RulesCheck;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.tpcc.TpccRules;

/**
 * The scheduler, one node per database and a client in this JVM, over JGroups' in-memory transport: the real
 * servers and the real PostgreSQL replicas, without process start-up costs.
 */
final class InProcessGargamel implements AutoCloseable {
    final SchedulerServer scheduler;
    final List<NodeServer> nodes = new ArrayList<>();
    final GargamelClient client;

    /** With the TPC-C rules. */
    InProcessGargamel(String mode, String isolation, List<String> jdbcUrls, int workers) throws Exception {
        this(mode, isolation, jdbcUrls, workers, TpccRules.temporaryFile());
    }

    /** With the rules in file {@code rules} (another application's). */
    InProcessGargamel(String mode, String isolation, List<String> jdbcUrls, int workers, String rules)
            throws Exception {
        this(mode, isolation, jdbcUrls, workers, rules, RulesCheck.REJECT);
    }

    /** With the rules in file {@code rules}, the nodes reacting to a write outside a call's rule with {@code check}. */
    InProcessGargamel(String mode, String isolation, List<String> jdbcUrls, int workers, String rules, RulesCheck check)
            throws Exception {
        this(mode, isolation, jdbcUrls, workers, rules, check, NodeConfig.DEFAULT_APPLIERS, RoleLogins.NONE);
    }

    /**
     * With the rules in file {@code rules}, for a front end whose clients connect as user {@code frontendUser}: its
     * database role (of its name) is created on every replica as serve creates it ({@code FrontendRole}), and the
     * nodes serve it (docs/frontend.md, Security).
     */
    static InProcessGargamel forFrontendUser(List<String> jdbcUrls, int workers, String rules, String frontendUser)
            throws Exception {
        java.nio.file.Path password = java.nio.file.Files.createTempFile("frontend-role", ".password");
        password.toFile().deleteOnExit();
        org.gargamel.launcher.cluster.FrontendRole.create(
                jdbcUrls,
                frontendUser,
                org.gargamel.classifier.ClassifierRules.loadConfigured(rules)
                        .procedures()
                        .keySet(),
                password);
        return new InProcessGargamel(
                "gargamel",
                "psi",
                jdbcUrls,
                workers,
                rules,
                RulesCheck.REJECT,
                NodeConfig.DEFAULT_APPLIERS,
                new RoleLogins(List.of(new RoleLogin(frontendUser, null, password.toString())), false));
    }

    /** With the TPC-C rules, each node applying with {@code appliers} connections (docs/node.md, Parallel apply). */
    static InProcessGargamel withAppliers(
            String mode, String isolation, List<String> jdbcUrls, int workers, int appliers) throws Exception {
        return new InProcessGargamel(
                mode,
                isolation,
                jdbcUrls,
                workers,
                TpccRules.temporaryFile(),
                RulesCheck.REJECT,
                appliers,
                RoleLogins.NONE);
    }

    private InProcessGargamel(
            String mode,
            String isolation,
            List<String> jdbcUrls,
            int workers,
            String rules,
            RulesCheck check,
            int appliers,
            RoleLogins roles)
            throws Exception {
        scheduler = new SchedulerServer(new SchedulerConfig(
                GroupSettings.inMemory(), Mode.parse(mode), Isolation.parse(isolation), rules, 100_000));
        scheduler.start();
        try {
            for (int i = 0; i < jdbcUrls.size(); i++) {
                NodeServer node = new NodeServer(NodeConfig.builder()
                        .name("node-" + (i + 1))
                        .jdbcUrl(jdbcUrls.get(i))
                        .workers(workers)
                        .mode(Mode.parse(mode))
                        .isolation(Isolation.parse(isolation))
                        .rules(rules)
                        .control(GroupSettings.inMemory())
                        .writeSets(GroupSettings.inMemory())
                        .replicas(members(jdbcUrls.size()))
                        .rulesCheck(check)
                        .appliers(appliers)
                        .roles(roles)
                        .build());
                nodes.add(node);
            }
            startAll(nodes); // together: a node's start waits for the write-set log, which needs a majority
            client = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults());
            client.awaitNodes(jdbcUrls.size(), Duration.ofSeconds(30));
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** node-1 .. node-{@code count}: the names, and the write-set log's members. */
    static List<String> members(int count) {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            names.add("node-" + i);
        }
        return names;
    }

    /** Starts the nodes at once, each on its own thread (a node's start waits for a majority of the log's members). */
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
            start.get(120, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    long sum(java.util.function.ToLongFunction<org.gargamel.node.NodeStatistics> counter) {
        return nodes.stream()
                .mapToLong(node -> counter.applyAsLong(node.statistics()))
                .sum();
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        for (NodeServer node : nodes) {
            node.close();
        }
        scheduler.close();
    }
}
