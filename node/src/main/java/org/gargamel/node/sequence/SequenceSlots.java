package org.gargamel.node.sequence;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives each node a residue class of every sequence of a schema (docs/node.md, Sequences), so that values drawn at two
 * replicas never collide, with no coordination on a call's path. With {@code stride} = the number of replicas and
 * {@code slot} = this node's index among them, the node's sequence steps by {@code stride} and gives only values
 * {@code ≡ start + slot (mod stride)}, above a high-water mark: the largest of the sequence's own last value and every
 * value held by a column that takes its values from it (its identity column, the column it is {@code OWNED BY} —
 * serial, bigserial — and any column whose default is exactly {@code nextval} of it). Values this node gave before,
 * values of the other classes, and values given before the alignment existed are all at or below the mark here, and
 * the other replicas never give a value of this class. A descending sequence is the mirror image (steps of
 * {@code -stride}, values {@code ≡ start - slot}, below a low-water mark).
 *
 * <p>Idempotent: a sequence already stepping by the stride whose next value is in the class and above every value
 * held is left alone. A sequence with no value of the class left before its MAXVALUE (MINVALUE when descending) is
 * parked at its end, so that {@code nextval} fails with PostgreSQL's own error (SQLSTATE 2200H) rather than give a
 * value another replica may give too. The caller commits.
 */
public final class SequenceSlots {
    /** What happened to one sequence. */
    public enum Outcome {
        UNCHANGED,
        MOVED,
        EXHAUSTED
    }

    /**
     * One sequence's alignment: the columns it feeds (counted in the high-water mark), those it feeds whose values are
     * not the sequence's (a default that is an expression of it, a column that holds no numbers: not counted), its
     * increment before, its next value before and after, the high-water mark ({@code held}: the highest value, or the
     * lowest for a descending sequence) and its last value ({@code end}: MAXVALUE, or MINVALUE descending).
     */
    public record Alignment(
            String sequence,
            List<String> feeds,
            List<String> notCounted,
            int stride,
            int slot,
            boolean descending,
            long oldIncrement,
            BigInteger oldNext,
            BigInteger newNext,
            BigInteger held,
            BigInteger end,
            Outcome outcome) {
        public Alignment {
            feeds = List.copyOf(feeds);
            notCounted = List.copyOf(notCounted);
        }

        /** One line for the log: what was done to the sequence, and why. */
        public String describe() {
            StringBuilder line = new StringBuilder("sequence ").append(sequence);
            line.append(feeds.isEmpty() ? " (feeds no column)" : " (feeds " + String.join(", ", feeds) + ")");
            line.append(": stride ")
                    .append(stride)
                    .append(", slot ")
                    .append(slot)
                    .append(": ");
            String mark = (descending ? "lowest" : "highest") + " value given or held " + held;
            long step = descending ? -stride : stride;
            switch (outcome) {
                case UNCHANGED ->
                    line.append("next value ")
                            .append(oldNext)
                            .append(", unchanged (")
                            .append(mark);
                case MOVED ->
                    line.append(oldIncrement == step ? "" : "increment " + oldIncrement + " -> " + step + ", ")
                            .append("next value ")
                            .append(oldNext)
                            .append(" -> ")
                            .append(newNext)
                            .append(" (")
                            .append(mark);
                case EXHAUSTED ->
                    line.append("EXHAUSTED: no value of this slot is left ")
                            .append(descending ? "below " : "above ")
                            .append(held)
                            .append(" within its ")
                            .append(descending ? "MINVALUE " : "MAXVALUE ")
                            .append(end)
                            .append(" (next value was ")
                            .append(oldNext)
                            .append("); parked at its end, so nextval fails (SQLSTATE 2200H) rather than give a value "
                                    + "another replica may give too; widen it, e.g. ALTER SEQUENCE ")
                            .append(sequence)
                            .append(" AS bigint ")
                            .append(descending ? "MINVALUE " + Long.MIN_VALUE : "MAXVALUE " + Long.MAX_VALUE)
                            .append(", with the column types it feeds");
            }
            if (outcome != Outcome.EXHAUSTED) {
                line.append(')');
            }
            if (!notCounted.isEmpty()) {
                line.append("; not counted (their values are not the sequence's): ")
                        .append(String.join(", ", notCounted));
            }
            return line.toString();
        }
    }

