package org.gargamel.node.writeset;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a replica records about itself in its own database, in schema {@code gargamel} (never replicated, never
 * captured), so a restarted node knows where it stands in the write-set log (docs/node.md, Restart):
 * <ul>
 * <li>{@code replica_state.applied_index}: every log entry up to this index is reflected in this database. It is
 * written in the same transaction as each write-set applied here, so it is never ahead of or behind the data.
 * {@code replica_state.log_id} names the log it counts in (a digest of the log's first entry): met with another
 * log (a cluster started afresh on these databases), the position starts again from 0.</li>
 * <li>{@code committed_ahead}: transactions reflected here whose log entry lies beyond {@code applied_index}: this
 * node's own calls (a PSI call commits before its entry is in the log; the row is inserted in the call's own
 * transaction), and write-sets applied while an earlier entry still waited (an origin's write-sets apply in their
 * commit order). Deleted once {@code applied_index} passes them, so after a crash a replayed entry that is already
 * here is recognised and not applied twice.</li>
 * <li>{@code replica_state.tainted}: set (with the reason) when this replica holds a transaction the log settled as
 * abandoned; the next start rebuilds the replica from a peer (StateTransfer) and clears it.</li>
 * <li>{@code commit_order}: a sequence (no cache) that PSI calls draw from just before they commit. A call that read
 * another's effects drew after it, so handing write-sets to the log in this order keeps the log consistent with what
 * each transaction could read.</li>
 * </ul>
 */
public final class ReplicaState {
    public static final String SCHEMA = "gargamel";
    public static final String COMMITTED_AHEAD = "INSERT INTO " + SCHEMA + ".committed_ahead (txn) VALUES (?)";
    public static final String NEXT_COMMIT_ORDER = "SELECT nextval('" + SCHEMA + ".commit_order')";
    public static final String CURRENT_COMMIT_ORDER = "SELECT currval('" + SCHEMA + ".commit_order')";

    private ReplicaState() {}

