package org.gargamel.classifier;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.parse.CallParser;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Isolation;

/**
 * The classifier's rules for one application: for every call, the rows (and columns) it may write. Loaded
 * and validated once ({@link #load}), then immutable and safe to share between threads.
 */
public final class ClassifierRules {
    /** PostgreSQL's numeric: at most 131072 digits before the decimal point and 16383 after. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;

    private static final int NUMERIC_MAX_SCALE = 16_383;
    /** More bits of digits than that many decimal digits can need: refused before counting digits (costly). */
    private static final int NUMERIC_MAX_BITS = 490_000;

    private final String source;
    private final Map<String, TableRule> tables;
    private final Map<String, ProcedureRule> procedures;
    /**
     * Per write rule: its PSI slots (one per column group it touches) and its SI slot (its table). By identity: a
     * rule is a record whose hashCode walks its table's columns, and these are asked on every call's path (it was
     * most of {@link #writeKeys}' cost).
     */
    private final IdentityHashMap<WriteRule, RuleSlots> psiSlots = new IdentityHashMap<>();

    private final IdentityHashMap<WriteRule, RuleSlots> siSlots = new IdentityHashMap<>();
    /**
     * {@link #psiSlots} without the slots that only SHARED keys reach (columns that every rule touching them only adds
     * to): no key can conflict with such a key, so the index is spared it ({@link #conflictKeys}).
     */
    private final IdentityHashMap<WriteRule, RuleSlots> psiConflictSlots = new IdentityHashMap<>();

    private final List<String> slotNames = new ArrayList<>();
    /**
     * A rule's slots and, per slot, whether its keys there are SHARED (it only adds to every column of the slot). Two
     * arrays in one record: the path of every call looks a rule up once.
     */
    @SuppressWarnings("ArrayRecordComponent") // built once, never written, never compared
    private record RuleSlots(int[] slots, boolean[] shared) {
        static final RuleSlots NONE = new RuleSlots(new int[0], new boolean[0]);

        static RuleSlots exclusive(int slot) {
            return new RuleSlots(new int[] {slot}, new boolean[1]);
        }
    }

    /** Per slot, the prefix lengths at which some write may put its first wildcard. */
    private final Map<Integer, Set<Integer>> wildcardDepths = new java.util.HashMap<>();
    /** Per procedure, table to the columns it declares {@code add:}; only procedures that declare some. */
    private final Map<String, Map<String, Set<String>>> incrementsByProcedure;

    private final Map<String, Set<String>> incrementColumns;

    public ClassifierRules(String source, Map<String, TableRule> tables, Map<String, ProcedureRule> procedures) {
        this.source = source;
        this.tables = Map.copyOf(tables);
        this.procedures = Map.copyOf(procedures);
        Map<String, Map<String, Set<String>>> byProcedure = new java.util.HashMap<>();
        Map<String, Set<String>> union = new java.util.TreeMap<>();
        for (ProcedureRule procedure : this.procedures.values()) {
            Map<String, Set<String>> increments = new java.util.TreeMap<>();
            for (WriteRule write : procedure.writes()) {
                if (!write.added().isEmpty()) {
                    increments
                            .computeIfAbsent(write.table().name(), table -> new TreeSet<>())
                            .addAll(write.added());
                    union.computeIfAbsent(write.table().name(), table -> new TreeSet<>())
                            .addAll(write.added());
                }
            }
            if (!increments.isEmpty()) {
                byProcedure.put(procedure.name(), immutable(increments));
            }
        }
        this.incrementsByProcedure = Map.copyOf(byProcedure);
        this.incrementColumns = immutable(union);
        assignSlots();
    }

    private static Map<String, Set<String>> immutable(Map<String, Set<String>> columnsByTable) {
        Map<String, Set<String>> copy = new LinkedHashMap<>();
        columnsByTable.forEach((table, columns) -> copy.put(table, java.util.Collections.unmodifiableSet(columns)));
        return java.util.Collections.unmodifiableMap(copy);
    }

    /** Loads and validates a rules file; errors name the file, the line and the problem. */
    public static ClassifierRules load(Path file) {
        return RulesLoader.load(file);
    }

