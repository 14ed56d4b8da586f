package org.gargamel.common.group;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * Where one JGroups channel binds and how it finds its peers (DESIGN.md §6): TCP on an explicit address with
 * a static list of initial hosts (no multicast), or an in-memory transport for tests in one JVM.
 *
 * @param bindPort     0 picks a free port (clients)
 * @param initialHosts the members to contact when joining (the scheduler and the nodes); may include this one
 * @param security     the cluster's secret: members authenticated and messages encrypted; null: neither
 */
public record GroupConfig(
        Transport transport,
        String bindAddress,
        int bindPort,
        List<InetSocketAddress> initialHosts,
        ClusterSecurity security) {

    public enum Transport {
        /** TCP + TCPPING: real sockets, works across hosts. */
        TCP,
        /** SHARED_LOOPBACK: every channel of the JVM with the same cluster name; for tests. */
        IN_MEMORY
    }

    public GroupConfig {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (bindPort < 0 || bindPort > 65535) {
            throw new IllegalArgumentException("bind port " + bindPort + " is not in [0, 65535]");
        }
        initialHosts = List.copyOf(initialHosts);
        if (transport == Transport.TCP && initialHosts.isEmpty()) {
            throw new IllegalArgumentException("a TCP group needs at least one initial host");
        }
    }

    /** Without cluster security (see {@link #withSecurity}). */
    public GroupConfig(Transport transport, String bindAddress, int bindPort, List<InetSocketAddress> initialHosts) {
        this(transport, bindAddress, bindPort, initialHosts, null);
    }

    public static GroupConfig tcp(String bindAddress, int bindPort, List<InetSocketAddress> initialHosts) {
        return new GroupConfig(Transport.TCP, bindAddress, bindPort, initialHosts);
    }

    public static GroupConfig inMemory() {
        return new GroupConfig(Transport.IN_MEMORY, "127.0.0.1", 0, List.of());
    }

    /** The same group seen from another bind port (a node's second channel, a client's ephemeral port). */
    public GroupConfig withBindPort(int port) {
        return new GroupConfig(transport, bindAddress, port, initialHosts, security);
    }

    public GroupConfig withInitialHosts(List<InetSocketAddress> hosts) {
        return new GroupConfig(transport, bindAddress, bindPort, hosts, security);
    }

    /** The same group with members authenticated and messages encrypted by {@code clusterSecurity} (null: neither). */
    public GroupConfig withSecurity(ClusterSecurity clusterSecurity) {
        return new GroupConfig(transport, bindAddress, bindPort, initialHosts, clusterSecurity);
    }

    /** Parses {@code host:port}; the message names the offending text. */
    public static InetSocketAddress parseHostPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not host:port");
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (port <= 0 || port > 65535) {
                throw new IllegalArgumentException("port of '" + text + "' is not in [1, 65535]");
            }
            return InetSocketAddress.createUnresolved(text.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port of '" + text + "' is not a number");
        }
    }
}
