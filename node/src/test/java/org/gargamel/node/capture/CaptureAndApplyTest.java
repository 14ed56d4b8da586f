package org.gargamel.node.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.node.apply.WriteSetApplier;
import org.gargamel.node.transfer.SchemaDigest;
import org.gargamel.node.writeset.ReplicaState;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Write-set capture on one embedded server and column-wise apply on another: values survive exactly, updates carry
 * only what changed, column-disjoint updates of one row commute, and what cannot be replicated is refused loudly.
 */
@Tag("integration")
class CaptureAndApplyTest {
    private static final String SCHEMA = """
            DROP TABLE IF EXISTS tricky, account, journal, audit, badge, wide, "Odd ""Name\"\"" CASCADE;
            CREATE TABLE badge (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, serial_no serial, note text,
                                size integer GENERATED ALWAYS AS (length(note)) STORED);
            CREATE TABLE "Odd ""Name\"\"" ("Key's" integer PRIMARY KEY, "a\\b ""c\"\"" numeric, j json);
            CREATE TABLE tricky (id integer PRIMARY KEY, amount numeric(12,4), at timestamp, label text, tags text[],
                                 counts integer[], flag boolean, big bigint, nothing text);
            CREATE TABLE account (region integer, id integer, x integer NOT NULL, y integer NOT NULL, PRIMARY KEY (region, id));
            CREATE TABLE journal (note text NOT NULL);
            DROP TABLE IF EXISTS unique_code;
            CREATE TABLE unique_code (id integer PRIMARY KEY, code text UNIQUE);
            CREATE TABLE audit (what text NOT NULL);
            CREATE OR REPLACE FUNCTION audit_account() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO audit VALUES ('account ' || NEW.id); RETURN NEW; END $$;
            CREATE TRIGGER audit_account AFTER UPDATE ON account FOR EACH ROW EXECUTE FUNCTION audit_account();
            """;

