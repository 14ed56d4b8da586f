package org.gargamel.classifier.rules;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.FreshKey;
import org.gargamel.classifier.KeyPart;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.TableRule;
import org.gargamel.classifier.WriteRule;

/**
 * Reads a rules file (docs/classifier.md) and validates it: every table, column and parameter named
 * exists, types fit, keys cover the table's primary key. Every error names the file, the line and what
 * is wrong; unknown keys are errors, never ignored.
 */
public final class RulesLoader {
    private static final Set<String> TOP_KEYS = Set.of("tables", "procedures");
    private static final Set<String> TABLE_KEYS = Set.of("key", "columns");
    private static final Set<String> PROCEDURE_KEYS = Set.of("parameters", "read-only", "writes", "reads");
    private static final Set<String> PARAMETER_KEYS = Set.of("name", "type", "nullable");
    private static final Set<String> WRITE_KEYS =
            Set.of("update", "insert", "delete", "key", "columns", "add", "fresh");
    private static final Set<String> FRESH_KEYS = Set.of("counter");
    private static final Set<String> READ_KEYS = Set.of("table", "key", "columns");

    private final String file;

    private RulesLoader(String file) {
        this.file = file;
    }

    public static ClassifierRules load(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            return load(in, path.toString());
        } catch (IOException e) {
            throw new RulesException("cannot read rules file " + path + ": " + e.getMessage(), e);
        }
    }

    public static ClassifierRules load(InputStream in, String name) {
        YamlTree root;
        try {
            root = YamlTree.read(in);
        } catch (IOException e) {
            throw new RulesException(
                    name + ": malformed YAML: " + e.getMessage().replace('\n', ' '), e);
        }
        return new RulesLoader(name).interpret(root);
    }

    private RulesException error(int line, String message) {
        return new RulesException(file + ":" + line + ": " + message);
    }

    private void requireKnownKeys(Map<String, YamlTree> map, Set<String> known, String where) {
        for (Map.Entry<String, YamlTree> entry : map.entrySet()) {
            if (!known.contains(entry.getKey())) {
                throw error(
                        entry.getValue().line(),
                        "unknown key '" + entry.getKey() + "' in " + where + " (known: "
                                + String.join(", ", new java.util.TreeSet<>(known)) + ")");
            }
        }
    }

    private ClassifierRules interpret(YamlTree root) {
        Map<String, YamlTree> top = root.map("the rules file", file);
        requireKnownKeys(top, TOP_KEYS, "the rules file");
        if (!top.containsKey("tables") || !top.containsKey("procedures")) {
            throw error(root.line(), "a rules file needs 'tables' and 'procedures'");
        }
        Map<String, TableRule> tables = new LinkedHashMap<>();
        for (Map.Entry<String, YamlTree> entry :
                top.get("tables").map("tables", file).entrySet()) {
            tables.put(entry.getKey(), table(entry.getKey(), entry.getValue()));
        }
        Map<String, ProcedureRule> procedures = new LinkedHashMap<>();
        for (Map.Entry<String, YamlTree> entry :
                top.get("procedures").map("procedures", file).entrySet()) {
            procedures.put(entry.getKey(), procedure(entry.getKey(), entry.getValue(), tables));
        }
        return new ClassifierRules(file, tables, procedures);
    }

    private TableRule table(String name, YamlTree node) {
        Map<String, YamlTree> map = node.map("table " + name, file);
        requireKnownKeys(map, TABLE_KEYS, "table " + name);
        if (!map.containsKey("key") || !map.containsKey("columns")) {
            throw error(node.line(), "table " + name + " needs 'key' (its primary-key columns) and 'columns'");
        }
        List<String> columns = names(map.get("columns"), "columns of table " + name);
        List<String> key = names(map.get("key"), "key of table " + name);
        for (String column : key) {
            if (!columns.contains(column)) {
                throw error(
                        map.get("key").line(),
                        "key column '" + column + "' of table " + name + " is not among its columns");
            }
        }
        return new TableRule(name, key, columns);
    }

    private List<String> names(YamlTree node, String what) {
        List<String> names = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (YamlTree item : node.list(what, file)) {
            String name = item.text(what, file);
            if (!seen.add(name)) {
                throw error(item.line(), "'" + name + "' appears twice in " + what);
            }
            names.add(name);
        }
        return names;
    }

    private ProcedureRule procedure(String name, YamlTree node, Map<String, TableRule> tables) {
        Map<String, YamlTree> map = node.map("procedure " + name, file);
        requireKnownKeys(map, PROCEDURE_KEYS, "procedure " + name);
        if (!map.containsKey("parameters")) {
            throw error(node.line(), "procedure " + name + " needs 'parameters' (an empty list if it takes none)");
        }
        List<Parameter> parameters = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (YamlTree item : map.get("parameters").list("parameters of " + name, file)) {
            Map<String, YamlTree> parameter = item.map("a parameter of " + name, file);
            requireKnownKeys(parameter, PARAMETER_KEYS, "a parameter of " + name);
            if (!parameter.containsKey("name") || !parameter.containsKey("type")) {
                throw error(item.line(), "a parameter of " + name + " needs 'name' and 'type'");
            }
            String parameterName = parameter.get("name").text("parameter name", file);
            if (!seen.add(parameterName)) {
                throw error(item.line(), "parameter '" + parameterName + "' of " + name + " is declared twice");
            }
            ParameterType type;
            try {
                type = ParameterType.parse(parameter.get("type").text("parameter type", file));
            } catch (IllegalArgumentException e) {
                throw error(
                        parameter.get("type").line(),
                        "parameter " + parameterName + " of " + name + ": " + e.getMessage());
            }
            boolean nullable = parameter.containsKey("nullable")
                    && bool(parameter.get("nullable"), "nullable of " + parameterName);
            parameters.add(new Parameter(parameterName, type, nullable));
        }
        boolean readOnly = map.containsKey("read-only") && bool(map.get("read-only"), "read-only of " + name);
        List<WriteRule> writes = new ArrayList<>();
        if (map.containsKey("writes")) {
            if (readOnly) {
                throw error(map.get("writes").line(), "procedure " + name + " is read-only but declares writes");
            }
            ProcedureRule partial = new ProcedureRule(name, parameters, false, List.of(), node.line());
            for (YamlTree item : map.get("writes").list("writes of " + name, file)) {
                writes.add(write(partial, item, tables));
            }
            requireCounterUpdates(name, writes);
        } else if (!readOnly) {
            throw error(
                    node.line(),
                    "procedure " + name + " declares no writes; say 'read-only: true' if it writes nothing");
        }
        List<WriteRule> reads = new ArrayList<>();
        if (map.containsKey("reads")) {
            if (readOnly) {
                throw error(
                        map.get("reads").line(),
                        "procedure " + name + " is read-only, so it reads one snapshot and never waits for another "
                                + "call: 'reads' belongs to procedures that write");
            }
            ProcedureRule partial = new ProcedureRule(name, parameters, false, List.of(), node.line());
            for (YamlTree item : map.get("reads").list("reads of " + name, file)) {
                reads.add(read(partial, item, tables));
            }
        }
        return new ProcedureRule(name, parameters, readOnly, writes, reads, node.line());
    }

    private boolean bool(YamlTree node, String what) {
        String text = node.text(what, file);
        if (text.equals("true") || text.equals("false")) {
            return Boolean.parseBoolean(text);
        }
        throw error(node.line(), what + " must be true or false, got '" + text + "'");
    }

    private WriteRule write(ProcedureRule procedure, YamlTree node, Map<String, TableRule> tables) {
        String where = "a write of " + procedure.name();
        Map<String, YamlTree> map = node.map(where, file);
        requireKnownKeys(map, WRITE_KEYS, where);
        List<WriteRule.Operation> operations = new ArrayList<>();
        for (WriteRule.Operation operation : WriteRule.Operation.values()) {
            if (operation != WriteRule.Operation.READ
                    && map.containsKey(operation.name().toLowerCase(java.util.Locale.ROOT))) {
                operations.add(operation);
            }
        }
        if (operations.size() != 1) {
            throw error(node.line(), where + " needs exactly one of update, insert or delete (naming the table)");
        }
        WriteRule.Operation operation = operations.get(0);
        YamlTree tableNode = map.get(operation.name().toLowerCase(java.util.Locale.ROOT));
        String tableName = tableNode.text("table name", file);
        TableRule table = tables.get(tableName);
        if (table == null) {
            throw error(
                    tableNode.line(),
                    where + ": unknown table '" + tableName + "' (declared tables: "
                            + String.join(", ", tables.keySet()) + ")");
        }
        FreshKey freshKey = map.containsKey("fresh") ? freshKey(map.get("fresh"), where, tables) : null;
        boolean fresh = freshKey != null;
        if (fresh && operation != WriteRule.Operation.INSERT) {
            throw error(map.get("fresh").line(), where + ": only an insert can be fresh");
        }
        List<String> columns = List.of();
        if (map.containsKey("columns")) {
            if (operation != WriteRule.Operation.UPDATE) {
                throw error(
                        map.get("columns").line(),
                        where + ": columns belong to an update; an insert or delete " + "writes whole rows");
            }
            columns = columns(map.get("columns"), "columns of " + where, table, where);
        }
        List<String> added = List.of();
        if (map.containsKey("add")) {
            YamlTree addNode = map.get("add");
            if (operation != WriteRule.Operation.UPDATE) {
                throw error(
                        addNode.line(),
                        where + ": 'add' belongs to an update (columns it only adds to); "
                                + (operation == WriteRule.Operation.INSERT ? "an insert" : "a delete")
                                + " writes whole rows");
            }
            added = columns(addNode, "add of " + where, table, where);
            for (String column : added) {
                if (columns.contains(column)) {
                    throw error(
                            addNode.line(),
                            where + ": column '" + column + "' of " + tableName + " is listed both in 'columns' "
                                    + "and in 'add'; keep it in 'add' only if the update just adds to it");
                }
            }
        }
        if (operation == WriteRule.Operation.UPDATE && columns.isEmpty() && added.isEmpty()) {
            throw error(
                    node.line(),
                    where + ": an update of " + tableName + " must list the columns it writes ('columns', or "
                            + "'add' for those it only adds to)");
        }
        List<KeyPart> key = List.of();
        if (fresh) {
            if (map.containsKey("key")) {
                throw error(map.get("key").line(), where + ": a fresh insert takes no key (its rows are new)");
            }
        } else {
            if (!map.containsKey("key")) {
                throw error(
                        node.line(),
                        where + " on " + tableName + " needs a key, one part per primary-key column " + table.key()
                                + " (use \"*\" for a part the call cannot determine)");
            }
            key = key(procedure, map.get("key"), table, where);
        }
        return new WriteRule(operation, table, key, Set.copyOf(columns), Set.copyOf(added), freshKey, node.line());
    }

    /** A list of distinct columns of {@code table}; an unknown one is an error at its line. */
    private List<String> columns(YamlTree node, String what, TableRule table, String where) {
        List<String> columns = names(node, what);
        for (String column : columns) {
            if (!table.columns().contains(column)) {
                throw error(node.line(), where + ": table " + table.name() + " has no column '" + column + "'");
            }
        }
        return columns;
    }

    /**
     * {@code fresh: true} (the database makes the key unique: checked against the catalogue by the live validation),
     * {@code fresh: {counter: TABLE.COLUMN}} (the key comes from a counter the procedure updates), or {@code false}
     * (null: not fresh).
     */
    private FreshKey freshKey(YamlTree node, String where, Map<String, TableRule> tables) {
        if (node.value() instanceof Map<?, ?>) {
            Map<String, YamlTree> map = node.map("fresh of " + where, file);
            requireKnownKeys(map, FRESH_KEYS, "fresh of " + where);
            if (!map.containsKey("counter")) {
                throw error(
                        node.line(), where + ": fresh needs 'counter: TABLE.COLUMN', the counter its key comes from");
            }
            YamlTree counter = map.get("counter");
            String text = counter.text("counter of " + where, file).trim();
            int dot = text.indexOf('.');
            if (dot <= 0 || dot != text.lastIndexOf('.') || dot == text.length() - 1) {
                throw error(
                        counter.line(),
                        where + ": counter '" + text + "' must be TABLE.COLUMN (e.g. district.d_next_o_id)");
            }
            String table = text.substring(0, dot);
            String column = text.substring(dot + 1);
            TableRule counterTable = tables.get(table);
            if (counterTable == null) {
                throw error(
                        counter.line(),
                        where + ": counter '" + text + "' names unknown table '" + table + "' (declared tables: "
                                + String.join(", ", tables.keySet()) + ")");
            }
            if (!counterTable.columns().contains(column)) {
                throw error(
                        counter.line(),
                        where + ": counter '" + text + "': table " + table + " has no column '" + column + "'");
            }
            return new FreshKey.Counter(table, column);
        }
        String text = node.text("fresh of " + where, file);
        if (text.equals("true")) {
            return FreshKey.GENERATED;
        }
        if (text.equals("false")) {
            return null;
        }
        throw error(
                node.line(),
                where + ": fresh must be true (a key the database generates: a sequence or identity column, or no "
                        + "unique key), {counter: TABLE.COLUMN} (a key built from a counter the procedure updates) or "
                        + "false, got '" + text + "'");
    }

    /**
     * A fresh insert whose key comes from a counter is fresh only because the procedure updates that counter, and only
     * that declared update orders two calls that could draw the same value: it must be among the procedure's writes.
     */
    private void requireCounterUpdates(String procedure, List<WriteRule> writes) {
        for (WriteRule write : writes) {
            if (write.freshKey() instanceof FreshKey.Counter counter) {
                boolean added = writes.stream()
                        .anyMatch(other -> other.operation() == WriteRule.Operation.UPDATE
                                && other.table().name().equals(counter.table())
                                && other.added().contains(counter.column()));
                if (added) {
                    throw error(
                            write.line(),
                            "a write of " + procedure + ": the fresh insert into "
                                    + write.table().name()
                                    + " takes its key from counter " + counter.table() + "." + counter.column()
                                    + ", which " + procedure + " declares 'add': increments of it would not order two "
                                    + "calls that draw the same value; list it in 'columns'");
                }
                boolean declared = writes.stream()
                        .anyMatch(other -> other.operation() == WriteRule.Operation.UPDATE
                                && other.table().name().equals(counter.table())
                                && other.columns().contains(counter.column()));
                if (!declared) {
                    throw error(
                            write.line(),
                            "a write of " + procedure + ": the fresh insert into "
                                    + write.table().name()
                                    + " takes its key from counter " + counter.table() + "." + counter.column()
                                    + ", but " + procedure + " declares no update of that column: add {update: "
                                    + counter.table() + ", key: [...], columns: [" + counter.column() + "]}");
                }
            }
        }
    }

    /**
     * One of a procedure's {@code reads}: {@code {table: T, key: [...], columns: [...]}}, keyed like an update (the
     * cells the call reads and needs stable while it runs).
     */
    private WriteRule read(ProcedureRule procedure, YamlTree node, Map<String, TableRule> tables) {
        String where = "a read of " + procedure.name();
        Map<String, YamlTree> map = node.map(where, file);
        if (map.containsKey("add")) {
            throw error(
                    map.get("add").line(),
                    where + ": 'add' belongs to an update (columns it only adds to); a read lists 'columns'");
        }
        requireKnownKeys(map, READ_KEYS, where);
        if (!map.containsKey("table")) {
            throw error(node.line(), where + " needs 'table' (with 'key' and 'columns', as an update)");
        }
        YamlTree tableNode = map.get("table");
        String tableName = tableNode.text("table name", file);
        TableRule table = tables.get(tableName);
        if (table == null) {
            throw error(
                    tableNode.line(),
                    where + ": unknown table '" + tableName + "' (declared tables: "
                            + String.join(", ", tables.keySet()) + ")");
        }
        if (!map.containsKey("columns")) {
            throw error(node.line(), where + ": a read of " + tableName + " must list the columns it reads");
        }
        List<String> columns = names(map.get("columns"), "columns of " + where);
        for (String column : columns) {
            if (!table.columns().contains(column)) {
                throw error(
                        map.get("columns").line(), where + ": table " + tableName + " has no column '" + column + "'");
            }
        }
        if (!map.containsKey("key")) {
            throw error(
                    node.line(),
                    where + " on " + tableName + " needs a key, one part per primary-key column " + table.key()
                            + " (use \"*\" for a part the call cannot determine)");
        }
        if (table.key().isEmpty()) {
            throw error(
                    map.get("key").line(),
                    where + ": table " + tableName + " has no primary key, so only fresh inserts write it, which "
                            + "no key designates: a read of it can conflict with nothing (leave it out)");
        }
        List<KeyPart> key = key(procedure, map.get("key"), table, where);
        return new WriteRule(WriteRule.Operation.READ, table, key, Set.copyOf(columns), Set.of(), null, node.line());
    }

    private List<KeyPart> key(ProcedureRule procedure, YamlTree node, TableRule table, String where) {
        List<YamlTree> items = node.list("key of " + where, file);
        if (table.key().isEmpty()) {
            throw error(
                    node.line(),
                    where + ": table " + table.name() + " has no primary key, so only a fresh insert "
                            + "can write it");
        }
        if (items.size() != table.key().size()) {
            throw error(
                    node.line(),
                    where + ": the key must cover the primary key " + table.key() + " of " + table.name() + " with "
                            + table.key().size() + " part(s), got " + items.size());
        }
        List<KeyPart> parts = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            parts.add(keyPart(procedure, items.get(i), table.key().get(i), where));
        }
        return parts;
    }

    private KeyPart keyPart(ProcedureRule procedure, YamlTree node, String column, String where) {
        String text = node.text("a key part", file).trim();
        if (text.equals("*")) {
            return KeyPart.WILDCARD;
        }
        if (text.matches("-?\\d+")) {
            return new KeyPart(KeyPart.Kind.CONSTANT, null, -1, Long.parseLong(text));
        }
        KeyPart.Kind kind = KeyPart.Kind.PARAMETER;
        String name = text;
        if (text.endsWith("[]")) {
            kind = KeyPart.Kind.ELEMENT;
            name = text.substring(0, text.length() - 2);
        } else if (text.endsWith("?")) {
            kind = KeyPart.Kind.PARAMETER_OR_WILDCARD;
            name = text.substring(0, text.length() - 1);
        }
        int index = procedure.parameterIndex(name);
        if (index < 0) {
            throw error(
                    node.line(),
                    where + ": key part '" + text + "' for column " + column + " names no declared parameter of "
                            + procedure.name());
        }
        Parameter parameter = procedure.parameters().get(index);
        if (kind == KeyPart.Kind.ELEMENT && !parameter.type().isArray()) {
            throw error(
                    node.line(),
                    where + ": '" + text + "' takes elements of " + name + ", which is "
                            + parameter.type().sqlName() + ", not an array");
        }
        if (kind != KeyPart.Kind.ELEMENT && parameter.type().isArray()) {
            throw error(
                    node.line(),
                    where + ": parameter " + name + " is an array; write '" + name + "[]' to use its elements");
        }
        if (kind == KeyPart.Kind.PARAMETER && parameter.nullable()) {
            throw error(
                    node.line(),
                    where + ": parameter " + name + " may be NULL; write '" + name
                            + "?' to say that a NULL stands for any value");
        }
        return new KeyPart(kind, name, index, 0);
    }
}