    /** Creates the objects if missing (idempotent). The caller commits. */
    public static void install(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            statement.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".replica_state (singleton boolean PRIMARY KEY "
                    + "DEFAULT true CHECK (singleton), applied_index bigint NOT NULL)");
            statement.execute(
                    "INSERT INTO " + SCHEMA + ".replica_state (applied_index) VALUES (0) ON CONFLICT DO NOTHING");
            statement.execute("ALTER TABLE " + SCHEMA + ".replica_state ADD COLUMN IF NOT EXISTS log_id text");
            statement.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".committed_ahead (txn bigint PRIMARY KEY)");
            statement.execute("CREATE SEQUENCE IF NOT EXISTS " + SCHEMA + ".commit_order CACHE 1");
            statement.execute("ALTER TABLE " + SCHEMA + ".replica_state ADD COLUMN IF NOT EXISTS tainted text");
        }
    }

    /**
     * Records why this replica must not serve as it is: it holds what the others do not (a transaction it committed
     * that the log settled as abandoned). The next start rebuilds it from a peer before anything else
     * ({@code StateTransfer}). Committed at once, on its own.
     */
    public static void markTainted(Connection connection, String reason) throws SQLException {
        connection.rollback();
        try (Statement flushed = connection.createStatement()) {
            // The replay cannot bring a lost mark back: it waits for its WAL flush whatever the session's setting.
            flushed.execute("SET LOCAL synchronous_commit TO on");
        }
        try (PreparedStatement statement =
                connection.prepareStatement("UPDATE " + SCHEMA + ".replica_state SET tainted = ?")) {
            statement.setString(1, reason);
            statement.executeUpdate();
        }
        connection.commit();
    }

    /** Why this replica must be rebuilt before it serves, or null. */
    public static String tainted(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT tainted FROM " + SCHEMA + ".replica_state")) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** Sets the applied index to its one parameter (a statement for the apply loop's transactions). */
    private static final String SET_APPLIED_INDEX = "UPDATE " + SCHEMA + ".replica_state SET applied_index = $1";

    /** Records the transactions of its one parameter (bigint[]) as reflected here ahead of the applied index. */
    private static final String RECORD_COMMITTED_AHEAD =
            "INSERT INTO " + SCHEMA + ".committed_ahead (txn) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING";

    /** Forgets the transactions of its one parameter (bigint[]), which the applied index has passed. */
    private static final String FORGET_COMMITTED_AHEAD =
            "DELETE FROM " + SCHEMA + ".committed_ahead WHERE txn = ANY ($1::bigint[])";

    /**
     * One statement of the bookkeeping: its text, whose one parameter is {@code $1} of {@code type}, and the value as
     * an SQL literal (digits, and braces and commas for an array: nothing a client controls).
     */
    public record Step(String sql, String type, String literal) {
        /** The statement with its value written in, for a connection that does not keep it prepared. */
        public String inlined() {
            return sql.replace("$1", literal + "::" + type);
        }
    }

    /**
     * What an apply transaction records of the replica's state after its changes: the applied index (none if
     * negative), the transactions it reflects ahead of it ({@code committed_ahead} rows), and those the index passes
     * (rows deleted). Each is a statement of a fixed text with one parameter, which the apply connection prepares once
     * (WriteSetApplier): a transaction's values never make PostgreSQL parse and plan it again (docs/costs.md, Third
     * round; CaptureAndApplyTest, theApplyBookkeepingIsPreparedOnceWhateverItsValues).
     */
    public record Bookkeeping(long appliedIndex, List<Long> ahead, List<Long> passed) {
        /** Records nothing. */
        public static final Bookkeeping NONE = new Bookkeeping(-1, List.of(), List.of());

        public Bookkeeping {
            ahead = List.copyOf(ahead);
            passed = List.copyOf(passed);
        }

        /** Its statements, in the order they run: the position, the rows added, the rows forgotten. */
        public List<Step> steps() {
            List<Step> steps = new ArrayList<>(3);
            if (appliedIndex >= 0) {
                steps.add(new Step(SET_APPLIED_INDEX, "bigint", Long.toString(appliedIndex)));
            }
            if (!ahead.isEmpty()) {
                steps.add(new Step(RECORD_COMMITTED_AHEAD, "bigint[]", array(ahead)));
            }
            if (!passed.isEmpty()) {
                steps.add(new Step(FORGET_COMMITTED_AHEAD, "bigint[]", array(passed)));
            }
            return steps;
        }

        private static String array(List<Long> txns) {
            StringBuilder array = new StringBuilder("'{");
            for (int i = 0; i < txns.size(); i++) {
                array.append(i == 0 ? "" : ",").append(txns.get(i).longValue());
            }
            return array.append("}'").toString();
        }
    }

    /** Runs {@code bookkeeping} alone in the current transaction. */
    public static void execute(Connection connection, Bookkeeping bookkeeping) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (Step step : bookkeeping.steps()) {
                statement.execute(step.inlined());
            }
        }
    }

    /** The log the applied index counts in (null: none yet). */
    public static String logId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT log_id FROM " + SCHEMA + ".replica_state")) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** Starts counting in log {@code logId} from nothing, in the current transaction (the caller commits). */
    public static void startLog(Connection connection, String logId) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + SCHEMA
                + ".replica_state SET applied_index = 0, log_id = ?; DELETE FROM " + SCHEMA + ".committed_ahead")) {
            statement.setString(1, logId);
            statement.execute();
        }
    }

    /** The last log index reflected in this database (0: none). */
    public static long appliedIndex(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT applied_index FROM " + SCHEMA + ".replica_state")) {
            return rows.next() ? rows.getLong(1) : 0;
        }
    }

    /** Transactions reflected here whose log entries lie beyond the applied index. */
    public static Set<Long> committedAhead(Connection connection) throws SQLException {
        Set<Long> txns = new HashSet<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT txn FROM " + SCHEMA + ".committed_ahead")) {
            while (rows.next()) {
                txns.add(rows.getLong(1));
            }
        }
        return txns;
    }

    /**
     * Draws from {@code commit_order} once, so the next PSI commit draws the returned value + 1: a crash may have
     * skipped values (a sequence is logged ahead), and the order of hand-over must start where the draws do.
     */
    public static long drawCommitOrder(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(NEXT_COMMIT_ORDER)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
