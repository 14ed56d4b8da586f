package org.gargamel.launcher.verify;

import java.io.PrintStream;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.common.convergence.Snapshot;
import org.gargamel.common.convergence.SqlStates;
import org.gargamel.common.jdbc.Identifiers;

/**
 * {@code gargamel verify}: whether the replicas of a running cluster hold the same rows, checked beside its traffic
 * (docs/frontend.md, Security: An online divergence check).
 *
 * <p>A replica's snapshot reflects the log entries up to its applied index and the transactions it holds ahead of it
 * ({@code gargamel.replica_state}, {@code gargamel.committed_ahead}, written in the same transactions as the data), so
 * two replicas under load are compared at states that differ by what is in flight. The check therefore goes in rounds:
 * <ol>
 * <li>Every replica's tables are summed per bucket of primary keys, in one snapshot per replica (an order-independent
 * sum of row hashes, as {@code TableChecksums}); buckets that agree everywhere hold the same rows. In the buckets that
 * do not, the rows are read by key: the <em>suspects</em> are the keys whose rows differ.</li>
 * <li>The check then waits until every transaction any replica reflected in round 1 is reflected everywhere: each
 * replica's applied index has passed what it held ahead, and every replica has reached the highest index any had
 * then. The suspects are read again: a key in flight has changed since (it took the writes it lacked); a key whose row
 * is still what it was at every replica, and still differs, has not.</li>
 * <li>The same once more; what still differs, unchanged, is reported: the table and the key.</li>
 * </ol>
 * A key written without pause can escape (it changes every round); a divergence that stays, as one made by hand, is
 * found. "Unchanged" compares each row's hash and the transaction that wrote it ({@code xmin}), so that a row written
 * again with its old values counts as changed. Each table is read in a snapshot of its own (no snapshot holds back the
 * replicas' vacuum for the whole check), and the reads are paced ({@code rowsPerSecond}) so that the check can run
 * beside production traffic. The replicas must count in one write-set log ({@code replica_state.log_id}).
 */
public final class OnlineVerify {
    /** The key of a table without a primary key: the whole row. */
    private static final String PRIMARY_KEY_LESS = "t::text";

    /** Differing buckets are read key by key this many at a time. */
    private static final int BUCKETS_PER_READ = 64;

    /** More keys of one table differing at once is no traffic in flight: the check stops, saying so. */
    private static final int MAX_SUSPECT_KEYS = 100_000;

    private static final String BUCKET_SUMS = """
            SELECT (hashtextextended(%1$s, 0) & %2$d)::int AS bucket,
                   count(*) || ':' || coalesce(sum(('x' || substr(h, 1, 16))::bit(64)::bigint), 0)
                           || ':' || coalesce(sum(('x' || substr(h, 17, 16))::bit(64)::bigint), 0) AS sums
            FROM %3$s t CROSS JOIN LATERAL unnest(ARRAY[md5(t::text)]) AS h
            GROUP BY 1
            """;

    /** How the check reads: buckets per table (a power of two), rows per second, how long it waits for the log. */
    public record Options(int buckets, long rowsPerSecond, Duration settleTimeout) {
        public Options {
            if (buckets < 1 || Integer.bitCount(buckets) != 1) {
                throw new IllegalArgumentException("buckets must be a power of two, got " + buckets);
            }
            if (rowsPerSecond < 1) {
                throw new IllegalArgumentException("rows per second must be at least 1, got " + rowsPerSecond);
            }
        }
    }

    /** A key whose row differs between replicas and stayed so: each replica's row hash (null: no such row). */
    public record Divergence(String table, String key, List<String> rowHashes) {}

    /**
     * What the check found: the divergences (none: the replicas agree), how many keys were in flight in round 1 and
     * agreed later, and how many rows were read.
     */
    public record Report(List<String> replicas, List<Divergence> divergences, int inFlight, long rowsRead) {
        public boolean identical() {
            return divergences.isEmpty();
        }
    }

    private final List<String> urls;
    private final List<String> names;
    private final Options options;
    private final PrintStream progress;
    private long rowsRead;

