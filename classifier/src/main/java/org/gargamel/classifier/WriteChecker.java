package org.gargamel.classifier;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.wire.WriteSet;

/**
 * Checks what a call really wrote (its captured write-set) against the write keys its rule predicts
 * ({@link ClassifierRules#writeKeys}), with the classifier's own semantics (docs/classifier.md, Rules checked against
 * what procedures write). A change is covered when:
 * <ul>
 * <li>an update: some predicted key of that table designates the row (its known parts equal the row's key, the rest
 * are wildcards) and, in PSI, each changed column is among that key's columns, an insert or delete key counting as
 * every column; in SI any key designating the row covers it (row granularity);</li>
 * <li>an insert: a predicted insert key designates the row, or the procedure declares a fresh insert into that
 * table;</li>
 * <li>a delete: a predicted delete or insert key (a whole-row write) designates the row;</li>
 * <li>any change of a row that the call itself inserted earlier in the same write-set: no other call can hold that row
 * (its insert conflicts with every writer of it, or it is fresh).</li>
 * </ul>
 * Key values are compared as the classifier compares them: the row's value becomes the 64-bit part an argument of the
 * key part's parameter type with that value would give (integers as themselves, text, numeric and timestamps hashed).
 *
 * <p>Cheap on every call's path: the predicted keys go into a reused {@link WriteKeyBuffer}, each row's JSON is scanned
 * in place ({@link RowImage}), and nothing is allocated for a change that is covered. Not thread-safe: one per worker.
 */
public final class WriteChecker {
    /** How a key part's value becomes a 64-bit part: as its parameter's type does ({@link ClassifierRules#toLong}). */
    private static final int INTEGRAL = 0;

    private static final int NUMERIC = 1;
    private static final int TEXT = 2;
    private static final int TIMESTAMP = 3;
    private static final int KINDS = 4;
    private static final List<UnsoundWrite> NONE = List.of();

    /** A table of the rules: its key and declared columns as arrays, for {@link RowImage}. */
    private static final class Table {
        private final String name;
        private final String[] key;
        private final String[] columns;

        Table(String name, String[] key, String[] columns) {
            this.name = name;
            this.key = key;
            this.columns = columns;
        }

        String name() {
            return name;
        }

        String[] key() {
            return key;
        }

        String[] columns() {
            return columns;
        }
    }

    /**
     * A write rule, resolved: its table, how each key part's value is compared, and for an update the indexes of its
     * columns among the table's (a bit set); an insert or delete writes the whole row.
     */
    private static final class Rule {
        private final WriteRule write;
        private final Table table;
        private final int[] partKinds;
        private final long[] columns;
        private final boolean wholeRow;

        Rule(WriteRule write, Table table, int[] partKinds, long[] columns, boolean wholeRow) {
            this.write = write;
            this.table = table;
            this.partKinds = partKinds;
            this.columns = columns;
            this.wholeRow = wholeRow;
        }

        WriteRule write() {
            return write;
        }

        Table table() {
            return table;
        }

        int[] partKinds() {
            return partKinds;
        }

        long[] columns() {
            return columns;
        }

        boolean wholeRow() {
            return wholeRow;
        }
    }

    private final ClassifierRules rules;
    private final Isolation isolation;
    private final Map<String, Table> tables = new HashMap<>();
    private final IdentityHashMap<WriteRule, Rule> resolved = new IdentityHashMap<>();
    private final WriteKeyBuffer keys = new WriteKeyBuffer();
    private final RowImage image = new RowImage();
    private RowImage earlier;
    /** The changed row's key parts by kind, computed on demand: valid where {@link #stamps} holds {@link #stamp}. */
    private long[] values = new long[4 * KINDS];

    private long[] stamps = new long[4 * KINDS];
    private long stamp;
    /** The columns the keys designating the current row cover (PSI updates). */
    private long[] covered = new long[1];
    /** The changes of the current write-set found not covered so far (null: none). */
    private java.util.BitSet missed;

    public WriteChecker(ClassifierRules rules, Isolation isolation) {
        this.rules = rules;
        this.isolation = isolation;
        for (TableRule table : rules.tables().values()) {
            tables.put(
                    table.name(),
                    new Table(
                            table.name(),
                            table.key().toArray(String[]::new),
                            table.columns().toArray(String[]::new)));
            covered = new long[Math.max(covered.length, words(table.columns().size()))];
            if (values.length < table.key().size() * KINDS) {
                values = new long[table.key().size() * KINDS];
                stamps = new long[table.key().size() * KINDS];
            }
        }
        for (ProcedureRule procedure : rules.procedures().values()) {
            for (WriteRule write : procedure.writes()) {
                resolved.put(write, resolve(procedure, write));
            }
        }
    }

