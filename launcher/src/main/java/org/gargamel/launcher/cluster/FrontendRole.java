package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.Identifiers;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * The database role a local cluster's front-end user runs as (docs/frontend.md, Security): an unprivileged role of the
 * user's name on every replica, which may execute the rules' procedures and use the application's tables as those
 * procedures do (SELECT, INSERT, UPDATE, DELETE on the tables of schema {@code public}, USAGE on its sequences), and
 * nothing of the server beyond. Its password is made for the run and kept in a file only the owner reads; the nodes
 * log in with it for the user's ad-hoc reads.
 */
public final class FrontendRole {
    private FrontendRole() {}

    /**
     * Creates (or updates) role {@code role} on every replica of {@code jdbcUrls}, granted what {@code procedures}
     * need, and writes its password to {@code passwordFile}. Refuses a role that exists as a superuser (a user named
     * like the replicas' own administrator), naming the replica.
     */
    public static void create(List<String> jdbcUrls, String role, Set<String> procedures, Path passwordFile)
            throws IOException {
        String password = FrontendPlan.newPassword();
        Files.deleteIfExists(passwordFile);
        try {
            Files.createFile(
                    passwordFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory's own protection is all there is.
        }
        Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
        String quoted = Identifiers.quote(role);
        for (String url : jdbcUrls) {
            try (Connection connection = JdbcConnections.connect(url);
                    Statement statement = connection.createStatement()) {
                try (PreparedStatement existing =
                        connection.prepareStatement("SELECT rolsuper FROM pg_roles WHERE rolname = ?")) {
                    existing.setString(1, role);
                    try (ResultSet rows = existing.executeQuery()) {
                        if (rows.next() && rows.getBoolean(1)) {
                            throw new IllegalArgumentException("the front end's user " + role + " would run as the "
                                    + "database role of its name, which is a superuser on " + Secrets.maskUrl(url)
                                    + ": choose another user name (--user)");
                        }
                    }
                }
                statement.execute("DO $$ BEGIN CREATE ROLE " + quoted + " LOGIN; "
                        + "EXCEPTION WHEN duplicate_object THEN NULL; END $$");
                statement.execute("ALTER ROLE " + quoted + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                        + "NOBYPASSRLS PASSWORD '" + password + "'");
                statement.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + quoted);
                statement.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO " + quoted);
                try (PreparedStatement routines = connection.prepareStatement("SELECT p.oid::regprocedure::text "
                        + "FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.proname = ANY (?)")) {
                    routines.setArray(1, connection.createArrayOf("text", procedures.toArray()));
                    try (ResultSet rows = routines.executeQuery()) {
                        while (rows.next()) {
                            try (Statement grant = connection.createStatement()) {
                                grant.execute("GRANT EXECUTE ON ROUTINE " + rows.getString(1) + " TO " + quoted);
                            }
                        }
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "cannot create the front end's database role " + role + ": " + e.getMessage() + " (SQLSTATE "
                                + e.getSQLState() + ")",
                        e);
            }
        }
    }
}
