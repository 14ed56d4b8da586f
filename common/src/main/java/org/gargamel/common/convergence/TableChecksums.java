package org.gargamel.common.convergence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * Row counts and content checksums of an application's tables, to tell whether replicas converged: the tables given
 * (the TPC-C kit's nine), or every table of schema {@code public} in the catalogue ({@link #ofCatalogue()}: any
 * application, such as the bank).
 *
 * <p>A table's checksum is computed in the server from each row's text form ({@code t::text}, which
 * renders every column, NULL as an empty field and the empty string as {@code ""}): the MD5 of each row is
 * split into two 64-bit integers, and the checksum is the MD5 of the row count with the two exact
 * (numeric) sums of those integers over all rows. A sum does not depend on the order rows are read in,
 * so the checksum ignores physical layout without sorting anything, it counts duplicate rows (history has
 * no primary key), and it streams: one scan per table, no per-row traffic to the client. Two tables with
 * different contents get the same checksum only by a 128-bit hash collision.
 *
 * <p>Values are compared as PostgreSQL renders them: numerics with their scale (TPC-C's numeric(p,s)
 * columns store every value at scale s, so 1.0 written into numeric(12,2) is 1.00 on every replica),
 * timestamps to the microsecond (with the rendering fixed by {@link Snapshot}), text byte for byte in the
 * server encoding. Column order is part of the row, so replicas must have the same schema, which the loaders
 * guarantee.
 */
public final class TableChecksums {
    /** Every ordinary or partitioned table of schema public; the middleware's own live in schema gargamel. */
    private static final String CATALOGUE_TABLES_SQL = """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            ORDER BY c.relname
            """;

    /** The tables compared, in report order; null: every table of the catalogue, listed in each snapshot. */
    private final List<String> tables;

    /** Compares exactly {@code tables}, in this order. */
    public TableChecksums(List<String> tables) {
        this.tables = List.copyOf(tables);
    }

    private TableChecksums() {
        this.tables = null;
    }

    /** Compares every table of schema public, in name order, as each database's catalogue lists them. */
    public static TableChecksums ofCatalogue() {
        return new TableChecksums();
    }

    // The row's MD5 comes out of a function scan so that it is computed once for both halves (a plain
    // subquery would be inlined into each sum and hash every row twice); the scan stays parallel.
    private static final String CHECKSUM_SQL = """
            SELECT count(*) AS row_count,
                   md5(count(*) || ':' || coalesce(sum(('x' || substr(h, 1, 16))::bit(64)::bigint), 0)
                           || ':' || coalesce(sum(('x' || substr(h, 17, 16))::bit(64)::bigint), 0)) AS checksum
            FROM "%s" t CROSS JOIN LATERAL unnest(ARRAY[md5(t::text)]) AS h
            """;

    /** The checksums of the database at {@code jdbcUrl}, named {@code database} in reports. */
    public DatabaseChecksums compute(String jdbcUrl, String database) {
        try (Connection connection = JdbcConnections.connect(jdbcUrl)) {
            return compute(connection, database);
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot connect to " + database + " to compute table checksums: " + e.getMessage()
                            + SqlStates.describe(e),
                    e);
        }
    }

    /** The checksums of the database behind {@code connection}, every table from one snapshot. */
    public DatabaseChecksums compute(Connection connection, String database) {
        try (Snapshot snapshot = Snapshot.begin(connection, database)) {
            List<TableChecksum> checksums = new ArrayList<>();
            for (String table : tables == null ? catalogueTables(connection, database) : tables) {
                checksums.add(checksum(connection, database, table));
            }
            snapshot.commit();
            return new DatabaseChecksums(database, checksums);
        }
    }

    private static List<String> catalogueTables(Connection connection, String database) {
        List<String> names = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(CATALOGUE_TABLES_SQL)) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            return names;
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot list the tables of " + database + ": " + e.getMessage() + SqlStates.describe(e), e);
        }
    }

    /**
     * Computes the checksums of every database (one after the other) and compares them. Databases are
     * named in the report as {@code db<index>} followed by the URL without its password.
     */
    public ConvergenceReport compare(List<String> jdbcUrls) {
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("no database to compare: the list of JDBC URLs is empty");
        }
        List<String> names = DatabaseNames.of(jdbcUrls);
        List<DatabaseChecksums> checksums = new ArrayList<>();
        for (int i = 0; i < jdbcUrls.size(); i++) {
            checksums.add(compute(jdbcUrls.get(i), names.get(i)));
        }
        return ConvergenceReport.of(checksums);
    }

    private static TableChecksum checksum(Connection connection, String database, String table) {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(CHECKSUM_SQL.formatted(table))) {
            rows.next();
            return new TableChecksum(table, rows.getLong("row_count"), rows.getString("checksum"));
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot compute the checksum of table " + table + " in " + database + ": " + e.getMessage()
                            + SqlStates.describe(e),
                    e);
        }
    }
}
