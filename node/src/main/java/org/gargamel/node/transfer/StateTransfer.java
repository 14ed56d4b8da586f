package org.gargamel.node.transfer;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.node.writeset.ReplicaState;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.PGCopyInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds this replica from a live peer's database (docs/node.md, Rebuild): one consistent snapshot of the peer
 * (REPEATABLE READ, read only) gives every table of the schema, the peer's position in the write-set log
 * ({@code applied_index}, {@code log_id}) and its committed-ahead transactions, all as of the same moment. Here, in one
 * transaction with triggers off: every table emptied and refilled by COPY, streamed from the peer (no file, no extra
 * copy in memory), the sequences set to the peer's values, and the peer's position and committed-ahead rows taken as
 * this replica's own. The node then replays its write-set log from that position, like any restart. Generic over the
 * schema: nothing here knows TPC-C. Into an empty database (a new replica), the schema's definition comes first, read
 * from the same snapshot ({@link SchemaCopy}).
 */
public final class StateTransfer {
    private static final Logger LOG = LoggerFactory.getLogger(StateTransfer.class);

    /** What one transfer copied; {@code definitions}: the schema's, when it was copied too (else 0). */
    public record Copied(String peer, long appliedIndex, int definitions, int tables, long rows, long millis) {
        public String describe() {
            return String.format(
                    "%s%d table(s), %,d row(s) from %s at log entry %d in %d ms (%,.0f rows/s)",
                    definitions == 0 ? "" : "the schema (" + definitions + " definitions), ",
                    tables,
                    rows,
                    peer,
                    appliedIndex,
                    millis,
                    millis == 0 ? 0.0 : rows * 1000.0 / millis);
        }
    }

    private StateTransfer() {}

    /**
     * Copies {@code schema} of the peer at {@code peerUrl} into {@code local} (autocommit off), with the peer's log
     * position. Everything or nothing: on failure the local transaction is rolled back.
     */
    public static Copied copy(String peerUrl, Connection local, String schema) throws SQLException {
        return copy(peerUrl, local, schema, false);
    }

    /**
     * As {@link #copy(String, Connection, String)}; with {@code withSchema}, into a database that does not hold the
     * schema yet: its definition is read from the same snapshot of the peer and recreated first, in the same
     * transaction ({@link SchemaCopy}), and checked against the peer's at the end.
     */
    public static Copied copy(String peerUrl, Connection local, String schema, boolean withSchema) throws SQLException {
        long started = System.nanoTime();
        String peer = Secrets.maskUrl(peerUrl);
        try (Connection source = JdbcConnections.connect(peerUrl)) {
            source.setAutoCommit(false);
            try (Statement statement = source.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            }
            long appliedIndex;
            String logId;
            List<Long> ahead = new ArrayList<>();
            try (Statement statement = source.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT applied_index, log_id, tainted FROM " + ReplicaState.SCHEMA + ".replica_state")) {
                if (!rows.next() || rows.getString(2) == null) {
                    throw new SQLException(peer + " has no position in a write-set log: it cannot be copied");
                }
                if (rows.getString(3) != null) {
                    throw new SQLException(peer + " must be rebuilt itself (" + rows.getString(3) + ")");
                }
                appliedIndex = rows.getLong(1);
                logId = rows.getString(2);
            }
            try (Statement statement = source.createStatement();
                    ResultSet rows =
                            statement.executeQuery("SELECT txn FROM " + ReplicaState.SCHEMA + ".committed_ahead")) {
                while (rows.next()) {
                    ahead.add(rows.getLong(1));
                }
            }
            SchemaCopy.Plan schemaPlan = null;
            if (withSchema) {
                schemaPlan = SchemaCopy.read(source, schema);
                SchemaCopy.execute(local, schemaPlan.beforeData());
            }
            List<String> tables = tables(local, schema);
            long rowsCopied = 0;
            CopyManager into = local.unwrap(PGConnection.class).getCopyAPI();
            try (Statement statement = local.createStatement()) {
                // Triggers (capture, foreign keys) off: the rows are the peer's, already checked there.
                statement.execute("SET LOCAL session_replication_role = replica");
                if (!tables.isEmpty()) {
                    statement.execute("TRUNCATE " + String.join(", ", tables));
                }
            }
            for (String table : tables) {
                try (PGCopyInputStream rows = new PGCopyInputStream(
                        source.unwrap(PGConnection.class), "COPY " + table + " TO STDOUT (FORMAT binary)")) {
                    rowsCopied += into.copyIn("COPY " + table + " FROM STDIN (FORMAT binary)", rows);
                } catch (IOException e) {
                    throw new SQLException("cannot copy " + table + " from " + peer + ": " + e.getMessage(), e);
                }
            }
            copySequences(source, local, schema);
            if (schemaPlan != null) {
                // Keys, indexes and triggers once the rows are in, as a restore does.
                SchemaCopy.execute(local, schemaPlan.afterData());
                SchemaCopy.verify(source, local, schema, schemaPlan);
            }
            try (Statement statement = local.createStatement()) {
                statement.execute("UPDATE " + ReplicaState.SCHEMA + ".replica_state SET applied_index = " + appliedIndex
                        + ", log_id = '" + logId.replace("'", "''") + "', tainted = NULL");
                statement.execute("DELETE FROM " + ReplicaState.SCHEMA + ".committed_ahead");
            }
            ReplicaState.execute(local, new ReplicaState.Bookkeeping(-1, List.copyOf(ahead), List.of()));
            local.commit();
            source.rollback();
            Copied copied = new Copied(
                    peer,
                    appliedIndex,
                    schemaPlan == null ? 0 : schemaPlan.size(),
                    tables.size(),
                    rowsCopied,
                    (System.nanoTime() - started) / 1_000_000);
            LOG.info("rebuilt this replica: {}", copied.describe());
            return copied;
        } catch (SQLException | RuntimeException e) {
            local.rollback();
            throw e;
        }
    }

    /** The schema's tables (quoted, schema-qualified), in name order. */
    private static List<String> tables(Connection connection, String schema) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (var query = connection.prepareStatement(
                "SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = "
                        + "c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
                        + "ORDER BY c.relname")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
        }
        return tables;
    }

    /** Sets every sequence of the schema to the peer's value. */
    private static void copySequences(Connection source, Connection local, String schema) throws SQLException {
        try (var query = source.prepareStatement("SELECT format('%I.%I', schemaname, sequencename), last_value "
                + "FROM pg_sequences WHERE schemaname = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery();
                    var set = local.prepareStatement("SELECT setval(?::regclass, ?, ?)")) {
                while (rows.next()) {
                    if (rows.getObject(2) == null) {
                        continue; // never used there
                    }
                    set.setString(1, rows.getString(1));
                    set.setLong(2, rows.getLong(2));
                    set.setBoolean(3, true);
                    set.execute();
                }
            }
        }
    }
}
