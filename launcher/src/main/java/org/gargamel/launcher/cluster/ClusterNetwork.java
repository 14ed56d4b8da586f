package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.util.List;
import org.gargamel.provisioning.PostgresCluster;

/**
 * Where the processes of a {@link LocalGargamelCluster} live on this machine's network: the address each binds its
 * groups to, what its command runs under, and the address its nodes reach this host's embedded PostgreSQL servers
 * at.
 */
public sealed interface ClusterNetwork {
    /** Every process on this host's loopback: the default. */
    ClusterNetwork LOOPBACK = new Loopback();

    /** The address process {@code name} (scheduler, node-N, frontend, or {@link #CLIENT}) binds its groups to. */
    String address(String process);

    /** What runs process {@code name}'s command: nothing, or {@code ip netns exec NS}. */
    List<String> launchPrefix(String process);

    /** {@code jdbcUrl} (a server on this host) as a node reaches it. */
    String databaseUrl(String jdbcUrl);

    /** The name {@link #address} takes for the clients in the launcher's own JVM. */
    String CLIENT = "client";

    /** Every process on 127.0.0.1, in this host's network namespace. */
    record Loopback() implements ClusterNetwork {
        @Override
        public String address(String process) {
            return "127.0.0.1";
        }

        @Override
        public List<String> launchPrefix(String process) {
            return List.of();
        }

        @Override
        public String databaseUrl(String jdbcUrl) {
            return jdbcUrl;
        }
    }

    /**
     * Each node in a network namespace of its own, {@code node-i} in host {@code i} of {@code namespaces}, so that a
     * partition can cut it off from everyone ({@link #cut}); the schedulers, the front end and the clients on this
     * host's address on the namespaces' bridge, as the embedded PostgreSQL servers are (started to trust the bridge's
     * network: {@link NetworkNamespaces#cidr}). A cut node loses its database too, as a machine whose link goes down
     * with the database beside it on another machine would.
     */
    record Namespaced(NetworkNamespaces namespaces, List<String> nodeNames) implements ClusterNetwork {
        public Namespaced {
            nodeNames = List.copyOf(nodeNames);
        }

        @Override
        public String address(String process) {
            int host = nodeNames.indexOf(process);
            return host < 0 ? namespaces.bridgeAddress() : namespaces.address(host + 1);
        }

        @Override
        public List<String> launchPrefix(String process) {
            int host = nodeNames.indexOf(process);
            return host < 0 ? List.of() : namespaces.inNamespace(host + 1);
        }

        @Override
        public String databaseUrl(String jdbcUrl) {
            return PostgresCluster.withHost(jdbcUrl, namespaces.bridgeAddress());
        }

        /** Takes node {@code node}'s link down: nothing reaches it, nothing leaves it. */
        public void cut(String node) throws IOException, InterruptedException {
            namespaces.cut(host(node));
        }

        /** Brings node {@code node}'s link up again. */
        public void heal(String node) throws IOException, InterruptedException {
            namespaces.heal(host(node));
        }

        private int host(String node) {
            int index = nodeNames.indexOf(node);
            if (index < 0) {
                throw new IllegalArgumentException(node + " is not a node of this cluster (" + nodeNames + ")");
            }
            return index + 1;
        }
    }
}
