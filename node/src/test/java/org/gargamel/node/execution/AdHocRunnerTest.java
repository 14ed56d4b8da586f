package org.gargamel.node.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.provisioning.PostgresCluster;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Ad-hoc queries on a worker's connection to real PostgreSQL: rows with parameters of declared and inferred types, a
 * describe that runs nothing, and the guards: a command that would outlive the transaction on the connection (SET,
 * COMMIT) is not run, two statements are refused, a write fails READ ONLY, a slow query is cancelled by the timeout,
 * and a node with ad-hoc reads turned off says so. After each, the connection serves the next query.
 */
@Tag("integration")
class AdHocRunnerTest {
    private static final AdHocReads ON = new AdHocReads(true, 1);
    private static PostgresCluster server;

    @BeforeAll
    static void start() throws SQLException {
        server = PostgresCluster.embedded(1);
        try (Connection connection = server.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE item (id integer PRIMARY KEY, note text)");
            statement.execute("INSERT INTO item VALUES (1, 'one'), (2, 'it''s \\ two'), (3, NULL)");
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static CallOutcome run(WorkerConnection worker, AdHocQuery query, AdHocReads settings) {
        Execute call = new Execute(1, 0, true, new long[0], UUID.randomUUID(), 7, ProcedureCall.adHoc(query));
        return AdHocRunner.run(worker, call, settings, "node-1");
    }

    private static AdHocQuery query(String sql, List<Integer> types, String... values) {
        return AdHocQuery.run(sql, types, Arrays.asList(values));
    }

    @Test
    void rowsWithParametersAndADescribeThatRunsNothing() throws SQLException {
        try (WorkerConnection worker =
                WorkerConnection.dedicate("node-1 worker 0", JdbcConnections.connect(server.jdbcUrl(0)))) {
            CallOutcome rows = run(
                    worker,
                    query("SELECT id, note FROM item WHERE id >= $1 AND note = $2", List.of(23, 0), "2", "it's \\ two"),
                    ON);
            assertEquals(CallOutcome.Status.COMMITTED, rows.status(), rows.toString());
            assertEquals(List.of(List.of("2", "it's \\ two")), rows.rows().rows());
            assertEquals(23, rows.rows().columns().get(0).typeOid());
            assertEquals("note", rows.rows().columns().get(1).name());
            CallOutcome nulls = run(
                    worker,
                    AdHocQuery.run(
                            "SELECT count(*) FROM item WHERE note IS NOT DISTINCT FROM $1",
                            List.of(25),
                            Arrays.asList(new String[] {null})),
                    ON);
            assertEquals("1", nulls.rows().rows().get(0).get(0));
            CallOutcome described = run(
                    worker,
                    AdHocQuery.describe("SELECT note, id + $2 AS later FROM item WHERE id = $1", List.of()),
                    ON);
            assertEquals(CallOutcome.Status.COMMITTED, described.status(), described.toString());
            assertEquals("23,23", described.result());
            assertEquals(List.of(), described.rows().rows());
            assertEquals("later", described.rows().columns().get(1).name());
            assertEquals(0, preparedStatements(worker), "no prepared statement is left on the connection");
        }
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
                CallOutcome refused = run(worker, query(command, List.of()), ON);
                assertEquals(CallOutcome.Status.USER_ABORTED, refused.status(), command);
                assertEquals("42601", refused.sqlState(), command + ": " + refused.message());
            }
            CallOutcome two = run(worker, query("SELECT 1; DELETE FROM item", List.of()), ON);
            assertEquals("42601", two.sqlState(), two.message());
            CallOutcome write = run(worker, query("DELETE FROM item", List.of()), ON);
            assertEquals("25006", write.sqlState(), write.message());
            CallOutcome slow = run(worker, query("SELECT pg_sleep(3)", List.of()), ON);
            assertEquals("57014", slow.sqlState(), slow.message());
            CallOutcome bad = run(worker, query("SELECT nope FROM item", List.of()), ON);
            assertEquals("42703", bad.sqlState());
            assertEquals(8, bad.error().position());
            CallOutcome off = run(worker, query("SELECT 1", List.of()), new AdHocReads(false, 30));
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
            assertEquals(0, preparedStatements(worker));
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    run(worker, query("SELECT 1", List.of()), ON).status());
        }
    }

    private static int preparedStatements(WorkerConnection worker) throws SQLException {
        try (Statement statement = worker.jdbc().createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT count(*) FROM pg_prepared_statements WHERE name = 'gargamel_adhoc'")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
