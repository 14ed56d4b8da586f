package org.gargamel.tpcc.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.tpcc.random.NURandConstants;

/**
 * The TPC-C schema of a Gargamel database: its tables (schema.sql), the five transaction procedures
 * (procedures.sql) and the secondary indexes (indexes.sql), and a look at what a database holds.
 */
public final class TpccSchema {
    /**
     * SQLSTATE raised by {@code new_order} when an item id does not exist (clause 2.4.2.3, message "Item
     * number is not valid"): the expected user rollback of 1% of New-Orders, not a failure.
     */
    public static final String INVALID_ITEM_SQLSTATE = "GA001";
    /** SQLSTATE of a call with malformed arguments (NULL keys, arrays of different lengths, ...). */
    public static final String INVALID_ARGUMENT_SQLSTATE = "22023";
    /** SQLSTATE of a call naming a warehouse, district, customer or stock row that does not exist. */
    public static final String MISSING_ROW_SQLSTATE = "P0002";

    /** The nine tables of clause 1.3 with their primary keys, in the order the loader fills them. */
    public static final List<TpccTable> TABLES = List.of(
            new TpccTable("warehouse", List.of("w_id")),
            new TpccTable("district", List.of("d_w_id", "d_id")),
            new TpccTable("customer", List.of("c_w_id", "c_d_id", "c_id")),
            new TpccTable("history", List.of()),
            new TpccTable("new_order", List.of("no_w_id", "no_d_id", "no_o_id")),
            new TpccTable("orders", List.of("o_w_id", "o_d_id", "o_id")),
            new TpccTable("order_line", List.of("ol_w_id", "ol_d_id", "ol_o_id", "ol_number")),
            new TpccTable("item", List.of("i_id")),
            new TpccTable("stock", List.of("s_w_id", "s_i_id")));

    /** The loader's record (seed, warehouses, NURand constants); not a TPC-C table, never replicated writes. */
    public static final String LOAD_INFO_TABLE = "tpcc_load_info";

    /** The five transactions, the kit's public interface (TPCC.md). */
    public static final List<String> PROCEDURES =
            List.of("new_order", "payment", "delivery", "order_status", "stock_level");

    /** Every function procedures.sql creates: the five transactions and their helper. */
    public static final List<String> FUNCTIONS =
            List.of("new_order", "payment", "delivery", "order_status", "stock_level", "tpcc_customer_by_last_name");

    /**
     * Objects of the middleware itself (write-set capture and the like) live in schema {@value} or carry
     * this prefix; {@link #inspect} ignores them.
     */
    public static final String MIDDLEWARE_PREFIX = "gargamel";

    private static final String RESOURCE_DIRECTORY = "/org/gargamel/tpcc/schema/";

    private TpccSchema() {}

    /** Creates the tables and the procedures in one transaction: all of them or none. */
    public static void install(Connection connection) throws SQLException {
        inTransaction(connection, () -> {
            execute(connection, "schema.sql");
            execute(connection, "procedures.sql");
        });
    }

    /** Creates or replaces the procedures (idempotent), e.g. after an upgrade of the kit. */
    public static void installProcedures(Connection connection) throws SQLException {
        inTransaction(connection, () -> execute(connection, "procedures.sql"));
    }

    /** Creates the secondary indexes; the loader calls it once the data is in. */
    public static void createIndexes(Connection connection) throws SQLException {
        inTransaction(connection, () -> execute(connection, "indexes.sql"));
    }