    private Rule resolve(ProcedureRule procedure, WriteRule write) {
        Table table = tables.get(write.table().name());
        int[] kinds = new int[write.key().size()];
        for (int i = 0; i < kinds.length; i++) {
            KeyPart part = write.key().get(i);
            kinds[i] = part.kind() == KeyPart.Kind.CONSTANT || part.kind() == KeyPart.Kind.WILDCARD
                    ? INTEGRAL
                    : kind(procedure
                            .parameters()
                            .get(part.parameterIndex())
                            .type()
                            .elementType());
        }
        long[] columns = new long[words(table.columns().length)];
        // An increment writes its column: covered like a plain one (whether it only added is the node's check).
        for (String column : write.touchedColumns()) {
            int index = List.of(table.columns()).indexOf(column);
            columns[index >>> 6] |= 1L << index;
        }
        return new Rule(write, table, kinds, columns, write.operation() != WriteRule.Operation.UPDATE);
    }

    private static int kind(ParameterType type) {
        return switch (type) {
            case INTEGER, BIGINT -> INTEGRAL;
            case NUMERIC -> NUMERIC;
            case TIMESTAMP -> TIMESTAMP;
            default -> TEXT;
        };
    }

    private static int words(int bits) {
        return Math.max(1, (bits + 63) >>> 6);
    }

    public ClassifierRules rules() {
        return rules;
    }

    /**
     * The changes of {@code changes} (what {@code call} wrote, in order) that its rule does not cover; empty when every
     * one is covered (no allocation then). {@code call} is one the classifier accepted (it passed
     * {@link ClassifierRules#check}); a call it rejects throws {@link RulesException}.
     */
    public List<UnsoundWrite> check(ProcedureCall call, List<WriteSet.RowChange> changes) {
        if (changes.isEmpty()) {
            return NONE;
        }
        // SI keys: one per write element, whatever the column groups; the columns are checked here.
        ProcedureRule procedure = rules.writeKeys(call, Isolation.SI, keys);
        List<UnsoundWrite> unsound = null;
        missed = null;
        for (int c = 0; c < changes.size(); c++) {
            UnsoundWrite miss = check(procedure, changes, c);
            if (miss != null) {
                if (unsound == null) {
                    unsound = new ArrayList<>();
                    missed = new java.util.BitSet();
                }
                unsound.add(miss);
                missed.set(c);
            }
        }
        return unsound == null ? NONE : unsound;
    }

    private UnsoundWrite check(ProcedureRule procedure, List<WriteSet.RowChange> changes, int index) {
        WriteSet.RowChange change = changes.get(index);
        Table table = tables.get(change.table());
        if (table == null) {
            return new UnsoundWrite(
                    procedure.name(),
                    where(procedure),
                    change.table(),
                    change.table() + " " + abbreviate(change.row()),
                    "*",
                    operation(change) + " (a table the rules do not declare)");
        }
        if (!image.scan(change.row(), table.key(), table.columns())) {
            throw new IllegalArgumentException(
                    "malformed captured row of " + change.table() + ": " + abbreviate(change.row()));
        }
        stamp++;
        int uncoveredColumn = -1;
        switch (change.operation()) {
            case INSERT -> {
                if (freshInsert(procedure, table) || designated(table, Match.INSERT)) {
                    return null;
                }
            }
            case DELETE -> {
                if (designated(table, Match.WHOLE_ROW)) {
                    return null;
                }
            }
            case UPDATE -> {
                if (isolation == Isolation.SI) {
                    if (designated(table, Match.ANY)) {
                        return null;
                    }
                    uncoveredColumn = 0;
                } else {
                    uncoveredColumn = uncoveredColumn(table);
                    if (uncoveredColumn < 0) {
                        return null;
                    }
                }
            }
            // The checker reads what capture gave (updates); an add is what the node ships (issue 18).
            case ADD ->
                throw new IllegalArgumentException("an add of " + change.table()
                        + " is checked as the captured update it came from, not as shipped");
        }
        if (insertedEarlier(changes, index, table)) {
            return null;
        }
        String column = change.operation() == WriteSet.Operation.UPDATE && image.columnCount() > 0
                ? image.columnName(uncoveredColumn)
                : "*";
        return new UnsoundWrite(
                procedure.name(),
                closestRule(procedure, table),
                table.name(),
                describeRow(table),
                column,
                operation(change));
    }

    private enum Match {
        INSERT,
        WHOLE_ROW,
        ANY
    }

