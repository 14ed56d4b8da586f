package org.gargamel.classifier.validate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.FreshKey;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.TableRule;
import org.gargamel.classifier.WriteRule;

/**
 * Checks rules against a live database's catalogue (schema {@code public} unless told otherwise): every
 * procedure exists with the declared argument types in order, every table (written or only read) exists with the
 * declared columns, and each table's declared key is its primary key — so a key expression covering the declared
 * key covers the real one. A {@code fresh: true} insert must be provably fresh: each unique key of its table
 * (the primary key, unique constraints and indexes, exclusion constraints) has a column that takes its value from
 * a sequence of the schema (a default of exactly {@code nextval} of it, or an identity column), which every node
 * aligns to a residue class of its own (docs/node.md, Sequences), or the table has no unique key at all. All
 * problems are collected and reported together, each naming the rules file and the object.
 */
public final class LiveValidator {
    /** Types whose addition is exact, so increments applied in any order give one value. */
    private static final Set<String> ADDITIVE_TYPES = Set.of("int2", "int4", "int8", "numeric");

    private final String schema;

    public LiveValidator(String schema) {
        this.schema = schema;
    }

    public LiveValidator() {
        this("public");
    }

    /** Throws a {@link RulesException} listing every mismatch; returns normally when the rules fit. */
    public void validate(ClassifierRules rules, Connection connection) throws SQLException {
        List<String> problems = new ArrayList<>();
        Map<String, Map<String, String>> columnTypes = new HashMap<>();
        for (TableRule table : rules.tables().values()) {
            columnTypes.put(table.name(), checkTable(connection, table, problems));
        }
        for (ProcedureRule procedure : rules.procedures().values()) {
            checkProcedure(connection, procedure, problems);
            for (WriteRule write : procedure.writes()) {
                if (write.freshKey() instanceof FreshKey.Generated) {
                    checkFreshInsert(connection, rules.source(), procedure, write, problems);
                }
                checkIncrements(rules.source(), procedure, write, columnTypes, problems);
            }
        }
        if (!problems.isEmpty()) {
            throw new RulesException(
                    "the rules in " + rules.source() + " do not match the database: " + String.join("; ", problems));
        }
    }

