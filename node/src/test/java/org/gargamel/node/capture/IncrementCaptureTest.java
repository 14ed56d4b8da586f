package org.gargamel.node.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.gargamel.node.apply.WriteSetApplier;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Increments (issue 18) between two embedded servers: capture records exact deltas for the declared columns, the
 * origin ships them as ADD changes, and applying them commutes with the other replica's own increments, so both end
 * with the same text in every cell.
 */
@Tag("integration")
class IncrementCaptureTest {
    private static final String SCHEMA = """
            DROP TABLE IF EXISTS counter, plain CASCADE;
            CREATE TABLE counter (id integer PRIMARY KEY, total numeric(12,2), free numeric, hits integer,
                                  big bigint, note text);
            CREATE TABLE plain (id integer PRIMARY KEY, n integer);
            INSERT INTO counter VALUES (1, 100.00, 1.5, -2147483000, 9223372036854775000, 'a'),
                                       (2, NULL, 1, 0, 0, 'b');
            INSERT INTO plain VALUES (1, 1);
            """;

    /** Capture may record deltas for these; a call ships deltas only for what it declares itself. */
    private static final Map<String, Set<String>> INCREMENT_COLUMNS =
            Map.of("counter", Set.of("total", "free", "hits", "big"));

    private static final Increments INCREMENTS =
            new Increments(Map.of("counter", List.of("id"), "plain", List.of("id")));

    private static PostgresCluster servers;
    private final List<Connection> connections = new ArrayList<>();

