package org.gargamel.node;

import java.util.List;
import java.util.Properties;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Secrets;

/**
 * Where this node's PostgreSQL is and how the node logs in to it (keys {@code jdbcUrl}, {@code user},
 * {@code password}), and the other replicas' databases it is rebuilt from when it must be (key {@code peers};
 * docs/node.md, Rebuild). A section of {@link NodeConfig}; its {@link #toString} masks every password.
 */
public record DatabaseSettings(String jdbcUrl, String user, String password, List<String> peers) {
    public DatabaseSettings {
        peers = List.copyOf(peers);
    }

    /** Key {@code jdbcUrl} is a PostgreSQL URL, and the login is given either in it or as keys, not both. */
    void validateLogin() {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new ConfigException("key 'jdbcUrl' is required and must start with jdbc:postgresql: (got "
                    + (jdbcUrl == null ? "nothing" : "'" + jdbcUrl + "'") + ")");
        }
        if (password != null && user == null) {
            throw new ConfigException("key 'password' needs key 'user'");
        }
        if ((user != null && jdbcUrl.matches(".*[?&]user=.*"))
                || (password != null && jdbcUrl.matches(".*[?&]password=.*"))) {
            throw new ConfigException("keys 'user'/'password' and 'jdbcUrl' contradict each other: give the user and "
                    + "password either in the URL or as keys, not both");
        }
    }

    /** Every peer is a PostgreSQL URL other than this node's own. */
    void validatePeers() {
        for (String peer : peers) {
            if (peer == null || !peer.startsWith("jdbc:postgresql:")) {
                throw new ConfigException("key 'peers': each one is a JDBC URL starting with jdbc:postgresql: (got "
                        + (peer == null ? "nothing" : "'" + Secrets.maskUrl(peer) + "'") + ")");
            }
            if (peer.equals(jdbcUrl)) {
                throw new ConfigException("key 'peers' names this node's own database, " + Secrets.maskUrl(peer)
                        + ": a replica cannot be rebuilt from itself");
            }
        }
    }

    /** The login given as keys, as JDBC connection properties (empty when it is in the URL, or there is none). */
    Properties login() {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        return properties;
    }

    @Override
    public String toString() {
        return "jdbcUrl=" + Secrets.maskUrl(jdbcUrl) + ", user=" + user + ", password="
                + (password == null ? "null" : "***") + ", peers="
                + peers.stream().map(Secrets::maskUrl).toList();
    }
}