    /** The text of one of the schema scripts (schema.sql, procedures.sql, indexes.sql). */
    public static String script(String name) {
        try (InputStream in = TpccSchema.class.getResourceAsStream(RESOURCE_DIRECTORY + name)) {
            if (in == null) {
                throw new IllegalStateException(
                        "resource " + RESOURCE_DIRECTORY + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + RESOURCE_DIRECTORY + name, e);
        }
    }

    /**
     * What the database behind {@code connection} holds: EMPTY (no user tables and none of our functions),
     * LOADED (the nine tables, tpcc_load_info with exactly one row and the procedures), or OTHER with a
     * sentence naming what is there. Objects of the middleware ({@link #MIDDLEWARE_PREFIX}) are ignored.
     */
    public static DatabaseState inspect(Connection connection) throws SQLException {
        Set<String> ours = new LinkedHashSet<>();
        for (TpccTable table : TABLES) {
            ours.add(table.name());
        }
        ours.add(LOAD_INFO_TABLE);

        Set<String> presentTables = new TreeSet<>();
        List<String> foreign = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("""
                        SELECT n.nspname, c.relname,
                               CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
                                              WHEN 'f' THEN 'foreign table' ELSE 'table' END
                        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
                          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                          AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
                        ORDER BY n.nspname, c.relname""")) {
            while (rows.next()) {
                String schema = rows.getString(1);
                String name = rows.getString(2);
                if (schema.equals(MIDDLEWARE_PREFIX) || name.startsWith(MIDDLEWARE_PREFIX)) {
                    continue;
                }
                if (schema.equals("public") && ours.contains(name)) {
                    presentTables.add(name);
                } else {
                    String qualified = schema.equals("public") ? name : schema + "." + name;
                    foreign.add(rows.getString(3) + " '" + qualified + "'");
                }
            }
        }
        if (!foreign.isEmpty()) {
            return DatabaseState.other("database holds " + String.join(", ", foreign)
                    + (foreign.size() == 1 ? " that is" : " that are") + " not part of the TPC-C schema");
        }

        Set<String> presentFunctions = new TreeSet<>();
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.proname = ANY (?)""")) {
            statement.setArray(1, connection.createArrayOf("text", FUNCTIONS.toArray()));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    presentFunctions.add(rows.getString(1));
                }
            }
        }

        if (presentTables.isEmpty() && presentFunctions.isEmpty()) {
            return DatabaseState.EMPTY;
        }
        if (presentTables.isEmpty()) {
            return DatabaseState.other("database holds the TPC-C function(s) " + String.join(", ", presentFunctions)
                    + " but none of the TPC-C tables");
        }
        List<String> missingTables = new ArrayList<>();
        for (String table : ours) {
            if (!presentTables.contains(table)) {
                missingTables.add(table);
            }
        }
        if (!missingTables.isEmpty()) {
            return DatabaseState.other(
                    "TPC-C schema incomplete: table(s) " + String.join(", ", missingTables) + " missing");
        }
        long loadRows;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + LOAD_INFO_TABLE)) {
            rows.next();
            loadRows = rows.getLong(1);
        }
        if (loadRows == 0) {
            return DatabaseState.other("TPC-C load incomplete: " + LOAD_INFO_TABLE + " is empty");
        }
        if (loadRows > 1) {
            return DatabaseState.other(LOAD_INFO_TABLE + " holds " + loadRows + " rows, expected exactly one");
        }
        List<String> missingFunctions = new ArrayList<>();
        for (String function : FUNCTIONS) {
            if (!presentFunctions.contains(function)) {
                missingFunctions.add(function);
            }
        }
        if (!missingFunctions.isEmpty()) {
            return DatabaseState.other("TPC-C data loaded but procedure(s) " + String.join(", ", missingFunctions)
                    + " missing (TpccSchema.installProcedures installs them)");
        }
        return DatabaseState.LOADED;
    }

    /** The load's record; fails unless tpcc_load_info holds exactly one row. */
    public static LoadInfo readLoadInfo(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT seed, warehouses, c_last_load_c, c_id_c, ol_i_id_c FROM " + LOAD_INFO_TABLE)) {
            if (!rows.next()) {
                throw new IllegalStateException(
                        LOAD_INFO_TABLE + " is empty: the database was not (completely) loaded");
            }
            LoadInfo info = new LoadInfo(
                    rows.getLong(1),
                    rows.getInt(2),
                    new NURandConstants(rows.getInt(3), rows.getInt(4), rows.getInt(5)));
            if (rows.next()) {
                throw new IllegalStateException(LOAD_INFO_TABLE + " holds more than one row, expected exactly one");
            }
            return info;
        }
    }

    /** Writes the load's record, the last step of a load: its presence marks the database LOADED. */
    public static void writeLoadInfo(Connection connection, LoadInfo info, LocalDateTime loadedAt) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + LOAD_INFO_TABLE
                + " (seed, warehouses, c_last_load_c, c_id_c, ol_i_id_c, loaded_at) VALUES (?, ?, ?, ?, ?, ?)")) {
            statement.setLong(1, info.seed());
            statement.setInt(2, info.warehouses());
            statement.setInt(3, info.loadConstants().cLast());
            statement.setInt(4, info.loadConstants().cId());
            statement.setInt(5, info.loadConstants().olIId());
            statement.setTimestamp(6, Timestamp.valueOf(loadedAt));
            statement.executeUpdate();
        }
    }

    private static void execute(Connection connection, String scriptName) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(script(scriptName));
        } catch (SQLException e) {
            throw new SQLException("cannot run " + scriptName + ": " + e.getMessage(), e.getSQLState(), e);
        }
    }

    @FunctionalInterface
    private interface SqlWork {
        void run() throws SQLException;
    }

    private static void inTransaction(Connection connection, SqlWork work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            work.run();
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
