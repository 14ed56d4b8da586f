package org.gargamel.node.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.access.RoleCheck;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;
import org.gargamel.provisioning.PostgresCluster;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Ad-hoc queries on real PostgreSQL, on connections logged in as the query's role: rows with parameters of declared
 * and inferred types, a describe that runs nothing, and the guards: a command that would outlive the transaction on the
 * connection (SET, COMMIT) is not run, two statements are refused, a write fails READ ONLY, a slow query is cancelled by
 * the timeout, a node with ad-hoc reads turned off says so; the role's privileges refuse what it may not do (a table
 * not granted, the server's files, a superuser's session, settings only a superuser sets, another role); what a read
 * leaves in its session (settings, advisory locks) is gone before the next; a read without a role, or of a role the
 * node does not serve, is refused; and a privileged role is refused when the node starts. After each, the next query
 * is served.
 */
@Tag("integration")
class AdHocRunnerTest {
    private static final AdHocReads ON = new AdHocReads(true, 1);
    private static final String ROLE = "reader";
    private static PostgresCluster server;
    private static ReadConnections reads;

    @BeforeAll
    static void start() throws SQLException {
        server = PostgresCluster.embedded(1);
        try (Connection connection = server.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE item (id integer PRIMARY KEY, note text)");
            statement.execute("INSERT INTO item VALUES (1, 'one'), (2, 'it''s \\ two'), (3, NULL)");
            statement.execute("CREATE TABLE secret (id integer PRIMARY KEY)");
            statement.execute("CREATE SCHEMA gargamel"); // as capture installs it: RoleCheck lets a role use it
            statement.execute("CREATE SEQUENCE item_seq");
            statement.execute("CREATE ROLE " + ROLE + " LOGIN");
            statement.execute("GRANT SELECT ON item TO " + ROLE);
            statement.execute("GRANT USAGE ON SEQUENCE item_seq TO " + ROLE);
        }
        reads = new ReadConnections(
                "node-1", server.jdbcUrl(0), new RoleLogins(List.of(RoleLogin.trusted(ROLE)), false));
    }

    @AfterAll
    static void stop() {
        reads.close();
        server.close();
    }

    private static CallOutcome run(AdHocQuery query, AdHocReads settings) {
        return run(ProcedureCall.adHoc(query).asRole(ROLE), settings);
    }

    private static CallOutcome run(ProcedureCall query, AdHocReads settings) {
        Execute call = new Execute(1, 0, true, new long[0], UUID.randomUUID(), 7, query);
        return AdHocRunner.run(reads, call, settings, "node-1");
    }

    private static AdHocQuery query(String sql, List<Integer> types, String... values) {
        return AdHocQuery.run(sql, types, Arrays.asList(values));
    }

    @Test
    void rowsWithParametersAndADescribeThatRunsNothing() {
        CallOutcome rows = run(
                query("SELECT id, note FROM item WHERE id >= $1 AND note = $2", List.of(23, 0), "2", "it's \\ two"),
                ON);
        assertEquals(CallOutcome.Status.COMMITTED, rows.status(), rows.toString());
        assertEquals(List.of(List.of("2", "it's \\ two")), rows.rows().rows());
        assertEquals(23, rows.rows().columns().get(0).typeOid());
        assertEquals("note", rows.rows().columns().get(1).name());
        CallOutcome nulls = run(
                AdHocQuery.run(
                        "SELECT count(*) FROM item WHERE note IS NOT DISTINCT FROM $1",
                        List.of(25),
                        Arrays.asList(new String[] {null})),
                ON);
        assertEquals("1", nulls.rows().rows().get(0).get(0));
        CallOutcome described =
                run(AdHocQuery.describe("SELECT note, id + $2 AS later FROM item WHERE id = $1", List.of()), ON);
        assertEquals(CallOutcome.Status.COMMITTED, described.status(), described.toString());
        assertEquals("23,23", described.result());
        assertEquals(List.of(), described.rows().rows());
        assertEquals("later", described.rows().columns().get(1).name());
        assertEquals(1, preparedStatements(), "no prepared statement is left on the connection but the read's own");
    }

