package org.gargamel.launcher.cluster;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.GargamelExecutor;

/**
 * A Gargamel cluster that runs elsewhere (docker-compose, other hosts): only the client library joins it, through
 * the scheduler's address. The nodes keep their own statistics files; this side sees the calls' outcomes.
 */
public final class RemoteGargamelCluster implements GargamelCluster {
    private final GargamelClient client;
    /** The nodes the cluster has (one per replica): quiescence waits until all of them serve. */
    private final int nodes;

    private RemoteGargamelCluster(GargamelClient client, int nodes) {
        this.client = client;
        this.nodes = nodes;
    }

    /**
     * Joins through {@code schedulers} (any one that answers is enough: the group tells the client every member, and it
     * follows the active scheduler from then on) and waits until the active scheduler knows {@code nodes} nodes.
     */
    public static RemoteGargamelCluster connect(List<InetSocketAddress> schedulers, String bindAddress, int nodes)
            throws Exception {
        GargamelClient client =
                GargamelClient.connect(GroupConfig.tcp(bindAddress, 0, schedulers), ClientOptions.defaults());
        try {
            client.awaitNodes(nodes, Duration.ofSeconds(60));
        } catch (TimeoutException e) {
            DrainStatus status = client.drainStatus(Duration.ofSeconds(5));
            client.close();
            throw new IllegalStateException(
                    "the scheduler (through " + schedulers + ") knows " + status.nodes() + " node(s), expected " + nodes
                            + " (one per --jdbc-url)",
                    e);
        }
        return new RemoteGargamelCluster(client, nodes);
    }

    @Override
    public CallExecutor executor() {
        return new GargamelExecutor(client);
    }

    @Override
    public GargamelClient client() {
        return client;
    }

    @Override
    public void onFailure(Runnable listener) {
        // A remote node's death shows as rejected calls (the scheduler names the node).
    }

    @Override
    public String failure() {
        return null;
    }

    @Override
    public void awaitQuiescence(Duration timeout) throws InterruptedException {
        try {
            client.awaitQuiescence(nodes, timeout); // a node back from a partition may still be catching up
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public ClusterStatistics stop() {
        close();
        return new ClusterStatistics(List.of());
    }

    @Override
    public void close() {
        client.close();
    }
}
