package org.gargamel.node.access;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Connections logged in as the roles a node serves, on which its ad-hoc reads run (docs/frontend.md, Security): never
 * on a worker's connection, whose session state every later call of that worker would inherit, and never as the
 * node's own login. A read's connection is PostgreSQL's own sandbox: its session user is the role, so the role cannot
 * {@code SET ROLE} to anything the role itself could not, and what a read leaves behind in the session (settings,
 * advisory locks, prepared statements, temporary tables, held cursors, LISTEN) is wiped by {@code DISCARD ALL} before
 * the connection serves another read ({@link #release}). A connection that cannot be wiped is closed.
 *
 * <p>At most as many connections per role as reads run at once (one per worker at most); idle ones are kept for the
 * next read. Thread-safe: workers borrow and release concurrently.
 */
public final class ReadConnections implements AutoCloseable {
    private final String url;
    private final Map<String, String> passwords;
    private final String node;
    private final long maxResultBytes;
    private final Map<String, ArrayDeque<Connection>> idle = new HashMap<>();
    private boolean closed;

    /**
     * Reads through {@code jdbcUrl} (the node's own database; a user or password in it is ignored) as the roles of
     * {@code roles}, each connection buffering at most {@code maxResultBytes} of one result (pgjdbc's
     * {@code maxResultBuffer}: beyond, the read fails instead of filling the node's memory).
     */
    public ReadConnections(String node, String jdbcUrl, RoleLogins roles, long maxResultBytes) {
        this.node = node;
        this.url = withoutCredentials(jdbcUrl);
        this.passwords = roles.passwords();
        this.maxResultBytes = maxResultBytes;
    }

    /** With results of up to 64 MiB (tests, and the node's start-up checks, which read little). */
    public ReadConnections(String node, String jdbcUrl, RoleLogins roles) {
        this(node, jdbcUrl, roles, 64L << 20);
    }

    /** Whether this node serves {@code role}. */
    public boolean serves(String role) {
        return passwords.containsKey(role);
    }

    /** An idle connection logged in as {@code role}, or a new one. The role must be {@linkplain #serves served}. */
    public Connection borrow(String role) throws SQLException {
        Connection idleOne;
        synchronized (this) {
            if (closed) {
                throw new SQLException(node + " is stopping", "57P01");
            }
            ArrayDeque<Connection> connections = idle.get(role);
            idleOne = connections == null ? null : connections.poll();
        }
        // Another session of the role may have terminated an idle one (PostgreSQL lets a role signal its own).
        if (idleOne != null && idleOne.isValid(2)) {
            return idleOne;
        }
        if (idleOne != null) {
            closeQuietly(idleOne);
        }
        return login(role);
    }

    /** Logs in as {@code role}, auto-commit; every transaction is opened by the read explicitly. */
    Connection login(String role) throws SQLException {
        if (!passwords.containsKey(role)) {
            throw new SQLException(node + " serves no role \"" + role + "\" (its configuration's roles)", "42501");
        }
        Properties properties = new Properties();
        properties.setProperty("user", role);
        if (passwords.get(role) != null) {
            properties.setProperty("password", passwords.get(role));
        }
        properties.setProperty("ApplicationName", "gargamel " + node + " reads");
        properties.setProperty("connectTimeout", "10");
        properties.setProperty("maxResultBuffer", Long.toString(maxResultBytes));
        Connection connection = DriverManager.getConnection(url, properties);
        connection.setAutoCommit(true);
        return connection;
    }

    /**
     * Takes {@code connection} back after a read: wiped with {@code DISCARD ALL} (outside any transaction; the read
     * ended its own) and kept, or closed if that fails.
     */
    public void release(String role, Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK"); // a no-op after a read that ended its transaction
            statement.execute("DISCARD ALL");
        } catch (SQLException e) {
            closeQuietly(connection);
            return;
        }
        synchronized (this) {
            if (!closed) {
                idle.computeIfAbsent(role, r -> new ArrayDeque<>()).push(connection);
                return;
            }
        }
        closeQuietly(connection);
    }

    /** Closes {@code connection} instead of keeping it (it broke). */
    public void discard(Connection connection) {
        closeQuietly(connection);
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            idle.values().forEach(connections -> connections.forEach(ReadConnections::closeQuietly));
            idle.clear();
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing anyway: nothing is pending on a read connection between reads.
        }
    }

    /** {@code jdbcUrl} without its {@code user} and {@code password} parameters, which would override a login's. */
    static String withoutCredentials(String jdbcUrl) {
        int query = jdbcUrl.indexOf('?');
        if (query < 0) {
            return jdbcUrl;
        }
        StringBuilder kept = new StringBuilder();
        for (String parameter : jdbcUrl.substring(query + 1).split("&", -1)) {
            String key = parameter.contains("=") ? parameter.substring(0, parameter.indexOf('=')) : parameter;
            if (key.equalsIgnoreCase("user") || key.equalsIgnoreCase("password") || parameter.isEmpty()) {
                continue;
            }
            kept.append(kept.length() == 0 ? "?" : "&").append(parameter);
        }
        return jdbcUrl.substring(0, query) + kept;
    }
}
