package org.gargamel.classifier;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
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
    private final String source;
    private final Map<String, TableRule> tables;
    private final Map<String, ProcedureRule> procedures;
    /** Which slots of the conflict index each write and declared read reaches. */
    private final ConflictSlots conflictSlots;
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
        this.conflictSlots = new ConflictSlots(this.tables, this.procedures);
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
        for (WriteRule write : accesses) {
            if (write.fresh()) {
                continue;
            }
            ConflictSlots.RuleSlots ruleSlots = conflictSlots.of(write, isolation, conflicting);
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
                        part = KeyParts.toLong(value);
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
        return conflictSlots.wildcardPossible(slot, depth);
    }

    public String slotName(int slot) {
        return conflictSlots.name(slot);
    }

    public int slotCount() {
        return conflictSlots.count();
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

    private static String describe(Object value) {
        return value instanceof String
                ? "text '" + value + "'"
                : value.getClass().getSimpleName() + " " + value;
    }
}