    private static final String SEQUENCES = """
            SELECT s.oid, format('%I.%I', n.nspname, s.relname), q.seqstart, q.seqincrement, q.seqmin, q.seqmax
              FROM pg_class s
              JOIN pg_namespace n ON n.oid = s.relnamespace
              JOIN pg_sequence q ON q.seqrelid = s.oid
             WHERE n.nspname = ? AND s.relkind = 'S'
             ORDER BY s.relname
            """;

    /**
     * The columns each sequence of the schema feeds: identity and OWNED BY (pg_depend from the sequence to the
     * column), and column defaults that call it (pg_depend from the default to the sequence); counted when the column
     * is a table's, holds numbers, and is fed plainly: identity, OWNED BY, or a default of exactly {@code nextval} of
     * the sequence (possibly cast).
     */
    private static final String FEEDS = """
            SELECT f.sequence, format('%I.%I', t.relname, a.attname), format('%I.%I', tn.nspname, t.relname),
                   quote_ident(a.attname),
                   f.plain AND t.relkind IN ('r', 'p')
                   AND (SELECT coalesce(nullif(ty.typbasetype, 0), ty.oid) FROM pg_type ty WHERE ty.oid = a.atttypid)
                       IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype)
              FROM (
                SELECT dep.objid AS sequence, dep.refobjid AS relation, dep.refobjsubid AS attnum, true AS plain
                  FROM pg_depend dep
                 WHERE dep.classid = 'pg_class'::regclass AND dep.refclassid = 'pg_class'::regclass
                   AND dep.deptype IN ('a', 'i') AND dep.refobjsubid > 0
                UNION
                SELECT dep.refobjid, d.adrelid, d.adnum,
                       pg_get_expr(d.adbin, d.adrelid) IN (
                           format('nextval(%L::regclass)', dep.refobjid::regclass::text),
                           format('(nextval(%L::regclass))::%s', dep.refobjid::regclass::text,
                                  format_type(da.atttypid, da.atttypmod)))
                  FROM pg_depend dep
                  JOIN pg_attrdef d ON d.oid = dep.objid
                  JOIN pg_attribute da ON da.attrelid = d.adrelid AND da.attnum = d.adnum
                 WHERE dep.classid = 'pg_attrdef'::regclass AND dep.refclassid = 'pg_class'::regclass
              ) AS f
              JOIN pg_class s ON s.oid = f.sequence AND s.relkind = 'S'
              JOIN pg_namespace n ON n.oid = s.relnamespace
              JOIN pg_class t ON t.oid = f.relation
              JOIN pg_namespace tn ON tn.oid = t.relnamespace
              JOIN pg_attribute a ON a.attrelid = f.relation AND a.attnum = f.attnum AND NOT a.attisdropped
             WHERE n.nspname = ?
             ORDER BY 1, 2
            """;

    private SequenceSlots() {}

    /** A column a sequence feeds: its name for the log, and where to read its values. */
    private record Feed(String name, String table, String column, boolean counted) {}

    /** A sequence of the schema, as the catalogue defines it. */
    private record Sequence(long oid, String name, long start, long increment, long min, long max) {}

