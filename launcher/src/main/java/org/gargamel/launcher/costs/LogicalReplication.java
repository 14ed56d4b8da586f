package org.gargamel.launcher.costs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.server.CommandFailedException;
import org.postgresql.Driver;

/**
 * PostgreSQL's own logical replication from one database to another holding the same data: a publication of every
 * table on the publisher ({@code wal_level=logical}), a subscription on the subscriber that copies nothing
 * ({@code copy_data = false}: the data is there already) and applies what the publisher commits from then on.
 * Also says which walsender processes decode for it and waits until the subscriber has caught up, through one
 * connection to the publisher held open from {@link #subscribe} to {@link #close} (no connection of its own starts or
 * ends while the publisher's CPU is measured).
 *
 * <p>Tables without a primary key (TPC-C's {@code history} and the kit's {@code tpcc_load_info}) are given {@code
 * REPLICA IDENTITY FULL} on the publisher: an UPDATE or DELETE of such a table would otherwise fail there, once
 * published. The kit only inserts into {@code history} and never writes {@code tpcc_load_info} during a run, and an
 * insert is logged the same under either identity, so this costs the measured workload nothing.
 */
final class LogicalReplication implements AutoCloseable {
    /** The publication's, the subscription's and its replication slot's name; the walsenders' application_name. */
    static final String NAME = "gargamel_bench_costs";

    private static final Duration POLL = Duration.ofMillis(100);

    private final String publisherUrl;
    private final String subscriberUrl;
    /** To the publisher, for the queries below; used by one thread at a time. */
    private final Connection publisher;

    private LogicalReplication(String publisherUrl, String subscriberUrl, Connection publisher) {
        this.publisherUrl = publisherUrl;
        this.subscriberUrl = subscriberUrl;
        this.publisher = publisher;
    }

    /**
     * Publishes every table of {@code publisherUrl}'s database and subscribes {@code subscriberUrl}'s to it, then waits
     * (at most {@code timeout}) until the subscription streams. The two must hold the same data; the publisher must
     * run with {@code wal_level=logical}.
     */
    static LogicalReplication subscribe(String publisherUrl, String subscriberUrl, Duration timeout)
            throws SQLException, InterruptedException {
        try (Connection publisher = JdbcConnections.connect(publisherUrl);
                Statement statement = publisher.createStatement()) {
            String walLevel = single(statement, "SHOW wal_level");
            if (!walLevel.equals("logical")) {
                throw new CommandFailedException("the publisher " + Secrets.maskUrl(publisherUrl) + " runs with"
                        + " wal_level=" + walLevel + "; logical replication needs wal_level=logical");
            }
            for (String table : tablesWithoutPrimaryKey(publisher)) {
                statement.execute("ALTER TABLE " + table + " REPLICA IDENTITY FULL");
            }
            statement.execute("CREATE PUBLICATION " + NAME + " FOR ALL TABLES");
        }
        try (Connection subscriber = JdbcConnections.connect(subscriberUrl);
                Statement statement = subscriber.createStatement()) {
            // Not in a transaction block (autocommit): CREATE SUBSCRIPTION makes the slot on the publisher at once.
            statement.execute("CREATE SUBSCRIPTION " + NAME + " CONNECTION '" + libpqConnection(publisherUrl)
                    + "' PUBLICATION " + NAME + " WITH (copy_data = false)");
        }
        LogicalReplication replication =
                new LogicalReplication(publisherUrl, subscriberUrl, JdbcConnections.connect(publisherUrl));
        try {
            replication.awaitStreaming(timeout);
            return replication;
        } catch (SQLException | InterruptedException | RuntimeException e) {
            replication.close();
            throw e;
        }
    }

    /** Closes the connection to the publisher; the subscription stays (the servers are thrown away). */
    @Override
    public void close() throws SQLException {
        publisher.close();
    }

