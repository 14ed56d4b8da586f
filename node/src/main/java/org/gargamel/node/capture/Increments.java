package org.gargamel.node.capture;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;

/**
 * Commutative increments at a call's origin (issue 18; docs/node.md, Increments). Capture records, for each column some
 * procedure declares {@code add:}, the exact delta beside the new value ({@code "+col": new - old}, only when both are
 * non-NULL). What a call ships depends on its own rule: a change of a column it declares {@code add:} travels as the
 * delta, in an {@link Operation#ADD} change, and is applied as {@code col = col + delta}; every other column travels as
 * its new value, as before, and the extra delta members are dropped (SI, other procedures, columns not declared by this
 * call). A declared change that is not a pure addition where it can be told (an old or new value NULL, a numeric whose
 * scale shrank, which adding cannot give) travels as its value and is reported ({@link Split#problems}).
 *
 * <p>Several updates of one row in a transaction are captured as several changes, in order, and shipped as such: a
 * replica applies them in that order, so values and deltas compose as they did at the origin.
 */
public final class Increments {
    private final Map<String, List<String>> primaryKeys;

    /** {@code primaryKeys}: the key columns of every captured table ({@link WriteSetCapture#tables}). */
    public Increments(Map<String, List<String>> primaryKeys) {
        this.primaryKeys = Map.copyOf(primaryKeys);
    }

    /** One cell a call added to: its table, its row's key as a JSON object, and its column. */
    public record Cell(String table, String key, String column) {}

    /** A declared increment that was not a pure addition: the row as {@code table(k=v, ...)}, the column, why. */
    public record Problem(String table, String row, String column, String reason) {}

    /**
     * A call's captured changes, split: {@code plain} as capture gave them without the delta members (what the rules
     * checker reads), {@code shipped} the write-set's changes, {@code deltas} the sum of the shipped deltas per cell (in
     * the order met), {@code problems} the declared increments shipped as values because they were no pure addition.
     */
    public record Split(
            List<RowChange> plain, List<RowChange> shipped, Map<Cell, BigDecimal> deltas, List<Problem> problems) {}

    /**
     * Splits {@code captured} (in order) for a call that declares {@code add:} on {@code declared} (table to columns;
     * empty: ship values only, as SI and procedures without increments do).
     */
    public Split split(List<RowChange> captured, Map<String, Set<String>> declared) {
        List<RowChange> plain = null;
        List<RowChange> shipped = null;
        Map<Cell, BigDecimal> deltas = Map.of();
        List<Problem> problems = List.of();
        for (int i = 0; i < captured.size(); i++) {
            RowChange change = captured.get(i);
            Set<String> added = declared.getOrDefault(change.table(), Set.of());
            if (change.operation() != Operation.UPDATE
                    || (added.isEmpty() && change.row().indexOf("\"+") < 0)) {
                if (plain != null) {
                    plain.add(change);
                    shipped.add(change);
                }
                continue; // nothing to change: the common case allocates nothing
            }
            if (plain == null) {
                plain = new ArrayList<>(captured.subList(0, i));
                shipped = new ArrayList<>(captured.subList(0, i));
            }
            List<Member> members = members(change.table(), change.row());
            List<Member> values = new ArrayList<>(members.size());
            Map<String, String> deltaText = new LinkedHashMap<>();
            for (Member member : members) {
                if (member.name().startsWith("+")) {
                    deltaText.put(member.name().substring(1), member.value());
                } else {
                    values.add(member);
                }
            }
            RowChange plainChange = new RowChange(change.table(), Operation.UPDATE, join(values));
            plain.add(plainChange);
            if (added.isEmpty()) {
                shipped.add(plainChange);
                continue;
            }
            List<String> key = primaryKeys.getOrDefault(change.table(), List.of());
            List<Member> out = new ArrayList<>(members.size());
            List<Member> keyMembers = new ArrayList<>(key.size());
            boolean adds = false;
            for (Member member : values) {
                if (key.contains(member.name())) {
                    keyMembers.add(member);
                    out.add(member);
                    continue;
                }
                if (!added.contains(member.name())) {
                    out.add(member);
                    continue;
                }
                String delta = deltaText.get(member.name());
                String reason = delta == null
                        ? ("null".equals(member.value())
                                ? "not an addition: its new value is NULL"
                                : "not an addition: its old value was NULL")
                        : notAddition(member.value(), delta);
                if (reason != null) {
                    if (problems.isEmpty()) {
                        problems = new ArrayList<>();
                    }
                    problems.add(
                            new Problem(change.table(), describe(change.table(), keyMembers), member.name(), reason));
                    out.add(member); // shipped as its value: the replicas converge on what the origin holds
                    continue;
                }
                out.add(new Member("+" + member.name(), WriteSetCapture.jsonString("+" + member.name()), delta));
                if (deltas.isEmpty()) {
                    deltas = new LinkedHashMap<>();
                }
                deltas.merge(
                        new Cell(change.table(), join(keyMembers), member.name()),
                        new BigDecimal(delta),
                        BigDecimal::add);
                adds = true;
            }
            shipped.add(adds ? new RowChange(change.table(), Operation.ADD, join(out)) : plainChange);
        }
        return plain == null
                ? new Split(captured, captured, deltas, problems)
                : new Split(List.copyOf(plain), List.copyOf(shipped), deltas, problems);
    }