    /**
     * Aligns every sequence of {@code schema} to residue class {@code slot} of {@code stride} (see the class comment),
     * in the caller's transaction; returns what it did to each, in name order.
     */
    public static List<Alignment> align(Connection connection, String schema, int stride, int slot)
            throws SQLException {
        if (stride < 1 || slot < 0 || slot >= stride) {
            throw new IllegalArgumentException("slot " + slot + " of stride " + stride);
        }
        Map<Long, Map<String, Feed>> feeds = new LinkedHashMap<>();
        try (PreparedStatement query = connection.prepareStatement(FEEDS)) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    Feed feed = new Feed(rows.getString(2), rows.getString(3), rows.getString(4), rows.getBoolean(5));
                    // A serial column is both OWNED BY its sequence and defaults to it: once, counted if either counts.
                    feeds.computeIfAbsent(rows.getLong(1), oid -> new LinkedHashMap<>())
                            .merge(feed.name(), feed, (known, other) -> known.counted() ? known : other);
                }
            }
        }
        List<Sequence> sequences = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(SEQUENCES)) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    sequences.add(new Sequence(
                            rows.getLong(1),
                            rows.getString(2),
                            rows.getLong(3),
                            rows.getLong(4),
                            rows.getLong(5),
                            rows.getLong(6)));
                }
            }
        }
        List<Alignment> alignments = new ArrayList<>();
        for (Sequence sequence : sequences) {
            alignments.add(align(
                    connection,
                    sequence,
                    List.copyOf(feeds.getOrDefault(sequence.oid(), Map.of()).values()),
                    stride,
                    slot));
        }
        return alignments;
    }

    private static Alignment align(Connection connection, Sequence sequence, List<Feed> feeds, int stride, int slot)
            throws SQLException {
        boolean descending = sequence.increment() < 0;
        // Mirrored for a descending sequence (u = -v): everything below is the ascending case.
        BigInteger sign = BigInteger.valueOf(descending ? -1 : 1);
        BigInteger lowest =
                BigInteger.valueOf(descending ? sequence.max() : sequence.min()).multiply(sign);
        BigInteger highest =
                BigInteger.valueOf(descending ? sequence.min() : sequence.max()).multiply(sign);
        BigInteger modulus = BigInteger.valueOf(stride);
        BigInteger residue = BigInteger.valueOf(sequence.start())
                .multiply(sign)
                .add(BigInteger.valueOf(slot))
                .mod(modulus);
        long oldStep = Math.abs(sequence.increment());

        BigInteger last;
        boolean called;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT last_value, is_called FROM " + sequence.name())) {
            rows.next();
            last = BigInteger.valueOf(rows.getLong(1)).multiply(sign);
            called = rows.getBoolean(2);
        }
        BigInteger oldNext = called ? last.add(BigInteger.valueOf(oldStep)) : last;
        // The high-water mark: every value the sequence gave (those below its next value) and every value held.
        BigInteger mark = oldNext.subtract(BigInteger.ONE);
        List<String> fed = new ArrayList<>();
        List<String> notCounted = new ArrayList<>();
        for (Feed feed : feeds) {
            if (!feed.counted()) {
                notCounted.add(feed.name());
                continue;
            }
            fed.add(feed.name());
            BigInteger held = extreme(connection, feed, descending);
            if (held != null) {
                mark = mark.max(held.multiply(sign));
            }
        }

        Outcome outcome;
        BigInteger newNext;
        boolean parked = called && last.equals(highest) && oldStep == stride;
        if (oldStep == stride
                && oldNext.subtract(residue).mod(modulus).signum() == 0
                && oldNext.compareTo(mark) > 0
                && oldNext.compareTo(lowest) >= 0
                && oldNext.compareTo(highest) <= 0) {
            outcome = Outcome.UNCHANGED;
            newNext = oldNext;
        } else {
            BigInteger floor = mark.add(BigInteger.ONE).max(lowest);
            newNext = floor.add(residue.subtract(floor).mod(modulus));
            outcome = newNext.compareTo(highest) > 0 ? Outcome.EXHAUSTED : Outcome.MOVED;
        }
        long step = descending ? -stride : stride;
        try (Statement statement = connection.createStatement()) {
            if (outcome == Outcome.MOVED) {
                statement.execute("ALTER SEQUENCE " + sequence.name() + " INCREMENT BY " + step + " RESTART WITH "
                        + newNext.multiply(sign));
            } else if (outcome == Outcome.EXHAUSTED && !parked) {
                statement.execute("ALTER SEQUENCE " + sequence.name() + " INCREMENT BY " + step);
                // Not transactional, and need not be: a sequence with no value of this slot left gives none.
                statement.execute("SELECT setval('" + sequence.name().replace("'", "''") + "', "
                        + highest.multiply(sign) + ", true)");
            }
        } catch (SQLException e) {
            throw new SQLException(
                    "cannot align sequence " + sequence.name() + " to slot " + slot + " of stride " + stride
                            + " (next value " + oldNext.multiply(sign) + " -> " + newNext.multiply(sign) + "): "
                            + e.getMessage(),
                    e.getSQLState(),
                    e);
        }
        return new Alignment(
                sequence.name(),
                fed,
                notCounted,
                stride,
                slot,
                descending,
                sequence.increment(),
                oldNext.multiply(sign),
                newNext.multiply(sign),
                mark.multiply(sign),
                highest.multiply(sign),
                outcome);
    }

    /**
     * The highest value the column holds ({@code lowest}: the lowest), rounded towards the inside to an integer (an
     * integer above the floor of the highest is above the highest); null if it holds none.
     */
    private static BigInteger extreme(Connection connection, Feed feed, boolean lowest) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT " + (lowest ? "min(" : "max(") + feed.column() + ")::numeric FROM " + feed.table())) {
            rows.next();
            BigDecimal value = rows.getBigDecimal(1);
            return value == null
                    ? null
                    : value.setScale(0, lowest ? RoundingMode.CEILING : RoundingMode.FLOOR)
                            .toBigInteger();
        }
    }
}
