package org.gargamel.node.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.node.writeset.ReplicaState;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The schema copy of a new replica (docs/node.md, Rebuild) on a schema richer than the bank: an enum, a domain with a
 * default and a check, a composite type, a standalone sequence used by a default, bigserial, identity and generated
 * columns (one calling a user function), a collation, CHECK, UNIQUE and FOREIGN KEY constraints, a partial expression
 * index, a dropped column, views (one over a set-returning function), plpgsql, SQL and SQL-standard functions, a
 * procedure, a user trigger. Copied with the data into an empty database, the copy has the peer's definitions and
 * digest, and behaves as the peer does: the same statements give the same results on both.
 */
@Tag("integration")
class SchemaCopyTest {
    private static final String RICH_SCHEMA = """
            CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
            CREATE DOMAIN positive AS integer DEFAULT 1 NOT NULL CONSTRAINT positive_check CHECK (VALUE > 0);
            CREATE TYPE address AS (street text, city varchar(40));
            CREATE SEQUENCE ticket_numbers START 100 INCREMENT 5;
            CREATE FUNCTION shout(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(t) || '!' $$;
            CREATE TABLE customer (
                id bigserial PRIMARY KEY,
                obsolete integer,
                name text COLLATE "C" NOT NULL,
                mood mood DEFAULT 'ok',
                home address,
                visits positive,
                ticket integer DEFAULT nextval('ticket_numbers'),
                loud_name text GENERATED ALWAYS AS (shout(name)) STORED,
                CONSTRAINT name_not_blank CHECK (name <> ''));
            ALTER TABLE customer DROP COLUMN obsolete;
            CREATE TABLE "Visit" (
                id integer GENERATED ALWAYS AS IDENTITY (START WITH 10) PRIMARY KEY,
                customer_id bigint NOT NULL REFERENCES customer (id) ON DELETE CASCADE,
                at timestamptz NOT NULL DEFAULT clock_timestamp(),
                note text,
                UNIQUE (customer_id, at));
            CREATE INDEX visit_note_idx ON "Visit" (lower(note)) WHERE note IS NOT NULL;
            CREATE FUNCTION happy_customers() RETURNS SETOF customer LANGUAGE sql STABLE
                AS $$ SELECT * FROM customer WHERE mood = 'happy' ORDER BY id $$;
            CREATE VIEW customer_visits AS
                SELECT c.id, c.name, count(v.id) AS visits FROM customer c LEFT JOIN "Visit" v ON v.customer_id = c.id
                 GROUP BY c.id, c.name;
            CREATE VIEW happy AS SELECT name, loud_name FROM happy_customers();
            CREATE FUNCTION count_visit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              UPDATE customer SET visits = visits + 1 WHERE id = NEW.customer_id;
              RETURN NEW;
            END $$;
            CREATE TRIGGER visit_counted AFTER INSERT ON "Visit" FOR EACH ROW EXECUTE FUNCTION count_visit();
            CREATE PROCEDURE add_customer(p_name text, p_mood mood) LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO customer (name, mood) VALUES (p_name, p_mood);
            END $$;
            CALL add_customer('ann', 'happy');
            CALL add_customer('bob', 'sad');
            INSERT INTO customer (name, mood, home) VALUES ('cy', 'happy', ROW('1 Main St', 'Springfield'));
            INSERT INTO "Visit" (customer_id, note) VALUES (1, 'first'), (1, NULL), (3, 'Hello');
            SELECT nextval('ticket_numbers');
            """;

    private static PostgresCluster servers;

    @BeforeAll
    static void startServers() {
        servers = PostgresCluster.embedded(2);
    }

    @AfterAll
    static void stopServers() {
        servers.close();
    }