    /** Checks a table's columns and primary key; returns its columns' types (udt names: int4, numeric, ...). */
    private Map<String, String> checkTable(Connection connection, TableRule table, List<String> problems)
            throws SQLException {
        Map<String, String> types = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement("SELECT column_name, udt_name FROM "
                + "information_schema.columns WHERE table_schema = ? AND table_name = ?")) {
            statement.setString(1, schema);
            statement.setString(2, table.name());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    types.put(rows.getString(1), rows.getString(2));
                }
            }
        }
        Set<String> columns = types.keySet();
        if (columns.isEmpty()) {
            problems.add("table " + schema + "." + table.name() + " does not exist");
            return types;
        }
        for (String column : table.columns()) {
            if (!columns.contains(column)) {
                problems.add("table " + table.name() + " has no column " + column);
            }
        }
        List<String> primaryKey = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT a.attname
                FROM pg_index i
                JOIN pg_class c ON c.oid = i.indrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                WHERE i.indisprimary AND n.nspname = ? AND c.relname = ?
                ORDER BY k.position""")) {
            statement.setString(1, schema);
            statement.setString(2, table.name());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    primaryKey.add(rows.getString(1));
                }
            }
        }
        if (!new TreeSet<>(primaryKey).equals(new TreeSet<>(table.key()))) {
            problems.add("table " + table.name() + " has primary key " + primaryKey + " but the rules declare "
                    + table.key());
        }
        return types;
    }

    /**
     * A column declared {@code add:} takes increments that other replicas apply as {@code col = col + delta} in
     * another order: only exact addition commutes. Integers and numeric add exactly; floats round, money and the rest
     * are refused.
     */
    private static void checkIncrements(
            String source,
            ProcedureRule procedure,
            WriteRule write,
            Map<String, Map<String, String>> columnTypes,
            List<String> problems) {
        Map<String, String> types = columnTypes.getOrDefault(write.table().name(), Map.of());
        for (String column : new TreeSet<>(write.added())) {
            String type = types.get(column);
            if (type != null && !ADDITIVE_TYPES.contains(type)) {
                problems.add(source + ":" + write.line() + ": the update of "
                        + write.table().name() + " by "
                        + procedure.name() + " declares 'add' of column " + column + ", which is " + type
                        + ": increments must add exactly in any order, so an added column must be int2, int4, int8 "
                        + "or numeric (floats round); list it in 'columns' instead");
            }
        }
    }

    /**
     * The unique keys of a table (primary key first, then by name): the index, its columns, and whether a column of it
     * takes its value from a non-cycling sequence of the schema, as a plain default {@code nextval} (with or without
     * a cast: serial, bigserial) or as an identity column. A sequence that cycles gives its values again once it
     * wraps, and one of another schema is not aligned by the nodes: neither proves anything.
     */
    private static final String UNIQUE_KEYS = """
            SELECT i.indexrelid::regclass::text, i.indisprimary,
                   ARRAY(SELECT coalesce(a.attname, '(expression)')
                           FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
                           LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                          ORDER BY k.position),
                   EXISTS (
                     SELECT 1
                       FROM unnest(i.indkey) AS k(attnum)
                       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                       JOIN pg_class s ON s.relkind = 'S'
                       JOIN pg_namespace sn ON sn.oid = s.relnamespace AND sn.nspname = ?
                       JOIN pg_sequence q ON q.seqrelid = s.oid AND NOT q.seqcycle
                      WHERE a.attidentity IN ('a', 'd') AND EXISTS (
                              SELECT 1 FROM pg_depend dep
                               WHERE dep.classid = 'pg_class'::regclass AND dep.objid = s.oid AND dep.deptype = 'i'
                                 AND dep.refclassid = 'pg_class'::regclass AND dep.refobjid = a.attrelid
                                 AND dep.refobjsubid = a.attnum)
                         OR EXISTS (
                              SELECT 1 FROM pg_attrdef d
                               WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
                                 AND pg_get_expr(d.adbin, d.adrelid) IN (
                                     format('nextval(%L::regclass)', s.oid::regclass::text),
                                     format('(nextval(%L::regclass))::%s', s.oid::regclass::text,
                                            format_type(a.atttypid, a.atttypmod)))))
              FROM pg_index i
              JOIN pg_class c ON c.oid = i.indrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relname = ? AND (i.indisunique OR i.indisexclusion)
             ORDER BY NOT i.indisprimary, 1
            """;

    /**
     * A {@code fresh: true} insert conflicts with nothing, so two of them may run at once at two replicas: that is sound
     * only if no two of them can produce the same unique key. Refused, naming the rule, the table and the fix, when
     * the catalogue does not prove it (see the class comment).
     */
    private void checkFreshInsert(
            Connection connection, String source, ProcedureRule procedure, WriteRule write, List<String> problems)
            throws SQLException {
        String table = write.table().name();
        if (!exists(connection, table)) {
            return; // reported by checkTable
        }
        List<String> unproven = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(UNIQUE_KEYS)) {
            statement.setString(1, schema);
            statement.setString(2, schema);
            statement.setString(3, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    if (!rows.getBoolean(4)) {
                        unproven.add((rows.getBoolean(2) ? "primary key " : "unique key " + rows.getString(1) + " ")
                                + List.of((String[]) rows.getArray(3).getArray()));
                    }
                }
            }
        }
        if (!unproven.isEmpty()) {
            problems.add(source + ":" + write.line() + ": the fresh insert of " + procedure.name() + " into " + table
                    + " cannot be proved fresh: its " + String.join(", ", unproven)
                    + " takes no value from a sequence or identity column of schema " + schema
                    + " (default nextval, serial, GENERATED ... AS IDENTITY; not cycling), so two calls at two "
                    + "replicas may insert the same key. Fix: if the key comes from a counter that " + procedure.name()
                    + " updates, write {insert: " + table + ", fresh: {counter: TABLE.COLUMN}} naming it; else give "
                    + "the key column a sequence or identity default, or declare the insert with a key");
        }
    }

    private boolean exists(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
            statement.setString(1, schema);
            statement.setString(2, table);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next();
            }
        }
    }

    private void checkProcedure(Connection connection, ProcedureRule procedure, List<String> problems)
            throws SQLException {
        List<String> declared = procedure.parameters().stream()
                .map(Parameter::type)
                .map(type -> type.catalogName())
                .toList();
        List<List<String>> found = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("""
                SELECT ARRAY(SELECT t.typname FROM unnest(p.proargtypes) WITH ORDINALITY AS a(oid, position)
                             JOIN pg_type t ON t.oid = a.oid ORDER BY a.position)
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = ? AND p.proname = ?""")) {
            statement.setString(1, schema);
            statement.setString(2, procedure.name());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    found.add(List.of((String[]) rows.getArray(1).getArray()));
                }
            }
        }
        if (found.isEmpty()) {
            problems.add("procedure " + procedure.name() + " does not exist in schema " + schema);
        } else if (found.stream().noneMatch(signature -> sameTypes(signature, declared))) {
            problems.add("procedure " + procedure.name() + " has signature(s) " + found + " but the rules declare "
                    + declared);
        }
    }

    /** varchar and text parameters are interchangeable for a call's arguments. */
    private static boolean sameTypes(List<String> actual, List<String> declared) {
        if (actual.size() != declared.size()) {
            return false;
        }
        for (int i = 0; i < actual.size(); i++) {
            if (!normalize(actual.get(i)).equals(normalize(declared.get(i)))) {
                return false;
            }
        }
        return true;
    }

    private static String normalize(String type) {
        return switch (type) {
            case "varchar", "bpchar" -> "text";
            case "_varchar", "_bpchar" -> "_text";
            default -> type;
        };
    }
}