    public OnlineVerify(List<String> urls, List<String> names, Options options, PrintStream progress) {
        if (urls.size() < 2) {
            throw new IllegalArgumentException("verify compares at least two replicas, got " + urls.size());
        }
        this.urls = List.copyOf(urls);
        this.names = List.copyOf(names);
        this.options = options;
        this.progress = progress;
    }

    /** Runs the three rounds; a CheckException names a replica that cannot be read or that never settles. */
    public Report run() throws InterruptedException {
        List<Connection> connections = new ArrayList<>();
        try {
            for (int r = 0; r < urls.size(); r++) {
                connections.add(connect(r));
            }
            Map<String, String> tables = tables(connections);
            // Round 1: per table, in a snapshot of its own, the buckets, then the rows of the buckets that differ.
            List<Position> before = new ArrayList<>();
            Map<String, Map<String, List<String>>> suspects = new LinkedHashMap<>();
            int done = 0;
            for (Map.Entry<String, String> table : tables.entrySet()) {
                long tableRows;
                List<Snapshot> snapshots = begin(connections);
                try {
                    for (int r = 0; r < connections.size(); r++) {
                        before = merged(before, r, Position.read(connections.get(r)));
                    }
                    requireOneLog(before);
                    Map<Integer, Long> rowsOf = new HashMap<>();
                    Set<Integer> buckets = differingBuckets(connections, table.getKey(), table.getValue(), rowsOf);
                    tableRows = rowsOf.values().stream()
                            .mapToLong(Long::longValue)
                            .max()
                            .orElse(0);
                    if (!buckets.isEmpty()) {
                        Map<String, List<String>> keys =
                                differingRows(connections, table.getKey(), table.getValue(), buckets);
                        if (!keys.isEmpty()) {
                            suspects.put(table.getKey(), keys);
                        }
                    }
                } finally {
                    end(snapshots);
                }
                pace(tableRows);
                progress.printf(
                        "\rverify: round 1, %d of %d tables, %d keys differing",
                        ++done, tables.size(), count(suspects));
            }
            progress.println();
            int inFlight = count(suspects);
            for (int round = 2; round <= 3 && !suspects.isEmpty(); round++) {
                settle(connections, before);
                before = new ArrayList<>();
                List<Snapshot> snapshots = begin(connections);
                try {
                    for (int r = 0; r < connections.size(); r++) {
                        before = merged(before, r, Position.read(connections.get(r)));
                    }
                    suspects = stillDiffering(connections, tables, suspects);
                } finally {
                    end(snapshots);
                }
                progress.printf("verify: round %d, %d keys still differing, unchanged%n", round, count(suspects));
            }
            List<Divergence> divergences = new ArrayList<>();
            suspects.forEach((table, keys) -> keys.forEach((key, fingerprints) -> divergences.add(new Divergence(
                    table, key, fingerprints.stream().map(OnlineVerify::rowHash).toList()))));
            return new Report(names, divergences, inFlight - divergences.size(), rowsRead);
        } finally {
            for (Connection connection : connections) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // Closing after the check: nothing is pending.
                }
            }
        }
    }

    private Connection connect(int replica) {
        try {
            java.util.Properties properties = new java.util.Properties();
            properties.setProperty("connectTimeout", "10");
            properties.setProperty("socketTimeout", "600"); // a replica that stops answering ends the check
            properties.setProperty("ApplicationName", "gargamel verify");
            return java.sql.DriverManager.getConnection(urls.get(replica), properties);
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot connect to " + names.get(replica) + ": " + e.getMessage() + SqlStates.describe(e), e);
        }
    }

    /**
     * Every table of schema public with the expression of its key ({@code ROW(pk columns)::text}; without a primary
     * key, the whole row); the same list at every replica, or the check stops naming the difference.
     */
    private Map<String, String> tables(List<Connection> connections) {
        Map<String, String> first = null;
        for (int r = 0; r < connections.size(); r++) {
            Map<String, String> tables = new LinkedHashMap<>();
            try (Statement statement = connections.get(r).createStatement();
                    ResultSet rows = statement.executeQuery("""
                            SELECT c.relname, (SELECT string_agg('t.' || quote_ident(a.attname), ', '
                                                               ORDER BY array_position(i.indkey, a.attnum))
                                               FROM pg_index i JOIN pg_attribute a
                                                 ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                                               WHERE i.indrelid = c.oid AND i.indisprimary)
                            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                            ORDER BY c.relname""")) {
                while (rows.next()) {
                    String key = rows.getString(2);
                    tables.put(rows.getString(1), key == null ? PRIMARY_KEY_LESS : "ROW(" + key + ")::text");
                }
            } catch (SQLException e) {
                throw new CheckException("cannot list the tables of " + names.get(r) + ": " + e.getMessage(), e);
            }
            if (first == null) {
                first = tables;
            } else if (!first.equals(tables)) {
                throw new CheckException(
                        "the schemas differ: " + names.get(0) + " has tables " + first.keySet() + " keyed "
                                + first.values() + ", " + names.get(r) + " " + tables.keySet() + " keyed "
                                + tables.values(),
                        null);
            }
        }
        return first;
    }

    /** The buckets of {@code table} whose sums are not the same at every replica; each replica's rows into {@code rowsOf}. */
    private Set<Integer> differingBuckets(
            List<Connection> connections, String table, String key, Map<Integer, Long> rowsOf) {
        List<Map<Integer, String>> sums = new ArrayList<>();
        for (int r = 0; r < connections.size(); r++) {
            Map<Integer, String> buckets = new HashMap<>();
            long rows = 0;
            try (Statement statement = connections.get(r).createStatement();
                    ResultSet result =
                            statement.executeQuery(BUCKET_SUMS.formatted(key, options.buckets() - 1, quote(table)))) {
                while (result.next()) {
                    String bucketSums = result.getString(2);
                    buckets.put(result.getInt(1), bucketSums);
                    rows += Long.parseLong(bucketSums.substring(0, bucketSums.indexOf(':')));
                }
            } catch (SQLException e) {
                throw new CheckException(
                        "cannot read table " + table + " of " + names.get(r) + ": " + e.getMessage(), e);
            }
            sums.add(buckets);
            rowsRead += rows;
            rowsOf.put(r, rows);
        }
        Set<Integer> differing = new TreeSet<>();
        Set<Integer> all = new HashSet<>();
        sums.forEach(buckets -> all.addAll(buckets.keySet()));
        for (int bucket : all) {
            String first = sums.get(0).get(bucket);
            for (Map<Integer, String> other : sums) {
                if (!Objects.equals(first, other.get(bucket))) {
                    differing.add(bucket);
                }
            }
        }
        return differing;
    }

    /** In {@code buckets} of {@code table}, the keys whose rows differ: each replica's row fingerprint (null: none). */
    private Map<String, List<String>> differingRows(
            List<Connection> connections, String table, String key, Set<Integer> buckets) throws InterruptedException {
        String sql = rowsSql(
                table, key, "(hashtextextended(" + key + ", 0) & " + (options.buckets() - 1) + ")::int = ANY (?)");
        Map<String, List<String>> differing = new LinkedHashMap<>();
        List<Integer> all = new ArrayList<>(buckets);
        for (int from = 0; from < all.size(); from += BUCKETS_PER_READ) {
            List<Integer> read = all.subList(from, Math.min(all.size(), from + BUCKETS_PER_READ));
            long readBefore = rowsRead;
            differing.putAll(differing(
                    connections, table, sql, connection -> connection.createArrayOf("integer", read.toArray())));
            pace((rowsRead - readBefore) / connections.size());
            if (differing.size() > MAX_SUSPECT_KEYS) {
                throw new CheckException(
                        "more than " + MAX_SUSPECT_KEYS + " keys of table " + table + " differ between the replicas "
                                + "at once (" + buckets.size() + " of " + options.buckets() + " buckets), far more "
                                + "than is ever in flight: compare them stopped (tpcc check), or rebuild the replica",
                        null);
            }
        }
        return differing;
    }

    /** Of {@code suspects}, the keys whose rows still differ with every replica's row as it was (hash and writer). */
    private Map<String, Map<String, List<String>>> stillDiffering(
            List<Connection> connections, Map<String, String> tables, Map<String, Map<String, List<String>>> suspects) {
        Map<String, Map<String, List<String>>> still = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, List<String>>> table : suspects.entrySet()) {
            String key = tables.get(table.getKey());
            String sql = rowsSql(table.getKey(), key, key + " = ANY (?)");
            List<String> keys = new ArrayList<>(table.getValue().keySet());
            Map<String, List<String>> now = differing(
                    connections, table.getKey(), sql, connection -> connection.createArrayOf("text", keys.toArray()));
            Map<String, List<String>> unchanged = new LinkedHashMap<>();
            now.forEach((k, fingerprints) -> {
                if (fingerprints.equals(table.getValue().get(k))) {
                    unchanged.put(k, fingerprints);
                }
            });
            if (!unchanged.isEmpty()) {
                still.put(table.getKey(), unchanged);
            }
        }
        return still;
    }

    @FunctionalInterface
    private interface Parameter {
        Array of(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code sql} (key, row hash, row writer; one array parameter; {@link #rowsSql}) at every replica and keeps
     * the keys whose hashes differ, with each replica's fingerprint ({@code hash xmin}).
     */
    private Map<String, List<String>> differing(
            List<Connection> connections, String table, String sql, Parameter parameter) {
        Map<String, String[]> fingerprints = new LinkedHashMap<>();
        for (int r = 0; r < connections.size(); r++) {
            try (PreparedStatement statement = connections.get(r).prepareStatement(sql)) {
                statement.setArray(1, parameter.of(connections.get(r)));
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        rowsRead++;
                        fingerprints.computeIfAbsent(rows.getString(1), k -> new String[connections.size()])[r] =
                                rows.getString(2) + " " + rows.getString(3);
                    }
                }
            } catch (SQLException e) {
                throw new CheckException(
                        "cannot read the rows of table " + table + " of " + names.get(r) + ": " + e.getMessage(), e);
            }
        }
        Map<String, List<String>> differing = new LinkedHashMap<>();
        fingerprints.forEach((key, perReplica) -> {
            List<String> list = java.util.Arrays.asList(perReplica);
            if (list.stream().map(OnlineVerify::rowHash).distinct().count() > 1) {
                differing.put(key, list);
            }
        });
        return differing;
    }

    /**
     * The rows of {@code table} where {@code where}: key, hash, writer ({@code xmin}). Without a primary key a row's key
     * is the row itself, and its hash counts its copies: replicas holding a row a different number of times differ.
     */
    private static String rowsSql(String table, String key, String where) {
        return PRIMARY_KEY_LESS.equals(key)
                ? "SELECT t::text, md5(t::text) || ':' || count(*), max(t.xmin::text) FROM " + quote(table)
                        + " t WHERE " + where + " GROUP BY t::text"
                : "SELECT " + key + ", md5(t::text), t.xmin::text FROM " + quote(table) + " t WHERE " + where;
    }

    /** The row hash of a fingerprint ({@code hash xmin}), null for no row. */
    private static String rowHash(String fingerprint) {
        return fingerprint == null ? null : fingerprint.substring(0, fingerprint.indexOf(' '));
    }

    /**
     * Waits until every transaction that any replica reflected at {@code before} is reflected at every replica: each
     * replica's applied index has passed what it held ahead then (its committed-ahead transactions are gone), and then
     * every replica reached the highest index any had at that moment.
     */
    private void settle(List<Connection> connections, List<Position> before) throws InterruptedException {
        long deadline = System.nanoTime() + options.settleTimeout().toNanos();
        long highest = before.stream().mapToLong(Position::applied).max().orElse(0);
        boolean aheadApplied = false;
        while (true) {
            List<Position> now = new ArrayList<>();
            for (Connection connection : connections) {
                now.add(Position.read(connection));
            }
            if (!aheadApplied) {
                aheadApplied = true;
                for (int r = 0; r < now.size(); r++) {
                    Set<Long> stillAhead = new HashSet<>(before.get(r).ahead());
                    stillAhead.retainAll(now.get(r).ahead());
                    aheadApplied &= stillAhead.isEmpty();
                }
                if (aheadApplied) {
                    highest = Math.max(
                            highest,
                            now.stream().mapToLong(Position::applied).max().orElse(0));
                }
            }
            long target = highest;
            if (aheadApplied && now.stream().allMatch(position -> position.applied() >= target)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new CheckException(
                        "the replicas did not reach a common log position within "
                                + options.settleTimeout().toSeconds() + " s (applied indexes " + now + "; target "
                                + highest + "): a replica is stopped, or far behind",
                        null);
            }
            Thread.sleep(100); // polling the replicas' positions until they pass the target, up to the deadline
        }
    }

    /** Paces the reads: {@code rows} just read at each replica take their share of a second at the configured rate. */
    private void pace(long rows) throws InterruptedException {
        long millis = rows * 1000 / options.rowsPerSecond();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    private List<Snapshot> begin(List<Connection> connections) {
        List<Snapshot> snapshots = new ArrayList<>();
        for (int r = 0; r < connections.size(); r++) {
            snapshots.add(Snapshot.begin(connections.get(r), names.get(r)));
        }
        return snapshots;
    }

    private static void end(List<Snapshot> snapshots) {
        for (Snapshot snapshot : snapshots) {
            snapshot.close();
        }
    }

    /** {@code positions} with replica {@code r}'s {@code position} merged in (the highest index, every txn ahead). */
    private static List<Position> merged(List<Position> positions, int r, Position position) {
        List<Position> merged = new ArrayList<>(positions);
        if (merged.size() <= r) {
            merged.add(position);
        } else {
            Position earlier = merged.get(r);
            Set<Long> ahead = new HashSet<>(earlier.ahead());
            ahead.addAll(position.ahead());
            merged.set(r, new Position(Math.max(earlier.applied(), position.applied()), ahead, position.logId()));
        }
        return merged;
    }

    /** The replicas must count positions in one write-set log, or their applied indexes cannot be compared. */
    private void requireOneLog(List<Position> positions) {
        for (int r = 1; r < positions.size(); r++) {
            if (!Objects.equals(positions.get(0).logId(), positions.get(r).logId())) {
                throw new CheckException(
                        names.get(0) + " and " + names.get(r) + " count in different write-set logs ("
                                + positions.get(0).logId() + ", "
                                + positions.get(r).logId() + "): not replicas "
                                + "of one running cluster (a write-set log per site is not compared yet)",
                        null);
            }
        }
    }

    private static int count(Map<String, Map<String, List<String>>> suspects) {
        return suspects.values().stream().mapToInt(Map::size).sum();
    }

    /** {@code table} of schema public, quoted (a table of the same name elsewhere on the search path is not it). */
    private static String quote(String table) {
        return "public." + Identifiers.quote(table);
    }

    /**
     * Where a replica stands in the write-set log: its applied index, the transactions it holds ahead of it, and the
     * log it counts in.
     */
    record Position(long applied, Set<Long> ahead, String logId) {
        static Position read(Connection connection) {
            try (Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT applied_index, log_id, "
                            + "ARRAY(SELECT txn FROM gargamel.committed_ahead) FROM gargamel.replica_state")) {
                rows.next();
                Set<Long> ahead = new HashSet<>();
                for (Object txn : (Object[]) rows.getArray(3).getArray()) {
                    ahead.add(((Number) txn).longValue());
                }
                return new Position(rows.getLong(1), ahead, rows.getString(2));
            } catch (SQLException e) {
                throw new CheckException(
                        "cannot read where a replica stands in the write-set log "
                                + "(gargamel.replica_state: is it a Gargamel replica?): " + e.getMessage(),
                        e);
            }
        }

        @Override
        public String toString() {
            return applied + (ahead.isEmpty() ? "" : " (+" + ahead.size() + " ahead)");
        }
    }
}
