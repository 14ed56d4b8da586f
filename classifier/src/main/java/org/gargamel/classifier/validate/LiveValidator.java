package org.gargamel.classifier.validate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.TableRule;

/**
 * Checks rules against a live database's catalogue (schema {@code public} unless told otherwise): every
 * procedure exists with the declared argument types in order, every table exists with the declared
 * columns, and each table's declared key is its primary key — so a key expression covering the declared
 * key covers the real one. All problems are collected and reported together, each naming the rules
 * file and the object.
 */
public final class LiveValidator {
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
        for (TableRule table : rules.tables().values()) {
            checkTable(connection, table, problems);
        }
        for (ProcedureRule procedure : rules.procedures().values()) {
            checkProcedure(connection, procedure, problems);
        }
        if (!problems.isEmpty()) {
            throw new RulesException(
                    "the rules in " + rules.source() + " do not match the database: " + String.join("; ", problems));
        }
    }

    private void checkTable(Connection connection, TableRule table, List<String> problems) throws SQLException {
        Set<String> columns = new TreeSet<>();
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?")) {
            statement.setString(1, schema);
            statement.setString(2, table.name());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    columns.add(rows.getString(1));
                }
            }
        }
        if (columns.isEmpty()) {
            problems.add("table " + schema + "." + table.name() + " does not exist");
            return;
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
