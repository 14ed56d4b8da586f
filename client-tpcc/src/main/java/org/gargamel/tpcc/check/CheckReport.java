package org.gargamel.tpcc.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.TableConvergence;

/**
 * What {@code gargamel tpcc check} found: the consistency of every database and their convergence.
 *
 * @param passed      every database passed every condition and all databases hold the same data
 * @param consistency one report per database, in database order
 * @param convergence the comparison of the databases' tables (trivially identical for one database)
 */
public record CheckReport(boolean passed, List<ConsistencyReport> consistency, ConvergenceReport convergence) {

    public CheckReport {
        consistency = List.copyOf(consistency);
        Objects.requireNonNull(convergence, "convergence");
        boolean expected = consistency.stream().allMatch(ConsistencyReport::passed) && convergence.identical();
        if (passed != expected) {
            throw new IllegalArgumentException("passed=" + passed + " contradicts the reports, which say " + expected);
        }
    }

    public static CheckReport of(List<ConsistencyReport> consistency, ConvergenceReport convergence) {
        return new CheckReport(
                consistency.stream().allMatch(ConsistencyReport::passed) && convergence.identical(),
                consistency,
                convergence);
    }

    public boolean consistencyPassed() {
        return consistency.stream().allMatch(ConsistencyReport::passed);
    }

    /**
     * The report for result.json, as plain maps and lists: {@code passed}, {@code consistency}
     * ({@code passed}, {@code databases} with their per-condition results) and {@code convergence}
     * ({@code identical}, {@code databases}, {@code tables} with per-database row counts and checksums).
     */
    public Map<String, Object> toResultMap() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("passed", passed);
        Map<String, Object> consistencyMap = new LinkedHashMap<>();
        consistencyMap.put("passed", consistencyPassed());
        List<Map<String, Object>> databases = new ArrayList<>();
        for (ConsistencyReport report : consistency) {
            Map<String, Object> database = new LinkedHashMap<>();
            database.put("database", report.database());
            database.put("passed", report.passed());
            List<Map<String, Object>> conditions = new ArrayList<>();
            for (ConditionResult condition : report.conditions()) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("number", condition.number());
                c.put("clause", condition.clause());
                c.put("name", condition.name());
                c.put("passed", condition.passed());
                c.put("applicable", condition.applicable());
                c.put("checked", condition.checked());
                c.put("unit", condition.unit());
                c.put("violations", condition.violations());
                c.put("examples", condition.examples());
                c.put("note", condition.note());
                conditions.add(c);
            }
            database.put("conditions", conditions);
            databases.add(database);
        }
        consistencyMap.put("databases", databases);
        result.put("consistency", consistencyMap);

        Map<String, Object> convergenceMap = new LinkedHashMap<>();
        convergenceMap.put("identical", convergence.identical());
        convergenceMap.put("databases", convergence.databases());
        List<Map<String, Object>> tables = new ArrayList<>();
        for (TableConvergence table : convergence.tables()) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("table", table.table());
            t.put("identical", table.identical());
            t.put("differing", table.differing());
            List<Map<String, Object>> checksums = new ArrayList<>();
            for (TableConvergence.DatabaseChecksum checksum : table.checksums()) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("database", checksum.database());
                c.put("rows", checksum.rows());
                c.put("checksum", checksum.checksum());
                checksums.add(c);
            }
            t.put("checksums", checksums);
            tables.add(t);
        }
        convergenceMap.put("tables", tables);
        result.put("convergence", convergenceMap);
        return result;
    }

    /**
     * A human summary: one line per condition per database ("ok", or the violations with the first
     * example), then one line per table for convergence.
     */
    public String render() {
        StringBuilder out = new StringBuilder();
        out.append("TPC-C check of ")
                .append(consistency.size())
                .append(consistency.size() == 1 ? " database: " : " databases: ")
                .append(passed ? "PASSED" : "FAILED")
                .append('\n');
        for (ConsistencyReport report : consistency) {
            out.append("consistency (clause 3.3.2) of ")
                    .append(report.database())
                    .append(": ")
                    .append(report.passed() ? "ok" : "FAILED conditions " + report.failedConditions())
                    .append('\n');
            String prefix = shortName(report.database());
            for (ConditionResult condition : report.conditions()) {
                out.append(String.format(
                        "  %s %2d  %s: %s%n", prefix, condition.number(), condition.name(), describe(condition)));
            }
        }
        List<String> databases = convergence.databases();
        out.append("convergence of ")
                .append(databases.size())
                .append(databases.size() == 1 ? " database: " : " databases: ")
                .append(
                        databases.size() == 1
                                ? "nothing to compare"
                                : convergence.identical()
                                        ? "identical"
                                        : "DIFFERENT in " + convergence.differingTables())
                .append('\n');
        for (TableConvergence table : convergence.tables()) {
            out.append(String.format("  %-10s %s%n", table.table(), describe(table)));
        }
        return out.toString();
    }

    private static String describe(ConditionResult condition) {
        String checked = condition.checked() + " " + condition.unit();
        if (!condition.applicable()) {
            return "n/a (" + condition.note() + ")";
        }
        if (condition.passed()) {
            return "ok (" + (condition.note().isEmpty() ? checked : condition.note()) + ")";
        }
        return "VIOLATED in " + condition.violations() + " of " + checked + ", e.g. "
                + condition.examples().get(0);
    }

    private static String describe(TableConvergence table) {
        List<TableConvergence.DatabaseChecksum> checksums = table.checksums();
        if (table.identical()) {
            TableConvergence.DatabaseChecksum first = checksums.get(0);
            return "identical  " + first.rows() + " rows  " + first.checksum();
        }
        StringBuilder out = new StringBuilder("DIFFERENT in ");
        out.append(String.join(
                ", ", table.differing().stream().map(CheckReport::shortName).toList()));
        out.append(":");
        for (TableConvergence.DatabaseChecksum checksum : checksums) {
            out.append("  ")
                    .append(shortName(checksum.database()))
                    .append(' ')
                    .append(checksum.rows())
                    .append(" rows ")
                    .append(
                            checksum.checksum(),
                            0,
                            Math.min(8, checksum.checksum().length()));
        }
        return out.toString();
    }

    /** "db0" out of "db0 jdbc:postgresql://..." (names from {@link DatabaseNames}); other names unchanged. */
    private static String shortName(String database) {
        int space = database.indexOf(' ');
        return space > 0 ? database.substring(0, space) : database;
    }
}
