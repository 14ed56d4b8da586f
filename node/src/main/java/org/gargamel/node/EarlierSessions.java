package org.gargamel.node;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the sessions an earlier life of this node left open on its database, and waits until they are gone, before a
 * start reads anything. A node taken for departed (a partition cuts it off from its database too) may have sent a
 * worker's pipeline, COMMIT included, that is still in its socket's send buffer or on the wire when the node taints
 * itself and starts again in the same process, or when a new process starts after a kill: PostgreSQL would run it
 * after this start read the database, or after a rebuild truncated and copied it, and the replica would hold an
 * abandoned transaction nobody knows of. Once those backends are terminated, late bytes meet a closed socket.
 *
 * <p>Every connection of a node's pool carries the application name {@link #applicationName} (NodeBootstrap); its
 * reads' connections have another and are left alone, and so is a session of another role that took the name. A
 * jdbcUrl that names the sessions otherwise ({@code ApplicationName=...}) leaves them unrecognisable: the start says
 * so and goes on. Guarded by NodeServerTest.aStartingNodeEndsTheSessionsItsEarlierLifeLeftOpen.
 */
final class EarlierSessions {
    private static final Logger LOG = LoggerFactory.getLogger(EarlierSessions.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /**
     * This node's other sessions: on its database, of its own login (another role's session that merely took the name
     * is not this node's, and terminating it would be refused), under its name as PostgreSQL keeps it.
     */
    private static final String MATCH = "FROM pg_stat_activity WHERE datname = current_database()"
            + " AND pid <> pg_backend_pid() AND usesysid = (SELECT oid FROM pg_roles WHERE rolname = session_user)"
            + " AND application_name = ?";
    /** This session's name, and the node's name as PostgreSQL keeps one: its first 63 bytes (NAMEDATALEN - 1). */
    private static final String OWN_NAME =
            "SELECT application_name, left(?, 63) FROM pg_stat_activity WHERE pid = pg_backend_pid()";

    private EarlierSessions() {}

    /** The application name of node {@code node}'s own connections (workers, appliers, its database watch). */
    static String applicationName(String node) {
        return "gargamel " + node;
    }

    /**
     * Terminates every other session of {@code node} on {@code connection}'s database and waits until none is left;
     * commits. Fails if they outlive {@link #TIMEOUT} (the start must not go on beside them).
     */
    static void end(Connection connection, String node) throws SQLException, InterruptedException {
        String name = ownName(connection, node);
        if (name == null) {
            return;
        }
        int ended;
        try (PreparedStatement terminate =
                connection.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) " + MATCH)) {
            terminate.setString(1, name);
            try (ResultSet rows = terminate.executeQuery()) {
                rows.next();
                ended = rows.getInt(1);
            }
        } catch (SQLException e) {
            throw new SQLException(
                    node + ": cannot end the sessions an earlier life of this node left open on its database: "
                            + e.getMessage(),
                    e.getSQLState(),
                    e);
        }
        connection.commit();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (remaining(connection, name) > 0) {
            if (System.nanoTime() > deadline) {
                throw new SQLException(node + ": sessions of an earlier life of this node still run on its database "
                        + TIMEOUT.toSeconds() + " s after they were terminated; the node does not start beside them");
            }
            Thread.sleep(50);
        }
        if (ended > 0) {
            LOG.warn(
                    "{}: ended {} session(s) an earlier life of this node left open on its database, before reading"
                            + " it (a COMMIT of theirs could land later)",
                    node,
                    ended);
        }
    }

    /**
     * The name this node's sessions carry in pg_stat_activity, or null (said in the log) if this session does not
     * carry the node's: the jdbcUrl names the sessions otherwise, and they cannot be told from others.
     */
    private static String ownName(Connection connection, String node) throws SQLException {
        try (PreparedStatement own = connection.prepareStatement(OWN_NAME)) {
            own.setString(1, applicationName(node));
            try (ResultSet rows = own.executeQuery()) {
                rows.next();
                String carried = rows.getString(1);
                String expected = rows.getString(2);
                connection.commit();
                if (expected.equals(carried)) {
                    return expected;
                }
                LOG.warn(
                        "{}: this node's sessions are named '{}', not '{}' (does its jdbcUrl set ApplicationName?):"
                                + " sessions an earlier life left open are not ended before it reads its database",
                        node,
                        carried,
                        expected);
                return null;
            }
        }
    }

    private static int remaining(Connection connection, String name) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement("SELECT count(*) " + MATCH)) {
            count.setString(1, name);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                int left = rows.getInt(1);
                connection.commit(); // a fresh snapshot of pg_stat_activity at the next look
                return left;
            }
        }
    }
}