    /**
     * Null if adding {@code delta} reproduces {@code value} exactly, text included; else why not. A numeric's scale
     * after an addition is the larger of the two, so a new value with fewer decimals than the delta (whose scale is the
     * larger of old and new) came from no addition, and adding the delta elsewhere would not give it.
     */
    private static String notAddition(String value, String delta) {
        BigDecimal newValue;
        BigDecimal change;
        try {
            newValue = new BigDecimal(value);
            change = new BigDecimal(delta);
        } catch (NumberFormatException e) {
            return "not an addition: its change " + delta + " is not a finite number";
        }
        if (change.scale() > newValue.scale()) {
            return "not an addition: its scale shrank (from "
                    + newValue.subtract(change).toPlainString() + " to " + value + ")";
        }
        return null;
    }

    private static String describe(String table, List<Member> key) {
        StringBuilder text = new StringBuilder(table).append('(');
        for (int i = 0; i < key.size(); i++) {
            text.append(i > 0 ? ", " : "")
                    .append(key.get(i).name())
                    .append('=')
                    .append(key.get(i).value());
        }
        return text.append(')').toString();
    }

    /** One member of a captured row: its name (unescaped), its name as JSON text, and its value as JSON text. */
    record Member(String name, String rawName, String value) {}

    private static String join(List<Member> members) {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < members.size(); i++) {
            json.append(i > 0 ? ", " : "")
                    .append(members.get(i).rawName())
                    .append(": ")
                    .append(members.get(i).value());
        }
        return json.append('}').toString();
    }

    /**
     * The top-level members of the JSON object {@code row}, their texts untouched (values are never re-printed, so
     * numeric scale and every other value stay exactly as PostgreSQL wrote them).
     */
    static List<Member> members(String table, String row) {
        List<Member> members = new ArrayList<>();
        int at = skipSpace(row, 0);
        if (at >= row.length() || row.charAt(at) != '{') {
            throw malformed(table, row);
        }
        at = skipSpace(row, at + 1);
        if (at < row.length() && row.charAt(at) == '}') {
            return members;
        }
        while (true) {
            if (at >= row.length() || row.charAt(at) != '"') {
                throw malformed(table, row);
            }
            int nameEnd = stringEnd(row, at, table);
            String rawName = row.substring(at, nameEnd);
            at = skipSpace(row, nameEnd);
            if (at >= row.length() || row.charAt(at) != ':') {
                throw malformed(table, row);
            }
            int valueStart = skipSpace(row, at + 1);
            int valueEnd = valueEnd(row, valueStart, table);
            members.add(new Member(
                    unescape(rawName),
                    rawName,
                    row.substring(valueStart, valueEnd).trim()));
            at = skipSpace(row, valueEnd);
            if (at < row.length() && row.charAt(at) == ',') {
                at = skipSpace(row, at + 1);
            } else if (at < row.length() && row.charAt(at) == '}') {
                return members;
            } else {
                throw malformed(table, row);
            }
        }
    }

    private static int skipSpace(String text, int at) {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        return at;
    }

    /** The index after the JSON string starting at {@code start}. */
    private static int stringEnd(String text, int start, String table) {
        for (int i = start + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i + 1;
            }
        }
        throw malformed(table, text);
    }

    /** The index after the JSON value starting at {@code start}: a string, or anything up to a top-level , or }. */
    private static int valueEnd(String text, int start, String table) {
        int depth = 0;
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                i = stringEnd(text, i, table) - 1;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if (c == ']' || c == '}') {
                if (depth == 0) {
                    return i;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        throw malformed(table, text);
    }

    private static String unescape(String rawName) {
        String inner = rawName.substring(1, rawName.length() - 1);
        if (inner.indexOf('\\') < 0) {
            return inner;
        }
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < inner.length(); i++) {
            char c = inner.charAt(i);
            if (c != '\\' || i + 1 >= inner.length()) {
                name.append(c);
                continue;
            }
            char escaped = inner.charAt(++i);
            switch (escaped) {
                case 'b' -> name.append('\b');
                case 'f' -> name.append('\f');
                case 'n' -> name.append('\n');
                case 'r' -> name.append('\r');
                case 't' -> name.append('\t');
                case 'u' -> {
                    name.append((char) Integer.parseInt(inner.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> name.append(escaped);
            }
        }
        return name.toString();
    }

    private static IllegalArgumentException malformed(String table, String row) {
        return new IllegalArgumentException("malformed captured row of " + table + ": "
                + (row.length() <= 120 ? row : row.substring(0, 117) + "..."));
    }

    /** The primary-key columns of {@code table} (empty: none, or not a captured table). */
    public List<String> primaryKey(String table) {
        return primaryKeys.getOrDefault(table, List.of());
    }

    /** {@code cell}'s row as {@code table(k=v, ...)}, as problems name rows. */
    public static String describe(Cell cell) {
        return describe(cell.table(), members(cell.table(), cell.key()));
    }

    /** The members of {@code change}'s row that are deltas, by column (tests, the probe). */
    public static Map<String, BigDecimal> deltasOf(WriteSet.RowChange change) {
        Map<String, BigDecimal> deltas = new LinkedHashMap<>();
        for (Member member : members(change.table(), change.row())) {
            if (member.name().startsWith("+")) {
                deltas.put(member.name().substring(1), new BigDecimal(member.value()));
            }
        }
        return deltas;
    }
}