    private static PostgresCluster servers;
    private Connection origin;
    private Connection replica;

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
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute(SCHEMA);
                statement.execute("INSERT INTO account VALUES (1, 1, 10, 20), (1, 2, 30, 40)");
                connection.setAutoCommit(false);
                WriteSetCapture.install(connection, "public");
                connection.commit();
            }
        }
        origin = servers.connect(0);
        origin.setAutoCommit(false);
        WriteSetCapture.enableForSession(origin);
        replica = servers.connect(1);
        replica.setAutoCommit(false);
    }

    @org.junit.jupiter.api.AfterEach
    void close() throws SQLException {
        origin.close();
        replica.close();
    }

    private List<WriteSet.RowChange> capture(Connection connection, String... statements) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        List<WriteSet.RowChange> changes = WriteSetCapture.read(connection);
        connection.commit();
        return changes;
    }

    private void apply(Connection connection, List<WriteSet.RowChange> changes) throws SQLException {
        new WriteSetApplier(connection).apply(changes);
        connection.commit();
    }

    private static List<String> rows(Connection connection, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT t::text FROM " + table + " t ORDER BY 1")) {
            while (result.next()) {
                rows.add(result.getString(1));
            }
        }
        connection.commit();
        return rows;
    }

    @Test
    void theSchemaDigestIsTheSameForTheSameDefinitionsWhateverTheDataAndChangesWithThem() throws SQLException {
        // Different data and a plain index at one replica: the same schema.
        try (Statement statement = origin.createStatement()) {
            statement.execute("INSERT INTO account VALUES (2, 1, 5, 6)");
            statement.execute("CREATE INDEX account_x ON account (x)");
        }
        origin.commit();
        String digest = SchemaDigest.of(origin, "public");
        assertEquals(16, digest.length());
        assertEquals(digest, SchemaDigest.of(replica, "public"), "same definitions, other data and a plain index");
        replica.commit();
        for (String change : List.of(
                "ALTER TABLE journal ADD COLUMN extra integer",
                "ALTER TABLE account ALTER COLUMN x DROP NOT NULL",
                "CREATE UNIQUE INDEX journal_note ON journal (note)",
                "CREATE OR REPLACE FUNCTION audit_account() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                "DROP TRIGGER audit_account ON account")) {
            try (Statement statement = replica.createStatement()) {
                statement.execute(change);
                assertTrue(!digest.equals(SchemaDigest.of(replica, "public")), "the digest must see: " + change);
            } finally {
                replica.rollback();
            }
        }
        assertEquals(digest, SchemaDigest.of(replica, "public"), "every change was rolled back");
        replica.commit();
    }

    /**
     * A row inserted at the origin carries the values its identity and serial columns drew there: the replica takes
     * them as they are (a GENERATED ALWAYS identity column refuses an explicit value without OVERRIDING SYSTEM VALUE),
     * and computes its generated column itself (it refuses to take one), on insert and on update.
     */
    @Test
    void identityValuesAreTakenAndGeneratedColumnsComputedByTheReplica() throws SQLException {
        try (Statement statement = origin.createStatement()) {
            statement.execute("ALTER SEQUENCE badge_id_seq RESTART WITH 40"); // the origin's own values
            statement.execute("ALTER SEQUENCE badge_serial_no_seq RESTART WITH 70");
        }
        origin.commit();
        apply(replica, capture(origin, "INSERT INTO badge (note) VALUES ('one'), ('three')"));
        assertEquals(List.of("(40,70,one,3)", "(41,71,three,5)"), rows(replica, "badge"));
        apply(replica, capture(origin, "UPDATE badge SET note = 'seventeen' WHERE id = 41"));
        assertEquals(rows(origin, "badge"), rows(replica, "badge"));
        assertEquals("(41,71,seventeen,9)", rows(replica, "badge").get(1));
    }

    @Test
    void trickyValuesSurviveInsertUpdateAndDeleteExactly() throws SQLException {
        apply(
                replica,
                capture(
                        origin,
                        "INSERT INTO tricky VALUES (1, 10.5000, '2026-01-01 10:00:00.123456', 'it''s \"quoted\" \\\\ naïve ☃', "
                                + "ARRAY['a,b', NULL, '{x}'], ARRAY[1, NULL, -3], true, 9223372036854775807, NULL)",
                        "INSERT INTO tricky VALUES (2, -0.0001, '1999-12-31 23:59:59', '', '{}', NULL, false, -1, 'x')"));
        assertEquals(rows(origin, "tricky"), rows(replica, "tricky"));
        assertTrue(
                rows(replica, "tricky").get(0).contains("10.5000"), "numeric scale kept: " + rows(replica, "tricky"));

        apply(
                replica,
                capture(
                        origin,
                        "UPDATE tricky SET amount = amount * 2, label = label || E'\\n', nothing = 'now' WHERE id = 1",
                        "DELETE FROM tricky WHERE id = 2"));
        assertEquals(rows(origin, "tricky"), rows(replica, "tricky"));
        assertEquals(1, rows(replica, "tricky").size());
    }

    @Test
    void aBulkTransactionSpillsItsChangesAndKeepsEveryOneInOrder() throws SQLException {
        int rows = 3_000; // some 150 kB of changes: more than WriteSetCapture.CHUNK_SLOTS chunks of CHUNK_BYTES
        try (Statement statement = origin.createStatement()) {
            statement.execute("INSERT INTO unique_code SELECT g, 'code ' || g FROM generate_series(1, " + rows + ") g");
            statement.execute("UPDATE unique_code SET code = code || '!' WHERE id % 2 = 0");
            statement.execute("DELETE FROM unique_code WHERE id % 3 = 0");
            assertEquals("on", setting(statement, "gargamel.spilled"), "the changes outgrew one chunk");
        }
        List<WriteSet.RowChange> changes = WriteSetCapture.read(origin);
        assertEquals(changes, WriteSetCapture.read(origin), "reading twice before commit gives the same changes");
        origin.commit();
        assertEquals(rows + rows / 2 + rows / 3, changes.size());
        assertEquals("{\"id\":1,\"code\":\"code 1\"}", changes.get(0).row(), "the first change first");
        WriteSet.RowChange last = changes.get(changes.size() - 1);
        assertEquals(Operation.DELETE, last.operation(), "the last change last: " + last);
        assertEquals("{\"id\":" + rows + "}", last.row().replace(" ", ""), "the last change last");
        for (int i = 1; i < rows; i++) {
            assertEquals(Operation.INSERT, changes.get(i).operation(), "change " + i);
            assertTrue(
                    changes.get(i).row().startsWith("{\"id\":" + (i + 1) + ","), "change " + i + ": " + changes.get(i));
        }
        apply(replica, changes);
        assertEquals(rows(origin, "unique_code"), rows(replica, "unique_code"));
        assertEquals(rows - rows / 3, rows(replica, "unique_code").size());

        // The chunks went with the commit: the next transaction carries only its own change, and spills nothing.
        List<WriteSet.RowChange> next = capture(origin, "UPDATE unique_code SET code = 'one' WHERE id = 1");
        assertEquals(1, next.size(), next.toString());
    }

    @Test
    void aRolledBackBulkTransactionLeavesNoChunkBehind() throws SQLException {
        try (Statement statement = origin.createStatement()) {
            statement.execute("INSERT INTO unique_code SELECT g, 'code ' || g FROM generate_series(1, 2000) g");
            assertEquals("on", setting(statement, "gargamel.spilled"));
        }
        origin.rollback();
        List<WriteSet.RowChange> changes = capture(origin, "INSERT INTO unique_code VALUES (1, 'kept')");
        assertEquals(1, changes.size(), "only this transaction's insert: " + changes.size() + " changes");
        assertEquals("{\"id\":1,\"code\":\"kept\"}", changes.get(0).row());
    }

    @Test
    void changesOfSomeKilobytesMoveToNumberedSettingsAndKeepTheirOrderThroughASavepoint() throws SQLException {
        // 200 inserts of some 40 bytes each fill a few chunks of WriteSetCapture.CHUNK_BYTES, fewer than its slots.
        try (Statement statement = origin.createStatement()) {
            statement.execute("INSERT INTO unique_code SELECT g, 'code ' || g FROM generate_series(1, 200) g");
            statement.execute("SAVEPOINT half");
            statement.execute("INSERT INTO unique_code SELECT g, 'later ' || g FROM generate_series(201, 300) g");
            int filled = Integer.parseInt(setting(statement, "gargamel.chunks"));
            statement.execute("ROLLBACK TO SAVEPOINT half");
            int kept = Integer.parseInt(setting(statement, "gargamel.chunks"));
            assertTrue(kept > 1 && filled > kept, "chunks before the savepoint " + kept + ", after " + filled);
            assertTrue(
                    filled < WriteSetCapture.CHUNK_SLOTS, filled + " chunks: the test means to stay below the table");
            assertEquals(null, setting(statement, "gargamel.spilled"), "nothing went to the table");
            statement.execute("UPDATE unique_code SET code = 'last' WHERE id = 7");
        }
        List<WriteSet.RowChange> changes = WriteSetCapture.read(origin);
        origin.commit();
        assertEquals(201, changes.size(), "the 200 inserts and the update; none of the rolled-back inserts");
        for (int i = 0; i < 200; i++) {
            assertEquals(
                    "{\"id\":" + (i + 1) + ",\"code\":\"code " + (i + 1) + "\"}",
                    changes.get(i).row(),
                    "change " + i + " in order");
        }
        assertEquals(Operation.UPDATE, changes.get(200).operation());
        apply(replica, changes);
        assertEquals(rows(origin, "unique_code"), rows(replica, "unique_code"));

        // The numbered settings went with the commit: the next transaction carries only its own change.
        List<WriteSet.RowChange> next = capture(origin, "UPDATE unique_code SET code = 'one' WHERE id = 1");
        assertEquals(1, next.size(), next.toString());
    }

    @Test
    void aTableOfManyColumnsIsCaptured() throws SQLException {
        // More columns than a PostgreSQL function takes arguments: the generated trigger has an IF per column.
        StringBuilder ddl = new StringBuilder("CREATE TABLE wide (id integer PRIMARY KEY");
        for (int i = 1; i <= 250; i++) {
            ddl.append(", c").append(i).append(i % 2 == 0 ? " text" : " numeric");
        }
        ddl.append(")");
        for (Connection connection : List.of(origin, replica)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(ddl.toString());
                WriteSetCapture.install(connection, "public");
            }
            connection.commit();
        }
        List<WriteSet.RowChange> inserted =
                capture(origin, "INSERT INTO wide (id, c1, c2, c250) VALUES (1, 1.50, 'a', 'z')");
        apply(replica, inserted);
        List<WriteSet.RowChange> updated =
                capture(origin, "UPDATE wide SET c1 = 1.500, c3 = 3, c200 = 'two hundred', c250 = 'z' WHERE id = 1");
        assertEquals(1, updated.size(), updated.toString());
        assertEquals(
                "{\"id\": 1, \"c1\": 1.500, \"c3\": 3, \"c200\": \"two hundred\"}",
                updated.get(0).row(),
                "the columns that changed, a change of scale among them, and not the one set to its own value");
        apply(replica, updated);
        assertEquals(rows(origin, "wide"), rows(replica, "wide"));
    }

    @Test
    void theApplyBookkeepingIsPreparedOnceWhateverItsValues() throws SQLException {
        ReplicaState.install(replica);
        replica.commit();
        WriteSetApplier applier = new WriteSetApplier(replica);
        for (int i = 1; i <= 7; i++) {
            List<WriteSet.RowChange> changes =
                    capture(origin, "UPDATE account SET x = " + (100 + i) + " WHERE region = 1 AND id = 2");
            applier.apply(
                    changes,
                    new ReplicaState.Bookkeeping(i, List.of(1_000L + i), i == 1 ? List.of() : List.of(999L + i)));
            replica.commit();
        }
        try (Statement statement = replica.createStatement();
                ResultSet rows = statement.executeQuery("SELECT (SELECT applied_index FROM gargamel.replica_state),"
                        + " (SELECT string_agg(txn::text, ',') FROM gargamel.committed_ahead),"
                        + " (SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%committed_ahead%')")) {
            rows.next();
            assertEquals(7, rows.getLong(1), "the applied index");
            assertEquals("1007", rows.getString(2), "each transaction's row recorded, and the one before forgotten");
            assertEquals(2, rows.getInt(3), "its insert and its delete, each prepared once for the seven write-sets");
        }
        replica.commit();
        assertEquals(rows(origin, "account"), rows(replica, "account"));
    }

    @Test
    void theApplyStatementsArePreparedOncePerShape() throws SQLException {
        WriteSetApplier applier = new WriteSetApplier(replica);
        applier.apply(capture(origin, "INSERT INTO tricky (id, label) VALUES (1, 'start')"));
        replica.commit();
        for (int i = 1; i <= 3; i++) {
            applier.apply(
                    capture(origin, "UPDATE tricky SET label = 'it''s ?, $1, $r$ and \\\\ " + i + "' WHERE id = 1"));
            if (i == 2) {
                replica.rollback(); // PREPARE outlives the rollback: the next write-set of the shape runs on it
            } else {
                replica.commit();
            }
        }
        applier.apply(capture(origin, "UPDATE account SET y = 7 WHERE region = 1 AND id = 2"));
        replica.commit();
        try (Statement statement = replica.createStatement();
                ResultSet rows = statement.executeQuery("SELECT string_agg(statement, ' | ' ORDER BY name)"
                        + " FROM pg_prepared_statements WHERE name LIKE 'gargamel_apply_%'")) {
            rows.next();
            String statements = rows.getString(1);
            // An insert and an update of tricky, an update of account and the audit row its trigger inserts.
            assertEquals(4, statements.split(" \\| ").length, statements);
            assertTrue(statements.contains("SET \"label\" = r.\"label\""), statements);
        }
        replica.commit();
        assertEquals(
                rows(origin, "tricky"),
                rows(replica, "tricky"),
                "quotes, ?, $1, a dollar-quote tag and backslashes arrive as they were");
        assertEquals(rows(origin, "account"), rows(replica, "account"));
    }

    private static String setting(Statement statement, String name) throws SQLException {
        try (ResultSet result = statement.executeQuery("SELECT current_setting('" + name + "', true)")) {
            result.next();
            return result.getString(1);
        }
    }

    @Test
    void oddNamesAChangeOfScaleOnlyAndColumnsWithoutEqualityAreCapturedExactly() throws SQLException {
        String table = "\"Odd \"\"Name\"\"\"";
        apply(replica, capture(origin, "INSERT INTO " + table + " VALUES (1, 1.0, '{\"k\": [1, 2]}')"));
        List<WriteSet.RowChange> changes =
                capture(origin, "UPDATE " + table + " SET \"a\\b \"\"c\"\"\" = 1.00, j = '{\"k\": [1, 3]}'");
        assertEquals(1, changes.size(), changes.toString());
        assertEquals(
                "{\"Key's\": 1, \"a\\\\b \\\"c\\\"\": 1.00, \"j\": {\"k\": [1, 3]}}",
                changes.get(0).row(),
                "1.0 -> 1.00 is a change (numeric equality would hide it); json, which has no equality, is compared as text");
        apply(replica, changes);
        assertEquals(rows(origin, table), rows(replica, table));
        assertTrue(
                rows(replica, table).get(0).contains("1.00"),
                rows(replica, table).toString());
    }

    @Test
    void aTablesOwnChangesKeepTheirOrderWhileOtherTablesChangesAreGrouped() throws SQLException {
        apply(replica, capture(origin, "INSERT INTO unique_code VALUES (1, 'a')"));
        // Insert id 2, free code 'a' (delete id 1), give 'a' to id 3, with account updates in between: grouping the two
        // inserts ahead of the delete would violate the unique key on the replica.
        List<WriteSet.RowChange> changes = capture(
                origin,
                "INSERT INTO unique_code VALUES (2, 'b')",
                "UPDATE account SET x = x + 1 WHERE id = 1",
                "DELETE FROM unique_code WHERE id = 1",
                "UPDATE account SET x = x + 1 WHERE id = 2",
                "INSERT INTO unique_code VALUES (3, 'a')");
        apply(replica, changes);
        assertEquals(rows(origin, "unique_code"), rows(replica, "unique_code"));
        assertEquals(List.of("(2,b)", "(3,a)"), rows(replica, "unique_code"));
        assertEquals(rows(origin, "account"), rows(replica, "account"));
    }

    @Test
    void aColumnAddedLaterIsCapturedOnceCaptureIsInstalledAgain() throws SQLException {
        for (int i = 0; i < 2; i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute("ALTER TABLE account ADD COLUMN z text");
                connection.setAutoCommit(false);
                WriteSetCapture.install(connection, "public");
                connection.commit();
            }
        }
        apply(replica, capture(origin, "UPDATE account SET z = 'new' WHERE id = 2"));
        assertEquals(rows(origin, "account"), rows(replica, "account"));
        assertTrue(
                rows(replica, "account").contains("(1,2,30,40,new)"),
                rows(replica, "account").toString());
    }

    @Test
    void anUpdateCarriesTheKeyAndOnlyTheChangedColumns() throws SQLException {
        List<WriteSet.RowChange> changes =
                capture(origin, "UPDATE account SET x = 11, y = y WHERE region = 1 AND id = 1").stream()
                        .filter(change -> change.table().equals("account"))
                        .toList(); // the audit trigger adds a row
        assertEquals(1, changes.size(), changes.toString());
        assertEquals(Operation.UPDATE, changes.get(0).operation());
        assertEquals(
                "{\"region\": 1, \"id\": 1, \"x\": 11}",
                changes.get(0).row(),
                "the key in key order, then what changed");
        assertEquals(
                List.of(),
                capture(origin, "UPDATE account SET y = y").stream()
                        .filter(change -> change.table().equals("account"))
                        .toList(),
                "an update that changes nothing carries nothing");
    }

    @Test
    void columnDisjointUpdatesOfOneRowCommuteAcrossReplicas() throws SQLException {
        Connection second = servers.connect(1);
        second.setAutoCommit(false);
        WriteSetCapture.enableForSession(second);
        List<WriteSet.RowChange> fromOrigin =
                capture(origin, "UPDATE account SET x = x + 1 WHERE region = 1 AND id = 1");
        List<WriteSet.RowChange> fromReplica =
                capture(second, "UPDATE account SET y = y + 5 WHERE region = 1 AND id = 1");
        second.close();
        apply(replica, fromOrigin);
        apply(origin, fromReplica);
        assertEquals(List.of("(1,1,11,25)", "(1,2,30,40)"), rows(origin, "account"));
        assertEquals(rows(origin, "account"), rows(replica, "account"));
    }

    @Test
    void userTriggersDoNotFireWhileApplying() throws SQLException {
        List<WriteSet.RowChange> changes = capture(origin, "UPDATE account SET x = 0 WHERE id = 2");
        // The audit row written by the origin's trigger is part of the write-set; the replica's trigger stays quiet.
        assertEquals(
                java.util.Set.of("account", "audit"),
                changes.stream().map(WriteSet.RowChange::table).collect(java.util.stream.Collectors.toSet()));
        apply(replica, changes);
        assertEquals(rows(origin, "audit"), rows(replica, "audit"));
        assertEquals(1, rows(replica, "audit").size());
    }

    @Test
    void aTableWithoutPrimaryKeyReplicatesInsertsAndRefusesUpdates() throws SQLException {
        apply(replica, capture(origin, "INSERT INTO journal VALUES ('one'), ('two')"));
        assertEquals(List.of("(one)", "(two)"), rows(replica, "journal"));
        SQLException refused = assertThrows(SQLException.class, () -> capture(origin, "UPDATE journal SET note = 'x'"));
        origin.rollback();
        assertEquals("0A000", refused.getSQLState());
        assertTrue(
                refused.getMessage().contains("table journal")
                        && refused.getMessage().contains("no primary key"),
                refused.getMessage());
    }

    @Test
    void changingAPrimaryKeyIsADeleteAndAnInsert() throws SQLException {
        List<WriteSet.RowChange> changes = capture(origin, "UPDATE account SET id = 3 WHERE region = 1 AND id = 2");
        assertEquals(
                List.of(Operation.DELETE, Operation.INSERT),
                changes.stream()
                        .filter(change -> change.table().equals("account"))
                        .map(WriteSet.RowChange::operation)
                        .toList());
        apply(replica, changes);
        assertEquals(rows(origin, "account"), rows(replica, "account"));
    }

    @Test
    void sessionsWithoutCaptureAreUnaffected() throws SQLException {
        try (Connection plain = servers.connect(0);
                Statement statement = plain.createStatement()) {
            statement.execute("UPDATE account SET x = 99 WHERE id = 1"); // no temp table, no error
        }
        assertEquals(List.of(), WriteSetCapture.read(origin), "another session's writes are not ours");
        origin.commit();
    }

    @Test
    void applyingToAMissingRowFailsNamingTheTable() throws SQLException {
        List<WriteSet.RowChange> changes = capture(origin, "UPDATE account SET x = 1 WHERE id = 1");
        try (Statement statement = replica.createStatement()) {
            statement.execute("DELETE FROM account WHERE id = 1");
        }
        replica.commit();
        SQLException diverged = assertThrows(SQLException.class, () -> new WriteSetApplier(replica).apply(changes));
        replica.rollback();
        assertTrue(
                diverged.getMessage().contains("table account")
                        && diverged.getMessage().contains("diverged"),
                diverged.getMessage());
    }

    @Test
    void installIsIdempotentAndUninstallRemovesEverything() throws SQLException {
        CaptureInstallation again = WriteSetCapture.install(origin, "public");
        origin.commit();
        assertEquals(
                List.of("Odd \"Name\"", "account", "audit", "badge", "journal", "tricky", "unique_code"),
                java.util.stream.Stream.concat(again.keyedTables().stream(), again.insertOnlyTables().stream())
                        .sorted()
                        .toList());
        assertEquals(List.of("Odd \"Name\"", "account", "badge", "tricky", "unique_code"), again.keyedTables());
        assertEquals(1, triggers(origin, "account"));
        WriteSetCapture.uninstall(origin);
        origin.commit();
        WriteSetCapture.uninstall(origin);
        origin.commit();
        assertEquals(0, triggers(origin, "account"));
        try (Statement statement = origin.createStatement();
                ResultSet schema =
                        statement.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = 'gargamel'")) {
            schema.next();
            assertEquals(0, schema.getInt(1));
        }
        origin.commit();
    }

    private static int triggers(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery(
                        "SELECT count(*) FROM pg_trigger WHERE tgname = 'gargamel_capture' AND tgrelid = '" + table
                                + "'::regclass")) {
            count.next();
            return count.getInt(1);
        } finally {
            connection.commit();
        }
    }
}
