package org.gargamel.tpcc.check;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * Row counts and content checksums of the nine TPC-C tables, to tell whether replicas converged.
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
 * server encoding (TPC-C data is ASCII). Column order is part of the row, so replicas must have the same
 * schema, which the loader guarantees.
 */
public final class TableChecksums {

    /** The nine tables of clause 1.3. */
    public static final List<String> TABLES = org.gargamel.tpcc.schema.TpccSchema.TABLES.stream()
            .map(org.gargamel.tpcc.schema.TpccTable::name)
            .toList();

    // The row's MD5 comes out of a function scan so that it is computed once for both halves (a plain
    // subquery would be inlined into each sum and hash every row twice); the scan stays parallel.
    private static final String CHECKSUM_SQL = """
            SELECT count(*) AS row_count,
                   md5(count(*) || ':' || coalesce(sum(('x' || substr(h, 1, 16))::bit(64)::bigint), 0)
                           || ':' || coalesce(sum(('x' || substr(h, 17, 16))::bit(64)::bigint), 0)) AS checksum
            FROM %s t CROSS JOIN LATERAL unnest(ARRAY[md5(t::text)]) AS h
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

    /** The checksums of the database behind {@code connection}, all nine from one snapshot. */
    public DatabaseChecksums compute(Connection connection, String database) {
        try (Snapshot snapshot = Snapshot.begin(connection, database)) {
            List<TableChecksum> tables = new ArrayList<>();
            for (String table : TABLES) {
                tables.add(checksum(connection, database, table));
            }
            snapshot.commit();
            return new DatabaseChecksums(database, tables);
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