    @BeforeAll
    static void start() {
        servers = PostgresCluster.embedded(2);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @BeforeEach
    void schema() throws SQLException {
        for (int i = 0; i < 2; i++) {
            Connection connection = servers.connect(i);
            try (Statement statement = connection.createStatement()) {
                statement.execute(SCHEMA);
            }
            connection.setAutoCommit(false);
            WriteSetCapture.install(connection, "public", INCREMENT_COLUMNS);
            connection.commit();
            WriteSetCapture.enableForSession(connection);
            connections.add(connection);
        }
    }

    @AfterEach
    void close() throws SQLException {
        for (Connection connection : connections) {
            connection.close();
        }
        connections.clear();
    }

    /** Runs {@code statements} on server {@code server} with capture on and commits; the captured changes. */
    private List<RowChange> capture(int server, String... statements) throws SQLException {
        Connection connection = connections.get(server);
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        List<RowChange> changes = WriteSetCapture.read(connection);
        connection.commit();
        return changes;
    }

    /** Applies {@code changes} on server {@code server} as a node's applier does (on a connection of its own). */
    private static int apply(int server, List<RowChange> changes) throws SQLException {
        try (Connection connection = servers.connect(server)) {
            connection.setAutoCommit(false);
            int touched = new WriteSetApplier(connection).apply(changes);
            connection.commit();
            return touched;
        }
    }

    private static String rows(int server, String table) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT t::text FROM " + table + " t ORDER BY id")) {
            while (rows.next()) {
                text.append(rows.getString(1)).append('\n');
            }
        }
        return text.toString();
    }

    private static Map<String, Set<String>> declares(String... columns) {
        return Map.of("counter", Set.of(columns));
    }

    @Test
    void deltasAreExactAndCommuteWithTheOtherReplicasIncrements() throws SQLException {
        // Both replicas add to row 1 at once; each ships its deltas to the other. The integer delta does not fit an
        // integer (computed as bigint), the bigint one does not fit a bigint (computed as numeric).
        List<RowChange> first = capture(
                0,
                "UPDATE counter SET total = total + 0.05, hits = hits + 2147483000 + 2147483000, big = big - "
                        + "9223372036854775000 - 9223372036854775000, free = free + 0.25, note = 'x' WHERE id = 1");
        List<RowChange> second =
                capture(1, "UPDATE counter SET total = total + 1.10, hits = hits + 7, big = big + 1 WHERE id = 1");
        Increments.Split fromFirst = INCREMENTS.split(first, declares("total", "hits", "big"));
        Increments.Split fromSecond = INCREMENTS.split(second, declares("total", "hits", "big"));

        assertEquals(1, fromFirst.shipped().size());
        RowChange add = fromFirst.shipped().get(0);
        assertEquals(Operation.ADD, add.operation());
        // free is not declared by this call: its value travels, and its delta member is dropped.
        assertEquals(
                "{\"id\": 1, \"+total\": 0.05, \"free\": 1.75, \"+hits\": 4294966000, \"+big\": "
                        + "-18446744073709550000, \"note\": \"x\"}",
                add.row());
        assertEquals(
                new BigDecimal("0.05"), fromFirst.deltas().get(new Increments.Cell("counter", "{\"id\": 1}", "total")));
        assertTrue(fromFirst.problems().isEmpty(), fromFirst.problems().toString());
        // What the rules checker reads: the captured update without delta members.
        assertEquals(
                "{\"id\": 1, \"total\": 100.05, \"free\": 1.75, \"hits\": 2147483000, \"big\": -9223372036854775000, "
                        + "\"note\": \"x\"}",
                fromFirst.plain().get(0).row());

        assertEquals(1, apply(1, fromFirst.shipped()));
        assertEquals(1, apply(0, fromSecond.shipped()));
        assertEquals(rows(0, "counter"), rows(1, "counter"));
        assertTrue(
                rows(0, "counter").startsWith("(1,101.15,1.75,2147483007,-9223372036854774999,x)"), rows(0, "counter"));
    }

    @Test
    void unconstrainedNumericKeepsItsScaleAndAShrinkingScaleIsNoAddition() throws SQLException {
        List<RowChange> first = capture(0, "UPDATE counter SET free = free + 0.250 WHERE id = 1");
        List<RowChange> second = capture(1, "UPDATE counter SET free = free + 1 WHERE id = 1");
        apply(1, INCREMENTS.split(first, declares("free")).shipped());
        apply(0, INCREMENTS.split(second, declares("free")).shipped());
        assertEquals(rows(0, "counter"), rows(1, "counter"));
        assertTrue(rows(0, "counter").startsWith("(1,100.00,2.750,"), rows(0, "counter"));

        // 2.750 -> 3: no addition gives fewer decimals than the cell had.
        Increments.Split shrunk =
                INCREMENTS.split(capture(0, "UPDATE counter SET free = 3 WHERE id = 1"), declares("free"));
        assertEquals(Operation.UPDATE, shrunk.shipped().get(0).operation(), "shipped as its value");
        assertEquals(1, shrunk.problems().size());
        assertEquals("free", shrunk.problems().get(0).column());
        assertEquals("counter(id=1)", shrunk.problems().get(0).row());
        assertTrue(
                shrunk.problems().get(0).reason().contains("scale shrank (from 2.750 to 3)"),
                shrunk.problems().get(0).reason());
    }

    @Test
    void aNullOldOrNewValueIsNoAdditionAndTravelsAsItsValue() throws SQLException {
        Increments.Split fromNull =
                INCREMENTS.split(capture(0, "UPDATE counter SET total = 5 WHERE id = 2"), declares("total"));
        assertEquals(
                List.of(new RowChange("counter", Operation.UPDATE, "{\"id\": 2, \"total\": 5.00}")),
                fromNull.shipped());
        assertEquals(
                "not an addition: its old value was NULL",
                fromNull.problems().get(0).reason());
        Increments.Split toNull =
                INCREMENTS.split(capture(0, "UPDATE counter SET total = NULL WHERE id = 2"), declares("total"));
        assertEquals(
                "not an addition: its new value is NULL",
                toNull.problems().get(0).reason());
        assertTrue(toNull.deltas().isEmpty());
    }

    @Test
    void severalUpdatesOfOneRowComposeInOrder() throws SQLException {
        List<RowChange> captured = capture(
                0,
                "UPDATE counter SET hits = hits + 1 WHERE id = 2",
                "UPDATE counter SET note = 'y' WHERE id = 2",
                "UPDATE counter SET hits = hits + 2, total = 0 WHERE id = 2",
                "UPDATE plain SET n = n + 1 WHERE id = 1");
        Increments.Split split = INCREMENTS.split(captured, declares("hits"));
        assertEquals(
                List.of(Operation.ADD, Operation.UPDATE, Operation.ADD, Operation.UPDATE),
                split.shipped().stream().map(RowChange::operation).toList());
        assertEquals(new BigDecimal(3), split.deltas().get(new Increments.Cell("counter", "{\"id\": 2}", "hits")));
        // Meanwhile the replica's own increment of the same cell.
        capture(1, "UPDATE counter SET hits = hits + 10 WHERE id = 2");
        assertEquals(4, apply(1, split.shipped()));
        assertTrue(rows(1, "counter").contains("(2,0.00,1,13,0,y)"), rows(1, "counter"));
    }

    @Test
    void withoutDeclarationsEveryColumnTravelsAsItsValue() throws SQLException {
        List<RowChange> captured = capture(0, "UPDATE counter SET hits = hits + 1, total = total + 1 WHERE id = 1");
        assertTrue(captured.get(0).row().contains("\"+hits\": 1"), "capture records the delta");
        Increments.Split split = INCREMENTS.split(captured, Map.of());
        assertEquals(
                List.of(new RowChange(
                        "counter", Operation.UPDATE, "{\"id\": 1, \"total\": 101.00, \"hits\": -2147482999}")),
                split.shipped());
        assertEquals(split.plain(), split.shipped());
        assertTrue(split.problems().isEmpty());
        // Columns capture was not told about carry no delta (the trigger stays as cheap as before for them).
        assertFalse(capture(0, "UPDATE plain SET n = n + 1").get(0).row().contains("+"));
    }

    @Test
    void anAddToACellThatIsNullHereIsADivergence() throws SQLException {
        List<RowChange> add = INCREMENTS
                .split(capture(0, "UPDATE counter SET hits = hits + 1 WHERE id = 2"), declares("hits"))
                .shipped();
        capture(1, "UPDATE counter SET hits = NULL WHERE id = 2");
        SQLException diverged = assertThrows(SQLException.class, () -> apply(1, add));
        assertEquals("GA901", diverged.getSQLState());
    }

    @Test
    void aColumnThatCannotAddExactlyIsRefusedAtInstall() throws SQLException {
        Connection connection = connections.get(0);
        SQLException refused = assertThrows(
                SQLException.class,
                () -> WriteSetCapture.install(connection, "public", Map.of("counter", Set.of("note"))));
        connection.rollback();
        assertTrue(refused.getMessage().contains("counter.note: its type is text"), refused.getMessage());
    }
}
