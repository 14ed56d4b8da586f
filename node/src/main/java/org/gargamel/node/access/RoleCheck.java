package org.gargamel.node.access;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.jdbc.Identifiers;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * What a node checks of its roles when it starts (docs/frontend.md, Security): that it can log in as each, that none
 * is privileged unless the configuration allows it, and that its own login may {@code SET ROLE} to each (a call runs
 * its procedure after {@code SET LOCAL ROLE}). It also lets each role reach the capture's functions (the capture
 * trigger runs as the role, and spills a large transaction's changes through {@code gargamel.spill}).
 */
public final class RoleCheck {
    /**
     * Why a role is privileged, one text per reason (its own attributes, or those of any role it is a member of), as seen from a session logged in as the role: what a front-end
     * user mapped to it could do to the server or to the node beyond the application's tables. The node's own login
     * is {@code ?}: a member of it could take over the node's connections.
     */
    static final String PRIVILEGES = "SELECT array_remove(ARRAY["
            + "CASE WHEN r.rolsuper THEN 'a superuser' END, "
            + "CASE WHEN EXISTS (SELECT 1 FROM pg_roles s WHERE s.rolsuper AND s.oid <> r.oid "
            + "AND pg_has_role(r.oid, s.oid, 'MEMBER')) THEN 'a member of a superuser' END, "
            + "CASE WHEN EXISTS (SELECT 1 FROM pg_roles s WHERE (s.rolcreaterole OR s.rolreplication OR s.rolbypassrls) "
            + "AND pg_has_role(r.oid, s.oid, 'MEMBER')) THEN 'may create roles, replicate or bypass row security' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_read_server_files', 'MEMBER') THEN 'reads the server''s files' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER') THEN 'writes the server''s files' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER') "
            + "THEN 'runs programs on the server' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_signal_backend', 'MEMBER') THEN 'may signal other sessions' END, "
            + "CASE WHEN pg_has_role(r.oid, 'pg_write_all_data', 'MEMBER') THEN 'may write every table' END, "
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
        boolean autoCommit = own.getAutoCommit();
        own.setAutoCommit(false); // SET LOCAL ROLE below is tried under a savepoint, rolled back to it
        try {
            checkEach(node, own, reads, roles, nodeLogin);
        } finally {
            own.setAutoCommit(autoCommit);
        }
    }

    private static void checkEach(
            String node, Connection own, ReadConnections reads, RoleLogins roles, String nodeLogin)
            throws SQLException {
        for (String role : roles.names()) {
            List<String> reasons = new ArrayList<>();
            Connection connection;
            try {
                connection = reads.login(role);
            } catch (SQLException e) {
                throw new ConfigException(node + " cannot log in as role " + role + " (key 'roles'): " + e.getMessage()
                        + " (SQLSTATE " + e.getSQLState() + ")");
            }
            try (connection;
                    PreparedStatement statement = connection.prepareStatement(PRIVILEGES)) {
                statement.setString(1, nodeLogin);
                try (ResultSet rows = statement.executeQuery()) {
                    rows.next();
                    for (Object reason : (Object[]) rows.getArray(1).getArray()) {
                        reasons.add((String) reason);
                    }
                }
            }
            if (!reasons.isEmpty() && !roles.allowPrivileged()) {
                throw new ConfigException(node + ": role " + role + " (key 'roles') is privileged: it is "
                        + String.join(", ", reasons) + ". A front-end user mapped to it could reach beyond the "
                        + "application; map users to an unprivileged role, or say allowPrivilegedRoles: true");
            }
            java.sql.Savepoint before = own.setSavepoint();
            try (Statement statement = own.createStatement()) {
                statement.execute("SET LOCAL ROLE " + Identifiers.quote(role)); // what every call as the role does
            } catch (SQLException e) {
                throw new ConfigException(node + ": its login " + nodeLogin + " cannot SET ROLE " + role + " (key "
                        + "'roles'), which every call as that role needs (" + e.getMessage() + "): GRANT " + role
                        + " TO " + nodeLogin);
            } finally {
                own.rollback(before); // the role back, and nothing else of the caller's transaction undone
            }
            try (Statement statement = own.createStatement()) {
                statement.execute("GRANT USAGE ON SCHEMA " + WriteSetCapture.SCHEMA + " TO " + Identifiers.quote(role));
            }
        }
    }
}
