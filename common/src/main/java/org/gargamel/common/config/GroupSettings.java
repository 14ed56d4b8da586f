package org.gargamel.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.group.GroupConfig;

/**
 * One JGroups channel in a configuration file:
 * <pre>
 * transport: tcp            # or in-memory (tests in one JVM)
 * bind: 127.0.0.1:7800      # host:port this process listens on (port 0: any free port)
 * initialHosts: [127.0.0.1:7800, 127.0.0.1:7801]   # members to contact when joining; no multicast
 * </pre>
 */
public record GroupSettings(String transport, String bind, List<String> initialHosts) {

    @JsonCreator
    public GroupSettings(
            @JsonProperty("transport") String transport,
            @JsonProperty("bind") String bind,
            @JsonProperty("initialHosts") List<String> initialHosts) {
        this.transport = transport == null ? "tcp" : transport;
        this.bind = bind;
        this.initialHosts = initialHosts == null ? List.of() : List.copyOf(initialHosts);
    }

    /** Checks the settings and builds the channel configuration; {@code key} names them in messages. */
    public GroupConfig toGroupConfig(String key) {
        switch (transport) {
            case "in-memory" -> {
                return GroupConfig.inMemory();
            }
            case "tcp" -> {
                // checked below
            }
            default ->
                throw new ConfigException("key '" + key + ".transport': '" + transport + "' is not tcp or in-memory");
        }
        if (bind == null) {
            throw new ConfigException("key '" + key + ".bind' is required with transport tcp (host:port)");
        }
        InetSocketAddress address;
        try {
            address = bind.endsWith(":0")
                    ? InetSocketAddress.createUnresolved(bind.substring(0, bind.length() - 2), 0)
                    : GroupConfig.parseHostPort(bind);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("key '" + key + ".bind': " + e.getMessage());
        }
        if (initialHosts.isEmpty()) {
            throw new ConfigException("key '" + key + ".initialHosts' needs at least one host:port with transport tcp");
        }
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String host : initialHosts) {
            try {
                hosts.add(GroupConfig.parseHostPort(host));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("key '" + key + ".initialHosts': " + e.getMessage());
            }
        }
        return GroupConfig.tcp(address.getHostString(), address.getPort(), hosts);
    }

    public static GroupSettings tcp(String bind, List<String> initialHosts) {
        return new GroupSettings("tcp", bind, initialHosts);
    }

    public static GroupSettings inMemory() {
        return new GroupSettings("in-memory", null, List.of());
    }
}