    /** Two fresh databases: nothing in public, no gargamel schema. */
    @BeforeEach
    void wipe() throws Exception {
        for (int i = 0; i < 2; i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public; "
                        + "DROP SCHEMA IF EXISTS gargamel CASCADE");
            }
        }
    }

    /** Gives the peer a position in a write-set log (a transfer copies it with the data). */
    private static void positionPeer() throws SQLException {
        try (Connection peer = servers.connect(0)) {
            peer.setAutoCommit(false);
            ReplicaState.install(peer);
            try (Statement statement = peer.createStatement()) {
                statement.execute("UPDATE gargamel.replica_state SET applied_index = 42, log_id = 'test-log'");
            }
            peer.commit();
        }
    }

    private static StateTransfer.Copied copyIntoTheEmptyOne() throws SQLException {
        try (Connection local = servers.connect(1)) {
            local.setAutoCommit(false);
            assertTrue(SchemaCopy.isEmpty(local, "public"), "the new replica's database is empty");
            ReplicaState.install(local);
            local.commit();
            return StateTransfer.copy(servers.jdbcUrl(0), local, "public", true);
        }
    }

    @Test
    void anEmptyDatabaseTakesARichSchemaAndItsDataAndThenBehavesAsThePeer() throws Exception {
        try (Connection peer = servers.connect(0);
                Statement statement = peer.createStatement()) {
            statement.execute(RICH_SCHEMA);
            // A SQL-standard body (parsed at creation, it needs its table), in a statement of its own: the driver
            // cannot split a script holding one.
            statement.execute("CREATE FUNCTION customer_count() RETURNS bigint LANGUAGE sql STABLE "
                    + "BEGIN ATOMIC SELECT count(*) FROM customer; END");
        }
        positionPeer();

        StateTransfer.Copied copied = copyIntoTheEmptyOne();

        assertTrue(copied.definitions() > 20, copied.describe());
        assertEquals(2, copied.tables(), copied.describe());
        assertEquals(6, copied.rows(), copied.describe());
        assertEquals(schemaDigest(0), schemaDigest(1));
        try (Connection local = servers.connect(1)) {
            assertFalse(SchemaCopy.isEmpty(local, "public"));
            assertEquals(42, ReplicaState.appliedIndex(local), "the peer's position came with the copy");
            assertEquals("test-log", ReplicaState.logId(local));
        }
        for (String query : List.of(
                "SELECT c::text FROM customer c ORDER BY id",
                "SELECT id, customer_id, note FROM \"Visit\" ORDER BY id",
                "SELECT * FROM customer_visits ORDER BY id",
                "SELECT * FROM happy",
                "SELECT customer_count()",
                "SELECT shout('hey')",
                "SELECT (happy_customers()).name",
                "SELECT last_value FROM ticket_numbers",
                "SELECT enum_range(NULL::mood)::text",
                "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname")) {
            assertEquals(rows(0, query), rows(1, query), query);
        }
        // The same writes give the same results on both: the sequences, identity, defaults, generated column, domain
        // default, trigger, procedure and constraints are all there.
        for (String write : List.of(
                "INSERT INTO customer (name) VALUES ('dee') RETURNING id, ticket, loud_name, visits, mood",
                "INSERT INTO \"Visit\" (customer_id, note) VALUES (4, 'again') RETURNING id, customer_id",
                "CALL add_customer('eve', 'happy')",
                "SELECT * FROM customer_visits ORDER BY id",
                "SELECT c::text FROM customer c ORDER BY id",
                "SELECT name FROM happy",
                "SELECT customer_count()")) {
            assertEquals(rows(0, write), rows(1, write), write);
        }
        assertEquals(List.of("2"), rows(1, "SELECT visits FROM customer WHERE name = 'dee'"), "the trigger ran");
        for (String refused : List.of(
                "INSERT INTO customer (name) VALUES ('')", // CHECK
                "INSERT INTO customer (name, visits) VALUES ('x', 0)", // the domain's CHECK
                "INSERT INTO \"Visit\" (customer_id) VALUES (999)", // FOREIGN KEY
                "INSERT INTO customer (id, name) VALUES (1, 'again')", // PRIMARY KEY
                "INSERT INTO \"Visit\" (id, customer_id) VALUES (1, 1)")) { // GENERATED ALWAYS
            SQLException onPeer = assertThrows(SQLException.class, () -> rows(0, refused), refused);
            SQLException onCopy = assertThrows(SQLException.class, () -> rows(1, refused), refused);
            assertEquals(onPeer.getSQLState(), onCopy.getSQLState(), refused);
        }
    }

    @Test
    void aSchemaTheCopyCannotReproduceIsRefusedNamingItAndNothingIsLeftBehind() throws Exception {
        try (Connection peer = servers.connect(0);
                Statement statement = peer.createStatement()) {
            statement.execute("CREATE TABLE plain (id integer PRIMARY KEY); "
                    + "CREATE TABLE measurement (at date NOT NULL, value integer) PARTITION BY RANGE (at)");
        }
        positionPeer();

        SQLException refused = assertThrows(SQLException.class, SchemaCopyTest::copyIntoTheEmptyOne);

        assertTrue(refused.getMessage().contains("partitioned table public.measurement"), refused.getMessage());
        try (Connection local = servers.connect(1)) {
            assertTrue(SchemaCopy.isEmpty(local, "public"), "everything or nothing");
            assertEquals(null, ReplicaState.logId(local), "no position without the data");
        }
    }

    private static String schemaDigest(int server) throws SQLException {
        try (Connection connection = servers.connect(server)) {
            return SchemaDigest.of(connection, "public");
        }
    }

    /** Every row of {@code sql}'s result on one server, as text (autocommit). */
    private static List<String> rows(int server, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement()) {
            if (!statement.execute(sql)) {
                return List.of("updated " + statement.getUpdateCount());
            }
            try (ResultSet result = statement.getResultSet()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i == 1 ? "" : " | ").append(result.getString(i));
                    }
                    rows.add(row.toString());
                }
            }
        }
        return rows;
    }
}
