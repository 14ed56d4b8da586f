package org.gargamel.launcher.cluster;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.ClusterSecurity;
import org.gargamel.common.group.GroupConfig;

/**
 * The clients a {@link LocalGargamelCluster} holds in this JVM: one of the scheduler(s), or with several sites one per
 * site in the plan's order; and waiting until they are all quiet.
 *
 * <p>Invariant: with site clients, the cluster's {@link #client()} is the first of them (or not yet set, while they
 * connect); {@link #close} closes every client connected exactly once, also after a failed start.
 */
final class ClusterClients {
    private final ClusterPlan plan;
    private GargamelClient client;
    /** With several sites: a client per site, in the plan's order ({@link #client} is the first site's). */
    private final List<GargamelClient> siteClients = new ArrayList<>();

    private volatile Duration shippingDrain;

    ClusterClients(ClusterPlan plan) {
        this.plan = plan;
    }

    /** The cluster's client: of its only site, or of the first site. */
    void setClient(GargamelClient client) {
        this.client = client;
    }

    void addSiteClient(GargamelClient site) {
        siteClients.add(site);
    }

    GargamelClient client() {
        return client;
    }

    GargamelClient client(int site) {
        return siteClients.get(site);
    }

    /** See {@link LocalGargamelCluster#shippingDrain}. */
    Duration shippingDrain() {
        return shippingDrain;
    }

    /**
     * A client of the scheduler(s) at {@code ports} (of {@code site}, or null), {@code distance} from them one way,
     * once they see {@code nodes} nodes.
     */
    GargamelClient connect(int[] ports, Path secret, String site, int nodes, Duration distance)
            throws InterruptedException {
        GargamelClient connected = null;
        try {
            connected = GargamelClient.connect(
                    GroupConfig.tcp(plan.network().address(ClusterNetwork.CLIENT), 0, schedulerHosts(ports))
                            .withSecurity(secret == null ? null : ClusterSecurity.fromSecretFile(secret)),
                    ClientOptions.defaults(),
                    site,
                    distance);
            connected.awaitNodes(nodes, ChildProcesses.START_TIMEOUT);
            return connected;
        } catch (TimeoutException e) {
            connected.close();
            throw new IllegalStateException(
                    "the cluster did not come together: " + e.getMessage() + "; see the logs in " + plan.directory(),
                    e);
        } catch (InterruptedException | RuntimeException e) {
            if (connected != null) {
                connected.close();
            }
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot connect to the scheduler" + (site == null ? "" : " of " + site) + ": " + e.getMessage(), e);
        }
    }

    /** The schedulers listening on {@code ports}: on this host's address, as this JVM's clients are in every network. */
    private List<InetSocketAddress> schedulerHosts(int[] ports) {
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int port : ports) {
            hosts.add(InetSocketAddress.createUnresolved(plan.network().address(ClusterNetwork.CLIENT), port));
        }
        return hosts;
    }

    /** See {@link LocalGargamelCluster#awaitQuiescence}. */
    void awaitQuiescence(Duration timeout) throws InterruptedException {
        try {
            if (siteClients.isEmpty()) {
                client.awaitQuiescence(timeout);
            } else {
                // Twice round: a site counts the other sites' calls it has read from the schedule log until its nodes
                // applied them, and one may read a last entry only after another site's drain came back empty.
                for (int round = 0; round < 2; round++) {
                    for (GargamelClient site : siteClients) {
                        site.awaitQuiescence(timeout);
                    }
                }
                if (plan.sites().acknowledgement() == Acknowledgement.SITE) {
                    // Quiet at every site's scheduler; what the sites shipped each other may still be on its way.
                    shippingDrain = ShippingDrain.await(plan.jdbcUrls(), timeout);
                }
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException(e.getMessage() + "; see the logs in " + plan.directory(), e);
        }
    }

    void close() {
        if (siteClients.isEmpty() && client != null) {
            client.close();
        }
        siteClients.forEach(GargamelClient::close);
    }
}
