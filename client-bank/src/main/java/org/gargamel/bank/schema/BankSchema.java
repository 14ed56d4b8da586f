package org.gargamel.bank.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The bank's schema (schema.sql), procedures (procedures.sql) and rules (bank-rules.yaml), and a look at what a
 * database holds. The bank is an application like any user's: Gargamel knows nothing of it beyond its rules file.
 */
public final class BankSchema {
    /** Insufficient funds: the expected user abort of withdraw and transfer. */
    public static final String INSUFFICIENT_FUNDS_SQLSTATE = "BK001";
    /** No such account (or branch) at the replica that ran the call. */
    public static final String NO_SUCH_ACCOUNT_SQLSTATE = "BK002";

    /** The tables, in the order the loader fills them. */
    public static final List<String> TABLES = List.of("branch", "account", "transfer", "entry");

    public static final String RULES_FILE = "bank-rules.yaml";

    private static final String RESOURCE_DIRECTORY = "/org/gargamel/bank/";

    private BankSchema() {}

    /** Creates the tables and the procedures in one transaction: all of them or none. */
    public static void install(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute(resource("schema.sql"));
            statement.execute(resource("procedures.sql"));
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    /** The text of a resource of the kit: schema.sql, procedures.sql or bank-rules.yaml. */
    public static String resource(String name) {
        try (InputStream in = BankSchema.class.getResourceAsStream(RESOURCE_DIRECTORY + name)) {
            if (in == null) {
                throw new IllegalStateException("the bank kit is missing its resource " + RESOURCE_DIRECTORY + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the bank kit's resource " + name, e);
        }
    }

    /** Writes the rules file into {@code directory} (created if needed), for the scheduler and the nodes. */
    public static Path writeRules(Path directory) {
        try {
            Path file = Files.createDirectories(directory).resolve(RULES_FILE);
            Files.writeString(file, resource(RULES_FILE), StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the bank's rules into " + directory + ": " + e.getMessage(), e);
        }
    }

    /** What a database holds. */
    public enum State {
        /** No table in schema public. */
        EMPTY,
        /** The bank's four tables with at least one branch. */
        LOADED,
        /** Anything else. */
        OTHER
    }

    /**
     * EMPTY, LOADED or OTHER (see {@link State}); the middleware's own objects live in schema gargamel and are not
     * looked at.
     */
    public static State inspect(Connection connection) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT c.relname FROM pg_class c "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1")) {
            while (rows.next()) {
                tables.add(rows.getString(1));
            }
        }
        if (tables.isEmpty()) {
            return State.EMPTY;
        }
        if (!tables.equals(TABLES.stream().sorted().toList())) {
            return State.OTHER;
        }
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM branch")) {
            rows.next();
            return rows.getLong(1) > 0 ? State.LOADED : State.OTHER;
        }
    }
}
