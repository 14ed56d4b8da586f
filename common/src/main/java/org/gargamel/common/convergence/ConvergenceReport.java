package org.gargamel.common.convergence;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Whether several databases hold the same data, table by table.
 *
 * @param identical every table is identical in every database
 * @param databases the databases compared, in order
 * @param tables    one comparison per table, in the order they were compared
 */
public record ConvergenceReport(boolean identical, List<String> databases, List<TableConvergence> tables) {
    /** The checksum shown for a table a database does not have. */
    static final String MISSING = "missing";

    public ConvergenceReport {
        databases = List.copyOf(databases);
        tables = List.copyOf(tables);
        boolean allIdentical = tables.stream().allMatch(TableConvergence::identical);
        if (identical != allIdentical) {
            throw new IllegalArgumentException("identical=" + identical + " but the tables say " + allIdentical);
        }
    }

    /**
     * Compares the checksums of several databases, table by table; a table that some database lacks differs there
     * (its row count shows as -1).
     */
    public static ConvergenceReport of(List<DatabaseChecksums> databases) {
        if (databases.isEmpty()) {
            throw new IllegalArgumentException("no database to compare");
        }
        List<String> names = databases.stream().map(DatabaseChecksums::database).toList();
        Set<String> tableNames = new LinkedHashSet<>();
        for (DatabaseChecksums database : databases) {
            database.tables().forEach(table -> tableNames.add(table.table()));
        }
        List<TableConvergence> tables = new ArrayList<>();
        for (String table : tableNames) {
            tables.add(compareTable(table, databases));
        }
        return new ConvergenceReport(tables.stream().allMatch(TableConvergence::identical), names, tables);
    }

    /** The comparison of table {@code name}. */
    public TableConvergence table(String name) {
        return tables.stream()
                .filter(t -> t.table().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no table '" + name + "' in the convergence report"));
    }

    /** The names of the tables that differ somewhere, in table order. */
    public List<String> differingTables() {
        return tables.stream()
                .filter(t -> !t.identical())
                .map(TableConvergence::table)
                .toList();
    }

    private static TableConvergence compareTable(String table, List<DatabaseChecksums> databases) {
        List<TableConvergence.DatabaseChecksum> checksums = new ArrayList<>();
        // Databases grouped by contents, groups in order of their first database.
        Map<List<Object>, List<String>> groups = new LinkedHashMap<>();
        for (DatabaseChecksums database : databases) {
            TableChecksum checksum = database.tables().stream()
                    .filter(t -> t.table().equals(table))
                    .findFirst()
                    .orElse(new TableChecksum(table, -1, MISSING));
            checksums.add(
                    new TableConvergence.DatabaseChecksum(database.database(), checksum.rows(), checksum.checksum()));
            groups.computeIfAbsent(List.of(checksum.rows(), checksum.checksum()), k -> new ArrayList<>())
                    .add(database.database());
        }
        List<String> majority = null;
        for (List<String> group : groups.values()) {
            if (majority == null || group.size() > majority.size()) {
                majority = group;
            }
        }
        Objects.requireNonNull(majority, "at least one database");
        List<String> differing = new ArrayList<>();
        for (TableConvergence.DatabaseChecksum checksum : checksums) {
            if (!majority.contains(checksum.database())) {
                differing.add(checksum.database());
            }
        }
        return new TableConvergence(table, differing.isEmpty(), checksums, differing);
    }
}
