package org.gargamel.scheduler.cluster;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.tpcc.TpccRules;
import org.jgroups.JChannel;

/** A scheduler, fake nodes and clients in one JVM, in-memory or over TCP on 127.0.0.1; closes them all. */
final class TestCluster implements AutoCloseable {
    final FakeNode.Bus bus = new FakeNode.Bus();
    SchedulerServer scheduler;
    private final SchedulerConfig schedulerConfig;
    private final List<SchedulerServer> standbys = new ArrayList<>();
    final List<FakeNode> nodes = new ArrayList<>();
    final List<GargamelClient> clients = new ArrayList<>();
    private final boolean tcp;
    private final List<String> initialHosts = new ArrayList<>();
    private final Consumer<JChannel> faults;
    private final Mode mode;

    private TestCluster(boolean tcp, Mode mode, int maxInFlight, int nodeCount, int workers, Consumer<JChannel> faults)
            throws Exception {
        this.tcp = tcp;
        this.faults = faults;
        this.mode = mode;
        GroupSettings control;
        if (tcp) {
            for (int i = 0; i <= nodeCount; i++) {
                initialHosts.add("127.0.0.1:" + LoopbackPorts.pick());
            }
            control = GroupSettings.tcp(initialHosts.get(0), initialHosts);
        } else {
            control = GroupSettings.inMemory();
        }
        schedulerConfig = new SchedulerConfig(control, mode, Isolation.PSI, TpccRules.temporaryFile(), maxInFlight);
        scheduler = new SchedulerServer(schedulerConfig);
        try {
            scheduler.start(faults);
            for (int i = 1; i <= nodeCount; i++) {
                addNode("node-" + i, workers);
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    static TestCluster inMemory(int nodes, int workers) throws Exception {
        return new TestCluster(false, Mode.GARGAMEL, 100_000, nodes, workers, channel -> {});
    }

    static TestCluster inMemory(Mode mode, int maxInFlight, int nodes, int workers, Consumer<JChannel> faults)
            throws Exception {
        return new TestCluster(false, mode, maxInFlight, nodes, workers, faults);
    }

    static TestCluster tcp(int nodes, int workers) throws Exception {
        return new TestCluster(true, Mode.GARGAMEL, 100_000, nodes, workers, channel -> {});
    }

    GroupConfig group(int port) {
        if (!tcp) {
            return GroupConfig.inMemory();
        }
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String host : initialHosts) {
            hosts.add(GroupConfig.parseHostPort(host));
        }
        return GroupConfig.tcp("127.0.0.1", port, hosts);
    }

    FakeNode addNode(String name, int workers) throws Exception {
        return addNode(name, workers, FakeNode.profile(mode));
    }

    /** A node that says it runs {@code profile} (a test of the scheduler's refusal of a node that differs). */
    FakeNode addNode(String name, int workers, ClusterProfile profile) throws Exception {
        int port = tcp
                ? GroupConfig.parseHostPort(initialHosts.get(nodes.size() + 1)).getPort()
                : 0;
        FakeNode node = new FakeNode(name, workers, group(port), bus, faults, profile);
        nodes.add(node);
        return node;
    }

    GargamelClient client(ClientOptions options) throws Exception {
        GargamelClient client = GargamelClient.connect(group(0), options);
        clients.add(client);
        return client;
    }

    GargamelClient client() throws Exception {
        return client(ClientOptions.defaults());
    }

    /** A client that sees the scheduler with every node announced. */
    GargamelClient readyClient(ClientOptions options) throws Exception {
        GargamelClient client = client(options);
        client.awaitNodes(nodes.size(), Duration.ofSeconds(20));
        return client;
    }

    /** A second scheduler in the group: it stands by while the current one is here (closed with the cluster). */
    SchedulerServer startStandby() throws Exception {
        SchedulerServer standby = new SchedulerServer(schedulerConfig);
        standbys.add(standby);
        standby.start(faults);
        return standby;
    }

    /** A new scheduler process in place of the current one, which is closed first (a failover). */
    SchedulerServer replaceScheduler() throws Exception {
        scheduler.close();
        scheduler = new SchedulerServer(schedulerConfig);
        scheduler.start(faults);
        return scheduler;
    }

    @Override
    public void close() {
        for (GargamelClient client : clients) {
            client.close();
        }
        for (FakeNode node : nodes) {
            node.close();
        }
        scheduler.close();
        for (SchedulerServer standby : standbys) {
            standby.close();
        }
    }
}