    /** Whether some predicted key of {@code table} whose operation fits designates the scanned row. */
    private boolean designated(Table table, Match match) {
        for (int k = 0; k < keys.size(); k++) {
            Rule rule = resolved.get(keys.rule(k));
            if (rule.table() != table) {
                continue;
            }
            WriteRule.Operation operation = rule.write().operation();
            boolean fits = switch (match) {
                case INSERT -> operation == WriteRule.Operation.INSERT;
                case WHOLE_ROW -> rule.wholeRow();
                case ANY -> true;
            };
            if (fits && designates(k, rule)) {
                return true;
            }
        }
        return false;
    }

    /**
     * PSI update: the scanned row's first changed column that no key designating the row covers (its index among the
     * row's members), or -1 if they are all covered.
     */
    private int uncoveredColumn(Table table) {
        java.util.Arrays.fill(covered, 0L);
        for (int k = 0; k < keys.size(); k++) {
            Rule rule = resolved.get(keys.rule(k));
            if (rule.table() != table || !designates(k, rule)) {
                continue;
            }
            if (rule.wholeRow()) {
                return -1; // an insert or delete key of the row counts as every column
            }
            long[] columns = rule.columns();
            for (int w = 0; w < columns.length; w++) {
                covered[w] |= columns[w];
            }
        }
        for (int i = 0; i < image.columnCount(); i++) {
            int column = image.columnIndex(i);
            if (column < 0 || (covered[column >>> 6] & (1L << column)) == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean freshInsert(ProcedureRule procedure, Table table) {
        List<WriteRule> writes = procedure.writes();
        for (int i = 0; i < writes.size(); i++) {
            WriteRule write = writes.get(i);
            if (write.fresh() && write.table().name().equals(table.name())) {
                return true;
            }
        }
        return false;
    }

    /** Whether key {@code k} (of {@code rule}) designates the scanned row: its known parts equal the row's key. */
    private boolean designates(int k, Rule rule) {
        int known = keys.knownParts(k);
        for (int i = 0; i < known; i++) {
            if (!image.hasKey(i) || rowPart(i, rule.partKinds()[i]) != keys.part(k, i)) {
                return false;
            }
        }
        return true;
    }

    /** Part {@code i} of the scanned row's key, as an argument of kind {@code kind} with its value would give it. */
    private long rowPart(int i, int kind) {
        int slot = i * KINDS + kind;
        if (stamps[slot] != stamp) {
            values[slot] = toPart(image.json(), image.keyStart(i), image.keyEnd(i), kind);
            stamps[slot] = stamp;
        }
        return values[slot];
    }

    /** The 64-bit key part of the JSON value {@code json[start, end)} read as {@code kind} ({@link ClassifierRules#toLong}). */
    static long toPart(String json, int start, int end, int kind) {
        boolean string = json.charAt(start) == '"';
        if (!string && (kind == INTEGRAL || kind == NUMERIC)) {
            return number(json, start, end, kind == INTEGRAL);
        }
        if (string && kind == TIMESTAMP) {
            try {
                return KeyParts.toLong(LocalDateTime.parse(json.substring(start + 1, end - 1)));
            } catch (DateTimeParseException e) {
                // not a timestamp any argument could be: compared as text, which no timestamp argument gives
            }
        }
        return string ? textHash(json, start + 1, end - 1) : textHash(json, start, end);
    }

    private static long number(String json, int start, int end, boolean integral) {
        int at = json.charAt(start) == '-' ? start + 1 : start;
        boolean plain = at < end;
        for (int i = at; i < end && plain; i++) {
            char c = json.charAt(i);
            plain = c >= '0' && c <= '9';
        }
        if (plain && end - at <= 18) {
            long value = 0;
            for (int i = at; i < end; i++) {
                value = value * 10 + (json.charAt(i) - '0');
            }
            return at > start ? -value : value;
        }
        String text = json.substring(start, end);
        if (plain && integral) {
            try {
                return Long.parseLong(text); // as toLong gives an Integer or Long argument: itself
            } catch (NumberFormatException e) {
                // beyond a long: no integer argument has this value; as a numeric below
            }
        }
        try {
            return KeyParts.toLong(new BigDecimal(text));
        } catch (NumberFormatException | RulesException e) {
            return textHash(json, start, end);
        }
    }

    /** {@link ClassifierRules#toLong} of the JSON string content {@code json[start, end)}, unescaped as it goes. */
    static long textHash(String json, int start, int end) {
        long hash = 0xcbf29ce484222325L;
        for (int i = start; i < end; i++) {
            char c = json.charAt(i);
            if (c == '\\' && i + 1 < end) {
                char escaped = json.charAt(++i);
                c = switch (escaped) {
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'u' -> {
                        char code = (char) Integer.parseInt(json, i + 1, Math.min(i + 5, end), 16);
                        i += 4;
                        yield code;
                    }
                    default -> escaped; // \" \\ \/
                };
            }
            hash = (hash ^ c) * 0x100000001b3L;
        }
        return KeyParts.mix(hash);
    }

    /**
     * Whether the scanned row (a change at {@code index}) was inserted by an earlier, covered change of the same
     * write-set: no other call can hold a row this call created. Only asked for a change not covered otherwise.
     */
    private boolean insertedEarlier(List<WriteSet.RowChange> changes, int index, Table table) {
        if (table.key().length == 0) {
            return false;
        }
        if (earlier == null) {
            earlier = new RowImage();
        }
        for (int j = 0; j < index; j++) {
            WriteSet.RowChange change = changes.get(j);
            if (change.operation() == WriteSet.Operation.INSERT
                    && (missed == null || !missed.get(j))
                    && change.table().equals(table.name())
                    && earlier.scan(change.row(), table.key(), table.columns())
                    && sameKey(table)) {
                return true;
            }
        }
        return false;
    }

    private boolean sameKey(Table table) {
        for (int i = 0; i < table.key().length; i++) {
            if (!image.hasKey(i) || !earlier.hasKey(i)) {
                return false;
            }
            int length = image.keyEnd(i) - image.keyStart(i);
            if (earlier.keyEnd(i) - earlier.keyStart(i) != length
                    || !image.json().regionMatches(image.keyStart(i), earlier.json(), earlier.keyStart(i), length)) {
                return false;
            }
        }
        return true;
    }

    // Increments (issue 18): the node tells whether a declared add: was a pure addition; these name the rule.

    /**
     * An unsound write for a change of {@code column} of {@code row} (e.g. {@code warehouse(w_id=1)}) that
     * {@code procedure} declares {@code add:} but that was no pure addition, {@code why} (e.g. {@code not an addition:
     * its old value was NULL}); its rule is the write of {@code table} declaring that column {@code add:}, with its
     * file and line.
     */
    public UnsoundWrite nonAdditive(String procedure, String table, String row, String column, String why) {
        ProcedureRule rule = rules.procedures().get(procedure);
        if (rule == null) {
            throw new IllegalArgumentException("no rule for procedure " + procedure);
        }
        return new UnsoundWrite(procedure, whereAdded(rule, table, column), table, row, column, why);
    }

    private String whereAdded(ProcedureRule procedure, String table, String column) {
        for (WriteRule write : procedure.writes()) {
            if (write.table().name().equals(table) && write.added().contains(column)) {
                return where(write);
            }
        }
        return where(procedure);
    }

    // What follows describes a miss: off the path of covered changes.

    private static String operation(WriteSet.RowChange change) {
        return change.operation().name().toLowerCase(java.util.Locale.ROOT);
    }

    private String describeRow(Table table) {
        if (table.key().length == 0) {
            return table.name() + " " + abbreviate(image.json());
        }
        StringBuilder text = new StringBuilder(table.name()).append('(');
        for (int i = 0; i < table.key().length; i++) {
            text.append(i > 0 ? ", " : "").append(table.key()[i]).append('=');
            text.append(image.hasKey(i) ? image.json().substring(image.keyStart(i), image.keyEnd(i)) : "?");
        }
        return text.append(')').toString();
    }

    /**
     * The rule closest to the scanned row's change: a write of its table whose key designates the row (the columns or
     * the operation did not fit), else any write of its table, else the procedure's entry.
     */
    private String closestRule(ProcedureRule procedure, Table table) {
        for (int k = 0; k < keys.size(); k++) {
            Rule rule = resolved.get(keys.rule(k));
            if (rule.table() == table && designates(k, rule)) {
                return where(rule.write());
            }
        }
        for (WriteRule write : procedure.writes()) {
            if (write.table().name().equals(table.name())) {
                return where(write);
            }
        }
        return where(procedure);
    }

    private String where(WriteRule write) {
        StringBuilder text = new StringBuilder(rules.source())
                .append(':')
                .append(write.line())
                .append(" (")
                .append(write.operation().name().toLowerCase(java.util.Locale.ROOT))
                .append(' ')
                .append(write.table().name());
        if (write.fresh()) {
            text.append(' ').append(write.freshKey());
        } else {
            text.append(" key ").append(write.key());
        }
        if (write.operation() == WriteRule.Operation.UPDATE) {
            text.append(" columns ").append(new TreeSet<>(write.columns()));
            if (!write.added().isEmpty()) {
                text.append(" add ").append(new TreeSet<>(write.added()));
            }
        }
        return text.append(')').toString();
    }

    private String where(ProcedureRule procedure) {
        return rules.source() + ":" + procedure.line() + " (procedure " + procedure.name() + ")";
    }

    private static String abbreviate(String text) {
        return text.length() <= 120 ? text : text.substring(0, 117) + "...";
    }
}
