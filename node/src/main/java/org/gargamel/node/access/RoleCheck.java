package org.gargamel.node.access;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.ConfigException;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * What a node checks of its roles when it starts (docs/frontend.md, Security): that it can log in as each, that none
 * is privileged unless the configuration allows it, and that its own login may {@code SET ROLE} to each (a call runs
 * its procedure after {@code SET LOCAL ROLE}). It also lets each role reach the capture's functions (the capture
 * trigger runs as the role, and spills a large transaction's changes through {@code gargamel.spill}).
 */
public final class RoleCheck {
    /**
     * Why a role is privileged, one text per reason, as seen from a session logged in as the role: what a front-end
     * user mapped to it could do to the server or to the node beyond the application's tables. The node's own login
     * is {@code ?}: a member of it could take over the node's connections.
     */
    static final String PRIVILEGES = "SELECT array_remove(ARRAY["
            + "CASE WHEN r.rolsuper THEN 'a superuser' END, "
            + "CASE WHEN r.rolcreaterole THEN 'may create roles' END, "
            + "CASE WHEN r.rolreplication THEN 'a replication role' END, "
            + "CASE WHEN r.rolbypassrls THEN 'bypasses row-level security' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_read_server_files', 'MEMBER') THEN 'reads the server''s files' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER') THEN 'writes the server''s files' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER') "
            + "THEN 'runs programs on the server' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_signal_backend', 'MEMBER') THEN 'may signal other sessions' END, "
            + "CASE WHEN pg_has_role(r.oid, ?, 'MEMBER') THEN 'may act as the node''s own login' END"
            + "], NULL) FROM pg_roles r WHERE r.rolname = current_user";

    private RoleCheck() {}

    /**
     * Checks every role of {@code roles} through {@code reads}, with {@code own} the node's own connection (its login
     * is the one a role must not be a member of). Throws a ConfigException naming the role and what is wrong.
     */
    public static void check(String node, Connection own, ReadConnections reads, RoleLogins roles) throws SQLException {
        String nodeLogin;
        try (Statement statement = own.createStatement();
                ResultSet rows = statement.executeQuery("SELECT session_user")) {
            rows.next();
            nodeLogin = rows.getString(1);
        }
        for (String role : roles.names()) {
            List<String> reasons = new ArrayList<>();
            try (Connection connection = reads.login(role);
                    PreparedStatement statement = connection.prepareStatement(PRIVILEGES)) {
                statement.setString(1, nodeLogin);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    for (Object reason : (Object[]) rows.getArray(1).getArray()) {
                        reasons.add((String) reason);
                    }
                }
            } catch (SQLException e) {
                throw new ConfigException(node + " cannot log in as role " + role + " (key 'roles'): " + e.getMessage()
                        + " (SQLSTATE " + e.getSQLState() + ")");
            }
            if (!reasons.isEmpty() && !roles.allowPrivileged()) {
                throw new ConfigException(node + ": role " + role + " (key 'roles') is privileged: it "
                        + String.join(", ", reasons) + ". A front-end user mapped to it could reach beyond the "
                        + "application; map users to an unprivileged role, or say allowPrivilegedRoles: true");
            }
            try (PreparedStatement statement = own.prepareStatement(
                    "SELECT pg_has_role(session_user, ?, 'MEMBER') OR (SELECT rolsuper FROM pg_roles "
                            + "WHERE rolname = session_user)")) {
                statement.setString(1, role);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    if (!rows.getBoolean(1)) {
                        throw new ConfigException(node + ": its login " + nodeLogin + " cannot SET ROLE " + role
                                + " (key 'roles'), which every call as that role needs: GRANT " + role + " TO "
                                + nodeLogin);
                    }
                }
            }
            try (Statement statement = own.createStatement()) {
                statement.execute("GRANT USAGE ON SCHEMA " + WriteSetCapture.SCHEMA + " TO " + quote(role));
            }
        }
    }

    /** {@code role} as a quoted SQL identifier. */
    public static String quote(String role) {
        return '"' + role.replace("\"", "\"\"") + '"';
    }
}