    /** The pids of the publisher's walsenders serving the subscription (its application_name), in pid order. */
    List<Long> walsenders() throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (PreparedStatement statement = publisher.prepareStatement(
                "SELECT pid FROM pg_stat_replication WHERE application_name = ? ORDER BY pid")) {
            statement.setString(1, NAME);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getLong(1));
                }
            }
        }
        return pids;
    }

    /**
     * Waits until the subscriber has confirmed (applied and flushed) everything the publisher had committed when this
     * was called: the slot's {@code confirmed_flush_lsn} at or past the publisher's {@code pg_current_wal_insert_lsn()}.
     * Not {@code pg_current_wal_lsn()}, the position written so far: with {@code synchronous_commit=off} (the embedded
     * servers') a commit returns before its WAL is written, and the write position can lag the last commits by up to
     * {@code wal_writer_delay} (a test saw the subscriber "caught up" before it had any of them). Returns how long
     * that took; fails, naming both positions, after {@code timeout}.
     */
    Duration awaitCaughtUp(Duration timeout) throws SQLException, InterruptedException {
        return awaitConfirmed(insertPosition(), timeout);
    }

    /** The publisher's WAL insert position now: every transaction committed so far ends at or before it. */
    String insertPosition() throws SQLException {
        try (Statement statement = publisher.createStatement()) {
            return single(statement, "SELECT pg_current_wal_insert_lsn()::text");
        }
    }

    /**
     * Waits until the subscriber has confirmed {@code target}, a position {@link #insertPosition} gave: everything
     * committed before it is applied. Returns how long that took.
     */
    Duration awaitConfirmed(String target, Duration timeout) throws SQLException, InterruptedException {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        try (PreparedStatement confirmed = publisher.prepareStatement(
                "SELECT confirmed_flush_lsn::text, confirmed_flush_lsn >= ?::pg_lsn FROM pg_replication_slots"
                        + " WHERE slot_name = ?")) {
            confirmed.setString(1, target);
            confirmed.setString(2, NAME);
            while (true) {
                String position;
                try (ResultSet row = confirmed.executeQuery()) {
                    if (!row.next()) {
                        throw new CommandFailedException("the publisher has no replication slot " + NAME
                                + ": the subscription was dropped or never made its slot");
                    }
                    position = row.getString(1);
                    if (row.getBoolean(2)) {
                        return Duration.ofNanos(System.nanoTime() - started);
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new CommandFailedException("the subscriber " + Secrets.maskUrl(subscriberUrl)
                            + " did not catch up within " + timeout.toSeconds() + " s: it confirmed " + position
                            + ", the publisher was at " + target + " (see the subscriber's log; "
                            + "pg_stat_subscription on it)");
                }
                Thread.sleep(POLL.toMillis());
            }
        }
    }

    /** Until a walsender streams to the subscription, or fails after {@code timeout}. */
    private void awaitStreaming(Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (PreparedStatement streaming = publisher.prepareStatement(
                "SELECT count(*) FROM pg_stat_replication WHERE application_name = ? AND state = 'streaming'")) {
            streaming.setString(1, NAME);
            while (true) {
                try (ResultSet row = streaming.executeQuery()) {
                    row.next();
                    if (row.getLong(1) > 0) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new CommandFailedException("the subscription " + NAME + " of "
                            + Secrets.maskUrl(subscriberUrl)
                            + " did not start streaming from " + Secrets.maskUrl(publisherUrl) + " within "
                            + timeout.toSeconds() + " s (see pg_stat_subscription on the subscriber and its log)");
                }
                Thread.sleep(POLL.toMillis());
            }
        }
    }

    /** The ordinary tables of the {@code public} schema without a primary key, quoted. */
    private static List<String> tablesWithoutPrimaryKey(Connection connection) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT quote_ident(c.relname) FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT EXISTS"
                        + " (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)"
                        + " ORDER BY c.relname")) {
            while (rows.next()) {
                tables.add(rows.getString(1));
            }
        }
        return tables;
    }

    /**
     * The libpq connection string of a pgjdbc URL, for the subscriber to reach the publisher: host, port, database,
     * user and password (if any), each quoted for libpq and the SQL literal it goes in.
     */
    static String libpqConnection(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + Secrets.maskUrl(jdbcUrl));
        }
        StringBuilder text = new StringBuilder();
        appendSetting(text, "host", parsed.getProperty("PGHOST"));
        appendSetting(text, "port", parsed.getProperty("PGPORT"));
        appendSetting(text, "dbname", parsed.getProperty("PGDBNAME"));
        appendSetting(text, "user", parsed.getProperty("user"));
        appendSetting(text, "password", parsed.getProperty("password"));
        return text.toString().replace("'", "''");
    }

    private static void appendSetting(StringBuilder text, String key, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        if (text.length() > 0) {
            text.append(' ');
        }
        text.append(key)
                .append("='")
                .append(value.replace("\\", "\\\\").replace("'", "\\'"))
                .append('\'');
    }

    private static String single(Statement statement, String query) throws SQLException {
        try (ResultSet row = statement.executeQuery(query)) {
            row.next();
            return row.getString(1);
        }
    }
}
