package org.gargamel.tpcc.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.tpcc.loader.LoadException;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.LoadedTpccServers;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.random.NURandConstants;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link TpccSchema#inspect} on fresh databases of the pristine server (each test creates its own). */
@Tag("integration")
class TpccSchemaInspectTest {
    private static LoadedTpccServers servers;

    @BeforeAll
    static void load() throws SQLException {
        servers = LoadedTpccServers.get();
    }

    /** A new empty database on the pristine server; returns its JDBC URL. */
    private static String createDatabase(String name) throws SQLException {
        try (Connection connection = servers.connect(LoadedTpccServers.PRISTINE);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        String url = servers.jdbcUrl(LoadedTpccServers.PRISTINE);
        String databaseUrl = url.replaceFirst("/postgres(\\?|$)", "/" + name + "$1");
        assertTrue(!databaseUrl.equals(url), "the test expects a URL naming database postgres: " + url);
        return databaseUrl;
    }

    @Test
    void aNewDatabaseIsEmpty() throws SQLException {
        try (Connection connection = JdbcConnections.connect(createDatabase("inspect_empty"))) {
            assertEquals(DatabaseState.EMPTY, TpccSchema.inspect(connection));
        }
    }

    @Test
    void theLoadedDatabaseIsLoaded() throws SQLException {
        try (Connection connection = servers.connect(LoadedTpccServers.PRISTINE)) {
            assertEquals(DatabaseState.LOADED, TpccSchema.inspect(connection));
        }
    }

    @Test
    void aForeignTableIsNamedAndTheLoaderRefusesTheDatabase() throws SQLException {
        String url = createDatabase("inspect_foreign");
        try (Connection connection = JdbcConnections.connect(url);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE accounts (id int)");
            DatabaseState state = TpccSchema.inspect(connection);
            assertEquals(DatabaseState.Status.OTHER, state.status());
            assertEquals("database holds table 'accounts' that is not part of the TPC-C schema", state.description());
        }
        LoadException e = assertThrows(
                LoadException.class, () -> new TpccLoader(new LoadOptions(1, 7, 1), LoadProgress.silent()).load(url));
        assertTrue(e.getMessage().contains(url) && e.getMessage().contains("'accounts'"), e.getMessage());
    }

    @Test
    void middlewareObjectsAreIgnored() throws SQLException {
        try (Connection connection = JdbcConnections.connect(createDatabase("inspect_middleware"));
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE gargamel_capture (id int)");
            statement.execute("CREATE SCHEMA gargamel");
            statement.execute("CREATE TABLE gargamel.applied (id int)");
            assertEquals(DatabaseState.EMPTY, TpccSchema.inspect(connection));
        }
    }

    @Test
    void installedButNotLoadedIsAnIncompleteLoad() throws SQLException {
        try (Connection connection = JdbcConnections.connect(createDatabase("inspect_incomplete"))) {
            TpccSchema.install(connection);
            DatabaseState state = TpccSchema.inspect(connection);
            assertEquals(DatabaseState.Status.OTHER, state.status());
            assertEquals("TPC-C load incomplete: tpcc_load_info is empty", state.description());
            assertThrows(IllegalStateException.class, () -> TpccSchema.readLoadInfo(connection));

            LoadInfo info = new LoadInfo(5, 2, new NURandConstants(1, 2, 3));
            TpccSchema.writeLoadInfo(connection, info, java.time.LocalDateTime.of(2025, 1, 1, 0, 0));
            assertEquals(DatabaseState.LOADED, TpccSchema.inspect(connection));
            assertEquals(info, TpccSchema.readLoadInfo(connection));

            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP FUNCTION stock_level");
            }
            state = TpccSchema.inspect(connection);
            assertEquals(DatabaseState.Status.OTHER, state.status());
            assertTrue(state.description().contains("procedure(s) stock_level missing"), state.description());
            TpccSchema.installProcedures(connection);
            assertEquals(DatabaseState.LOADED, TpccSchema.inspect(connection));

            try (Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE history");
            }
            state = TpccSchema.inspect(connection);
            assertEquals("TPC-C schema incomplete: table(s) history missing", state.description());
        }
    }

    @Test
    void installIsAllOrNothing() throws SQLException {
        try (Connection connection = JdbcConnections.connect(createDatabase("inspect_atomic"));
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE stock (x int)"); // makes schema.sql fail half-way
            SQLException e = assertThrows(SQLException.class, () -> TpccSchema.install(connection));
            assertTrue(e.getMessage().startsWith("cannot run schema.sql"), e.getMessage());
            assertEquals("42P07", e.getSQLState());
            statement.execute("DROP TABLE stock");
            assertEquals(DatabaseState.EMPTY, TpccSchema.inspect(connection), "nothing of the failed install remains");
        }
    }
}