    @Test
    void nothingButOneQueryRunsAndNothingOutlivesIt() throws SQLException {
        try (WorkerConnection worker =
                WorkerConnection.dedicate("node-1 worker 0", JdbcConnections.connect(server.jdbcUrl(0)))) {
            for (String command : List.of(
                    "SET search_path = nowhere",
                    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
                    "COMMIT",
                    "DISCARD ALL")) {
                CallOutcome refused = run(query(command, List.of()), ON);
                assertEquals(CallOutcome.Status.USER_ABORTED, refused.status(), command);
                assertEquals("42601", refused.sqlState(), command + ": " + refused.message());
            }
            CallOutcome two = run(query("SELECT 1; DELETE FROM item", List.of()), ON);
            assertEquals("42601", two.sqlState(), two.message());
            CallOutcome write = run(query("DELETE FROM item", List.of()), ON);
            assertEquals("42601", write.sqlState(), write.message()); // no query: not a subquery either
            CallOutcome hidden = run(query("WITH d AS (DELETE FROM item RETURNING 1) SELECT * FROM d", List.of()), ON);
            assertEquals("0A000", hidden.sqlState(), hidden.toString()); // such a WITH must be at the top level
            CallOutcome sequence = run(query("SELECT nextval('item_seq')", List.of()), ON);
            assertEquals("25006", sequence.sqlState(), sequence.message()); // READ ONLY refuses what the role may do
            CallOutcome semicolon = run(query("SELECT count(*) FROM item ; \n", List.of()), ON);
            assertEquals(List.of(List.of("3")), semicolon.rows().rows(), semicolon.toString());
            CallOutcome slow = run(query("SELECT pg_sleep(3)", List.of()), ON);
            assertEquals("57014", slow.sqlState(), slow.message());
            CallOutcome bad = run(query("SELECT nope FROM item", List.of()), ON);
            assertEquals("42703", bad.sqlState());
            assertEquals(8, bad.error().position());
            CallOutcome off = run(query("SELECT 1", List.of()), new AdHocReads(false, 30));
            assertEquals("0A000", off.sqlState());
            assertTrue(
                    off.error().message().contains("adhocReads: false"),
                    off.error().message());
            try (Statement statement = worker.jdbc().createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT current_setting('search_path'), current_setting('transaction_read_only'), count(*) FROM item")) {
                assertTrue(rows.next());
                assertEquals("\"$user\", public", rows.getString(1));
                assertEquals("off", rows.getString(2), "the session is as it was: no READ ONLY left behind");
                assertEquals(3, rows.getInt(3), "nothing deleted");
            }
            assertEquals(1, preparedStatements());
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    run(query("SELECT 1", List.of()), ON).status());
        }
    }

    /** The prepared statements of a read's session, counted by a read (its own among them). */
    private static int preparedStatements() {
        CallOutcome count = run(query("SELECT count(*) FROM pg_prepared_statements", List.of()), ON);
        return Integer.parseInt(count.rows().rows().get(0).get(0));
    }

    @Test
    void theRolesPrivilegesRefuseWhatItMayNotDoAndNothingOutlivesARead() throws SQLException {
        try (WorkerConnection worker =
                WorkerConnection.dedicate("node-1 worker 0", JdbcConnections.connect(server.jdbcUrl(0)))) {
            long workerPid;
            try (Statement statement = worker.jdbc().createStatement();
                    ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
                rows.next();
                workerPid = rows.getLong(1);
            }
            for (String attack : List.of(
                    "SELECT set_config('session_replication_role', 'replica', false)",
                    "SELECT pg_read_file('/etc/hostname')",
                    "SELECT count(*) FROM pg_ls_dir('.')",
                    "SELECT pg_terminate_backend(" + workerPid + ")",
                    "SELECT set_config('role', 'postgres', false)",
                    "SELECT count(*) FROM secret")) {
                CallOutcome refused = run(query(attack, List.of()), ON);
                assertEquals(CallOutcome.Status.USER_ABORTED, refused.status(), attack);
                assertEquals("42501", refused.sqlState(), attack + ": " + refused.message());
            }
            assertTrue(worker.jdbc().isValid(5), "the worker's connection was not terminated");
            // The rest of the hostile-input matrix at the node (docs/frontend.md, Security): large objects, NOTIFY,
            // LISTEN, DO, DDL, a second statement hidden after a comment: each refused, nothing changed.
            for (String[] attack : List.of(
                    new String[] {"SELECT lo_import('/etc/hostname')", "42501"},
                    new String[] {"SELECT lo_create(0)", "25006"},
                    // NOTIFY runs, as in PostgreSQL for any role (READ ONLY allows it): it reaches this replica's
                    // listeners only, and the node listens to none.
                    new String[] {"SELECT pg_notify('channel', 'payload')", null},
                    new String[] {"LISTEN channel", "42601"},
                    new String[] {"DO $$ BEGIN PERFORM 1; END $$", "42601"},
                    new String[] {"CREATE TABLE t (i int)", "42601"},
                    // A comment cannot reach past the subquery the node wraps it in: this is SELECT 1.
                    new String[] {"SELECT 1 -- ) AS x; DELETE FROM item", null})) {
                CallOutcome refused = run(query(attack[0], List.of()), ON);
                assertEquals(attack[1], refused.sqlState(), attack[0] + ": " + refused.message());
            }
            assertEquals(
                    List.of(List.of("3")),
                    run(query("SELECT count(*) FROM item", List.of()), ON)
                            .rows()
                            .rows(),
                    "nothing deleted");
            // What a read may do to its own session is wiped before the next read (the same pooled connection).
            for (String left : List.of(
                    "SELECT set_config('search_path', 'nowhere', false)",
                    "SELECT set_config('gargamel.capture', 'off', false)",
                    "SELECT pg_advisory_lock(42)")) {
                assertEquals(
                        CallOutcome.Status.COMMITTED,
                        run(query(left, List.of()), ON).status(),
                        left);
            }
            CallOutcome after = run(
                    query(
                            "SELECT current_setting('search_path'), current_setting('gargamel.capture', true), "
                                    + "session_user, (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory')",
                            List.of()),
                    ON);
            assertEquals(
                    Arrays.asList("\"$user\", public", "", ROLE, "0"), // "": the setting is reset, not "off"
                    after.rows().rows().get(0),
                    after.toString());
            // Neither without a role nor as a role the node does not serve.
            CallOutcome anonymous = run(ProcedureCall.adHoc(query("SELECT 1", List.of())), ON);
            assertEquals("42501", anonymous.sqlState(), anonymous.message());
            CallOutcome other =
                    run(ProcedureCall.adHoc(query("SELECT 1", List.of())).asRole("postgres"), ON);
            assertEquals("42501", other.sqlState(), other.message());
            assertTrue(other.message().contains("serves no role"), other.message());
        }
    }

    @Test
    void aPrivilegedRoleIsRefusedWhenTheNodeStartsUnlessTheConfigurationSaysSo() throws SQLException {
        try (Connection own = server.connect(0)) {
            RoleLogins superuser = new RoleLogins(List.of(RoleLogin.trusted("postgres")), false);
            try (ReadConnections logins = new ReadConnections("node-1", server.jdbcUrl(0), superuser)) {
                ConfigException refused =
                        assertThrows(ConfigException.class, () -> RoleCheck.check("node-1", own, logins, superuser));
                assertTrue(refused.getMessage().contains("role postgres"), refused.getMessage());
                assertTrue(refused.getMessage().contains("a superuser"), refused.getMessage());
                assertTrue(refused.getMessage().contains("allowPrivilegedRoles"), refused.getMessage());
            }
            RoleLogins allowed = new RoleLogins(List.of(RoleLogin.trusted("postgres")), true);
            try (ReadConnections logins = new ReadConnections("node-1", server.jdbcUrl(0), allowed)) {
                RoleCheck.check("node-1", own, logins, allowed); // said explicitly: served
            }
            try (Statement statement = own.createStatement()) {
                statement.execute("CREATE ROLE boss LOGIN");
                statement.execute("GRANT postgres TO boss"); // not a superuser itself, but may SET ROLE to one
            }
            RoleLogins member = new RoleLogins(List.of(RoleLogin.trusted("boss")), false);
            try (ReadConnections logins = new ReadConnections("node-1", server.jdbcUrl(0), member)) {
                ConfigException refused =
                        assertThrows(ConfigException.class, () -> RoleCheck.check("node-1", own, logins, member));
                assertTrue(refused.getMessage().contains("a member of a superuser"), refused.getMessage());
            }
            RoleLogins unknown = new RoleLogins(List.of(RoleLogin.trusted("nobody")), false);
            try (ReadConnections logins = new ReadConnections("node-1", server.jdbcUrl(0), unknown)) {
                ConfigException refused =
                        assertThrows(ConfigException.class, () -> RoleCheck.check("node-1", own, logins, unknown));
                assertTrue(refused.getMessage().contains("cannot log in as role nobody"), refused.getMessage());
            }
        }
    }

    @Test
    void aReadReturningMoreThanTheNodesLimitsIsRefusedNotHeld() {
        AdHocReads small = new AdHocReads(true, 5, 1_000, 10_000);
        CallOutcome fits = run(query("SELECT g FROM generate_series(1, 1000) g", List.of()), small);
        assertEquals(CallOutcome.Status.COMMITTED, fits.status(), fits.toString());
        assertEquals(1_000, fits.rows().rows().size());
        // A billion rows: PostgreSQL is asked for 1,001 and sends no more; the read is refused, not held.
        CallOutcome rows = run(query("SELECT generate_series(1, 1000000000)", List.of()), small); // streamed
        assertEquals("54000", rows.sqlState(), rows.toString());
        assertTrue(rows.message().contains("more than 1000 rows"), rows.message());
        CallOutcome wide = run(query("SELECT repeat('x', 100) FROM generate_series(1, 200)", List.of()), small);
        assertEquals("54000", wide.sqlState(), wide.toString());
        assertTrue(wide.message().contains("more than 10000 characters"), wide.message());
        assertEquals(
                CallOutcome.Status.COMMITTED,
                run(query("SELECT 1", List.of()), small).status(),
                "the connection serves the next read");
        // One value of 3 MB: pgjdbc stops buffering at the connection's limit (about 1 MB here), before any row is
        // counted.
        try (ReadConnections bounded = new ReadConnections(
                "node-1",
                server.jdbcUrl(0),
                new RoleLogins(List.of(RoleLogin.trusted(ROLE)), false),
                small.maxResultBytes())) {
            Execute huge = new Execute(
                    1,
                    0,
                    true,
                    new long[0],
                    UUID.randomUUID(),
                    8,
                    ProcedureCall.adHoc(query("SELECT repeat('x', 3000000)", List.of()))
                            .asRole(ROLE));
            CallOutcome refused = AdHocRunner.run(bounded, huge, small, "node-1");
            assertEquals("54000", refused.sqlState(), refused.toString());
            assertTrue(refused.message().contains("bytes"), refused.message());
        }
    }
}