    /**
     * Loads the file named by the {@code rules} key of a scheduler's or node's configuration: required, since Gargamel
     * knows no application's procedures by itself. Errors are configuration errors that name the key.
     */
    public static ClassifierRules loadConfigured(String rulesFile) {
        if (rulesFile == null) {
            throw new ConfigException("key 'rules' is required: the classifier rules file of the application's "
                    + "procedures (docs/classifier.md; the TPC-C kit ships tpcc-rules.yaml)");
        }
        if (!Files.isRegularFile(Path.of(rulesFile))) {
            throw new ConfigException("key 'rules': file " + rulesFile + " does not exist");
        }
        try {
            return load(Path.of(rulesFile));
        } catch (RuntimeException e) {
            throw new ConfigException("key 'rules': " + e.getMessage(), e);
        }
    }

    /**
     * Loads a rules file shipped as a class-path resource next to {@code owner} (an application kit's rules, such as
     * the TPC-C kit's); {@code resource} is absolute ({@code /org/...}) or relative to {@code owner}'s package.
     */
    public static ClassifierRules loadResource(Class<?> owner, String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new RulesException("no rules resource " + resource + " next to " + owner.getName());
            }
            return RulesLoader.load(in, resource.substring(resource.lastIndexOf('/') + 1));
        } catch (IOException e) {
            throw new RulesException("cannot read rules resource " + resource + ": " + e.getMessage(), e);
        }
    }

    public String source() {
        return source;
    }

    /**
     * A digest of what these rules mean: every table, procedure, parameter and write, in a canonical order, without
     * line numbers. Two rules files that classify alike (comments, order and layout aside) have the same digest; the
     * scheduler refuses a node whose rules have another (docs/protocol.md, Membership).
     */
    public String digest() {
        StringBuilder canonical = new StringBuilder();
        for (TableRule table : new java.util.TreeMap<>(tables).values()) {
            canonical
                    .append("table ")
                    .append(table.name())
                    .append(' ')
                    .append(table.key())
                    .append(' ')
                    .append(table.columns())
                    .append('\n');
        }
        for (ProcedureRule procedure : new java.util.TreeMap<>(procedures).values()) {
            canonical.append("procedure ").append(procedure.name()).append(procedure.readOnly() ? " read-only" : "");
            for (Parameter parameter : procedure.parameters()) {
                canonical
                        .append(' ')
                        .append(parameter.name())
                        .append(':')
                        .append(parameter.type())
                        .append(parameter.nullable() ? "?" : "");
            }
            canonical.append('\n');
            TreeSet<String> writes = new TreeSet<>(); // the order of a procedure's writes (and reads) means nothing
            for (WriteRule write : procedure.writes()) {
                // "add" only when present: rules without increments keep the digest they had.
                writes.add("  " + write.operation() + " " + write.table().name() + " " + write.key() + " "
                        + new TreeSet<>(write.columns())
                        + (write.added().isEmpty() ? "" : " add " + new TreeSet<>(write.added()))
                        + (write.fresh() ? " " + write.freshKey() : ""));
            }
            for (WriteRule read : procedure.reads()) {
                writes.add("  " + read.operation() + " " + read.table().name() + " " + read.key() + " "
                        + new TreeSet<>(read.columns()));
            }
            writes.forEach(write -> canonical.append(write).append('\n'));
        }
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(hash, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    public Map<String, TableRule> tables() {
        return tables;
    }

    /**
     * Table to the columns {@code procedure} declares {@code add:} (it only adds to them); empty when it declares none
     * or is unknown. Immutable.
     */
    public Map<String, Set<String>> increments(String procedure) {
        return incrementsByProcedure.getOrDefault(procedure, Map.of());
    }

    /** Table to the columns some procedure declares {@code add:}, over all procedures (sorted). Immutable. */
    public Map<String, Set<String>> incrementColumns() {
        return incrementColumns;
    }

    public Map<String, ProcedureRule> procedures() {
        return procedures;
    }

    public ProcedureRule procedure(String name) {
        ProcedureRule rule = procedures.get(name);
        if (rule == null) {
            throw new RulesException("unknown procedure '" + name + "' (the rules in " + source + " know "
                    + new TreeSet<>(procedures.keySet()) + ")");
        }
        return rule;
    }

    /** Parses a call written as psql would accept it, typed by the procedure's declared parameters. */
    public ProcedureCall parse(String callText) {
        return CallParser.parse(callText, this);
    }

    /** Checks a call against its rule: known procedure, arity, argument types, NULLs only where allowed. */
    public ProcedureRule check(ProcedureCall call) {
        ProcedureRule rule = procedure(call.procedure());
        List<Object> arguments = call.arguments();
        if (arguments.size() != rule.parameters().size()) {
            throw new RulesException(
                    call.procedure() + " takes " + rule.parameters().size() + " argument(s), got " + arguments.size());
        }
        for (int i = 0; i < arguments.size(); i++) {
            Parameter parameter = rule.parameters().get(i);
            Object value = arguments.get(i);
            if (value == null) {
                if (!parameter.nullable()) {
                    throw new RulesException(call.procedure() + ": argument " + (i + 1) + " (" + parameter.name()
                            + ") must not be NULL");
                }
            } else if (!parameter.type().accepts(value)) {
                throw new RulesException(call.procedure() + ": argument " + (i + 1) + " (" + parameter.name()
                        + ") must be " + parameter.type().sqlName() + ", got " + describe(value));
            }
        }
        return rule;
    }

    /**
     * The keys {@code call} may write, after {@link #check}. Read-only procedures and fresh inserts give
     * none. Element-wise parts are zipped; arrays of different lengths are rejected. Not the keys that order the
     * call: those are {@link #conflictKeys}, which add its declared reads.
     */
    public List<WriteKey> writeKeys(ProcedureCall call, Isolation isolation) {
        return keyList(call, isolation, false);
    }

    /**
     * The keys that order {@code call} against the others: its {@link #writeKeys} and the keys of the cells it declares
     * it reads ({@code reads:}; {@link WriteKey#rule()} is then a {@link WriteRule.Operation#READ}). A read key
     * conflicts with every write of its cells, and with every other read of them; a read of cells no procedure writes
     * gets no key, since nothing could conflict with it. In PSI, a write key of cells that every rule touching them only
     * adds to (a slot only SHARED keys reach) is left out too, for the same reason.
     */
    public List<WriteKey> conflictKeys(ProcedureCall call, Isolation isolation) {
        return keyList(call, isolation, true);
    }

    private List<WriteKey> keyList(ProcedureCall call, Isolation isolation, boolean withReads) {
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        keys(call, isolation, buffer, withReads);
        List<WriteKey> keys = new ArrayList<>(buffer.size());
        for (int k = 0; k < buffer.size(); k++) {
            WriteRule write = buffer.rule(k);
            int known = buffer.knownParts(k);
            Object[] values = new Object[buffer.length(k)];
            for (int i = 0; i < known; i++) {
                values[i] = partValue(call, write, write.key().get(i), buffer.element(k));
            }
            keys.add(new WriteKey(
                    buffer.slot(k), buffer.partsOf(k), known, buffer.shared(k), write, Arrays.asList(values)));
        }
        return keys;
    }

    /**
     * {@link #writeKeys(ProcedureCall, Isolation)} into {@code out} (emptied first), allocating nothing per key.
     * Checks the call first and returns its rule; on a bad call {@code out} is left empty.
     */
    public ProcedureRule writeKeys(ProcedureCall call, Isolation isolation, WriteKeyBuffer out) {
        return keys(call, isolation, out, false);
    }

    /**
     * {@link #conflictKeys(ProcedureCall, Isolation)} into {@code out} (emptied first), allocating nothing per key:
     * the scheduler's form. Checks the call first and returns its rule; on a bad call {@code out} is left empty.
     */
    public ProcedureRule conflictKeys(ProcedureCall call, Isolation isolation, WriteKeyBuffer out) {
        return keys(call, isolation, out, true);
    }

    private ProcedureRule keys(ProcedureCall call, Isolation isolation, WriteKeyBuffer out, boolean withReads) {
        out.clear();
        ProcedureRule rule = check(call);
        if (rule.readOnly()) {
            return rule;
        }
        try {
            addKeys(call, rule.writes(), isolation, withReads, out);
            if (withReads) {
                addKeys(call, rule.reads(), isolation, true, out);
            }
        } catch (RuntimeException e) {
            out.clear();
            throw e;
        }
        return rule;
    }

    /**
     * The keys of {@code accesses} (writes, or declared reads) of one call, appended to {@code out}; for ordering
     * ({@code conflicting}), only those that some other key can conflict with.
     */
    private void addKeys(
            ProcedureCall call,
            List<WriteRule> accesses,
            Isolation isolation,
            boolean conflicting,
            WriteKeyBuffer out) {
        IdentityHashMap<WriteRule, RuleSlots> slotsByRule =
                isolation == Isolation.SI ? siSlots : conflicting ? psiConflictSlots : psiSlots;
        for (WriteRule write : accesses) {
            if (write.fresh()) {
                continue;
            }
            RuleSlots ruleSlots = slotsByRule.get(write);
            int[] slots = ruleSlots.slots();
            boolean[] shared = ruleSlots.shared();
            if (slots.length == 0) {
                continue; // a read of cells no procedure writes: nothing can conflict with it
            }
            int elements = elementCount(call, write);
            List<KeyPart> key = write.key();
            int length = key.size();
            for (int element = 0; element < elements; element++) {
                // One row: its parts are written once and shared by its keys (one per slot).
                int start = out.reserveParts(length);
                int known = length;
                for (int i = 0; i < length; i++) {
                    Object value = partValue(call, write, key.get(i), element);
                    if (value == null) {
                        known = i; // a wildcard: every later part is a wildcard too
                        break;
                    }
                    long part;
                    try {
                        part = toLong(value);
                    } catch (RulesException e) {
                        throw new RulesException(
                                call.procedure() + ": key part " + key.get(i) + " of "
                                        + write.table().name() + ": " + e.getMessage(),
                                e);
                    }
                    out.setPart(start, i, part);
                }
                for (int s = 0; s < slots.length; s++) {
                    out.addKey(slots[s], start, length, known, shared[s], write, element);
                }
            }
        }
    }

    /**
     * Why two calls conflict: the first shared row and the columns both may write (or one reads, {@code read of} before
     * its row), or empty.
     */
    public Optional<String> conflict(ProcedureCall first, ProcedureCall second, Isolation isolation) {
        List<WriteKey> firstKeys = conflictKeys(first, isolation);
        List<WriteKey> secondKeys = conflictKeys(second, isolation);
        for (WriteKey a : firstKeys) {
            for (WriteKey b : secondKeys) {
                if (a.conflictsWith(b)) {
                    Set<String> columns = new TreeSet<>(a.rule().touchedColumns());
                    columns.retainAll(b.rule().touchedColumns());
                    String what = isolation == Isolation.SI ? "the row (SI)" : "columns " + columns;
                    return Optional.of("on " + describe(a) + " ~ " + describe(b) + ", " + what);
                }
            }
        }
        return Optional.empty();
    }

    private static String describe(WriteKey key) {
        return (key.rule().isRead() ? "read of " : "") + key.describeRow();
    }

    /**
     * Whether a call may write slot {@code slot} with exactly {@code depth} known key parts and wildcards
     * after them (the conflict index tracks writers below a prefix only where this is possible).
     */
    public boolean wildcardPossible(int slot, int depth) {
        Set<Integer> depths = wildcardDepths.get(slot);
        return depths != null && depths.contains(depth);
    }

    public String slotName(int slot) {
        return slotNames.get(slot);
    }

    public int slotCount() {
        return slotNames.size();
    }

    private int elementCount(ProcedureCall call, WriteRule write) {
        int count = -1;
        String first = null;
        for (KeyPart part : write.key()) {
            if (part.kind() != KeyPart.Kind.ELEMENT) {
                continue;
            }
            List<?> array = (List<?>) call.arguments().get(part.parameterIndex());
            if (array == null) {
                throw new RulesException(call.procedure() + ": array " + part.parameter() + " must not be NULL");
            }
            if (count >= 0 && array.size() != count) {
                throw new RulesException(call.procedure() + ": arrays " + first + " and " + part.parameter()
                        + " are zipped by the rules but have " + count + " and " + array.size() + " elements");
            }
            count = array.size();
            first = part.parameter();
        }
        return count < 0 ? 1 : count;
    }

    private static Object partValue(ProcedureCall call, WriteRule access, KeyPart part, int element) {
        return switch (part.kind()) {
            case WILDCARD -> null;
            case CONSTANT -> part.constant();
            case PARAMETER, PARAMETER_OR_WILDCARD -> call.arguments().get(part.parameterIndex());
            case ELEMENT -> {
                Object value = ((List<?>) call.arguments().get(part.parameterIndex())).get(element);
                if (value == null) {
                    throw new RulesException(call.procedure() + ": element " + (element + 1) + " of " + part.parameter()
                            + " is NULL, but it is part of a " + (access.isRead() ? "read" : "write") + " key of "
                            + access.table().name() + " (" + part + "), so the rows it stands for cannot be known");
                }
                yield value;
            }
        };
    }

    /**
     * Integers as themselves; other values as a 64-bit hash (a collision only adds a conflict). A numeric beyond
     * PostgreSQL's range cannot be any row's key: a {@link RulesException} (the call is rejected), never an arithmetic
     * error or a string of billions of digits.
     */
    static long toLong(Object value) {
        if (value instanceof Integer integer) {
            return integer;
        }
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof BigDecimal decimal) {
            if (decimal.unscaledValue().bitLength() > NUMERIC_MAX_BITS
                    || decimal.scale() > NUMERIC_MAX_SCALE
                    || (long) decimal.precision() - decimal.scale() > NUMERIC_MAX_INTEGER_DIGITS) {
                throw new RulesException("numeric value with scale " + decimal.scale() + " and "
                        + decimal.unscaledValue().bitLength()
                        + " bits of digits is outside PostgreSQL's numeric range ("
                        + NUMERIC_MAX_INTEGER_DIGITS + " digits before the point, " + NUMERIC_MAX_SCALE + " after)");
            }
            BigDecimal normalized = decimal.stripTrailingZeros();
            if (normalized.scale() <= 0 && (long) normalized.precision() - normalized.scale() < 19) {
                return normalized.longValueExact();
            }
            return mix(normalized.toPlainString().hashCode() * 0x9E3779B97F4A7C15L);
        }
        if (value instanceof LocalDateTime timestamp) {
            return timestamp.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + timestamp.get(ChronoField.MICRO_OF_SECOND);
        }
        String text = value.toString();
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        }
        return mix(hash);
    }

    static long mix(long value) {
        long z = value;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static String describe(Object value) {
        return value instanceof String
                ? "text '" + value + "'"
                : value.getClass().getSimpleName() + " " + value;
    }

    /**
     * PSI slots: a table's columns are cut into groups such that every write and every declared read touches whole
     * groups (the coarsest partition refined by every such column set). Two of them share a column iff they share a
     * group, so one index per group replaces one per column. A group no write touches gets no slot: reads alone cannot
     * conflict. SI slots: one per table that some keyed write touches, shared by its writes and reads.
     */
    private void assignSlots() {
        Map<String, List<WriteRule>> accessesByTable = new LinkedHashMap<>();
        for (ProcedureRule procedure : procedures.values()) {
            for (WriteRule write : procedure.writes()) {
                if (!write.fresh()) {
                    accessesByTable
                            .computeIfAbsent(write.table().name(), table -> new ArrayList<>())
                            .add(write);
                }
            }
        }
        for (ProcedureRule procedure : procedures.values()) {
            for (WriteRule read : procedure.reads()) {
                List<WriteRule> accesses = accessesByTable.get(read.table().name());
                if (accesses == null) {
                    psiSlots.put(read, RuleSlots.NONE); // no keyed write of this table: nothing to conflict with
                    psiConflictSlots.put(read, RuleSlots.NONE);
                    siSlots.put(read, RuleSlots.NONE);
                } else {
                    accesses.add(read);
                }
            }
        }
        for (Map.Entry<String, List<WriteRule>> entry : accessesByTable.entrySet()) {
            TableRule table = tables.get(entry.getKey());
            int siSlot = newSlot(table.name() + " (row)");
            // The group of a column is the set of writes and reads that touch it.
            Map<Set<WriteRule>, List<String>> groups = new LinkedHashMap<>();
            for (String column : table.columns()) {
                Set<WriteRule> touching = new LinkedHashSet<>();
                for (WriteRule access : entry.getValue()) {
                    if (access.touchedColumns().contains(column)) {
                        touching.add(access);
                    }
                }
                if (touching.stream().anyMatch(access -> !access.isRead())) {
                    groups.computeIfAbsent(touching, key -> new ArrayList<>()).add(column);
                }
            }
            Map<WriteRule, List<Integer>> slots = new LinkedHashMap<>();
            Map<WriteRule, List<Boolean>> modes = new LinkedHashMap<>();
            Set<Integer> sharedOnly = new java.util.HashSet<>();
            for (Map.Entry<Set<WriteRule>, List<String>> group : groups.entrySet()) {
                int slot = newSlot(table.name() + group.getValue());
                boolean allShared = true;
                for (WriteRule access : group.getKey()) {
                    slots.computeIfAbsent(access, key -> new ArrayList<>()).add(slot);
                    // SHARED where it only adds: every column of the group is one it adds to (it touches them all).
                    boolean shared = access.added().containsAll(group.getValue());
                    modes.computeIfAbsent(access, key -> new ArrayList<>()).add(shared);
                    allShared &= shared;
                }
                if (allShared) {
                    sharedOnly.add(slot);
                }
            }
            for (WriteRule access : entry.getValue()) {
                siSlots.put(access, RuleSlots.exclusive(siSlot)); // SI: rows, increments are ordinary writes
                List<Integer> accessSlots = slots.getOrDefault(access, List.of());
                List<Boolean> accessModes = modes.getOrDefault(access, List.of());
                boolean[] shared = new boolean[accessModes.size()];
                for (int i = 0; i < shared.length; i++) {
                    shared[i] = accessModes.get(i);
                }
                psiSlots.put(
                        access,
                        new RuleSlots(
                                accessSlots.stream().mapToInt(Integer::intValue).toArray(), shared));
                List<Integer> conflictSlots = new ArrayList<>();
                for (int slot : accessSlots) {
                    if (!sharedOnly.contains(slot)) {
                        conflictSlots.add(slot); // some EXCLUSIVE key reaches it
                    }
                }
                boolean[] conflictShared = new boolean[conflictSlots.size()];
                for (int i = 0, j = 0; i < accessSlots.size(); i++) {
                    if (!sharedOnly.contains(accessSlots.get(i))) {
                        conflictShared[j++] = shared[i];
                    }
                }
                psiConflictSlots.put(
                        access,
                        new RuleSlots(
                                conflictSlots.stream()
                                        .mapToInt(Integer::intValue)
                                        .toArray(),
                                conflictShared));
                Set<Integer> depths = possibleWildcardDepths(access);
                for (int slot : psiSlots.get(access).slots()) {
                    wildcardDepths
                            .computeIfAbsent(slot, key -> new java.util.HashSet<>())
                            .addAll(depths);
                }
                wildcardDepths
                        .computeIfAbsent(siSlot, key -> new java.util.HashSet<>())
                        .addAll(depths);
            }
        }
    }

    /** The prefix lengths at which this write's (or read's) key may turn into wildcards: at a `*` or at a `p?`. */
    private static Set<Integer> possibleWildcardDepths(WriteRule write) {
        Set<Integer> depths = new java.util.HashSet<>();
        for (int i = 0; i < write.key().size(); i++) {
            KeyPart.Kind kind = write.key().get(i).kind();
            if (kind == KeyPart.Kind.WILDCARD) {
                depths.add(i);
                break;
            }
            if (kind == KeyPart.Kind.PARAMETER_OR_WILDCARD) {
                depths.add(i);
            }
        }
        return depths;
    }

    private int newSlot(String name) {
        slotNames.add(name);
        return slotNames.size() - 1;
    }
}
