package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * For random rules (updates, inserts and deletes keyed by parameters, nullable parameters, array elements, constants
 * and wildcards, over integer, text and numeric keys; fresh inserts) and random write-sets, the checker finds exactly
 * the changes that a straightforward cell-by-cell oracle, written from docs/classifier.md without the classifier's
 * parts, hashes or column bit sets, finds not covered: in PSI and SI.
 */
@Tag("unit")
class WriteCheckerPropertyTest {
    private static final int RULE_SETS = 300;
    private static final int CALLS_PER_RULE_SET = 40;

    /** A table: its name, primary-key columns with their types, and its other columns. */
    private record Table(String name, List<String> key, List<String> keyTypes, List<String> others) {
        List<String> columns() {
            List<String> all = new ArrayList<>(key);
            all.addAll(others);
            return all;
        }
    }

    private static final List<Table> TABLES = List.of(
            new Table("t1", List.of("a"), List.of("int"), List.of("x", "y", "z")),
            new Table("t2", List.of("a", "b"), List.of("int", "int"), List.of("x", "y")),
            new Table("t3", List.of("n"), List.of("text"), List.of("x", "y")),
            new Table("t5", List.of("a", "d"), List.of("int", "numeric"), List.of("x")),
            new Table("t4", List.of(), List.of(), List.of("x", "y")));

    private static final List<String> TEXTS = List.of("a", "b\"q", "\u00fc\n");
    private static final List<BigDecimal> NUMERICS =
            List.of(new BigDecimal("1.5"), new BigDecimal("2"), new BigDecimal("2.50"));

    /** One change as the oracle sees it: the table, the operation, the key's values, the changed columns. */
    private record Truth(Table table, Operation operation, List<Object> key, List<String> columns) {}

    @Test
    void theCheckerAgreesWithACellByCellOracle() {
        SplittableRandom random = new SplittableRandom(14);
        long changes = 0;
        long misses = 0;
        long covered = 0;
        for (int set = 0; set < RULE_SETS; set++) {
            ClassifierRules rules = randomRules(random, set);
            for (Isolation isolation : Isolation.values()) {
                WriteChecker checker = new WriteChecker(rules, isolation);
                for (int c = 0; c < CALLS_PER_RULE_SET; c++) {
                    ProcedureRule procedure = rules.procedures().get("p" + random.nextInt(3));
                    ProcedureCall call = randomCall(random, procedure);
                    List<Truth> truths = randomChanges(random);
                    List<RowChange> written =
                            truths.stream().map(WriteCheckerPropertyTest::json).toList();
                    List<String> expected = oracle(rules, procedure, call, truths, isolation);
                    List<String> found = checker.check(call, written).stream()
                            .map(miss -> miss.table() + " " + miss.operation().substring(0, 6) + " " + miss.column())
                            .toList();
                    assertEquals(
                            expected,
                            found,
                            () -> isolation + " " + call + " wrote " + written + " under rules " + rules.procedures());
                    changes += truths.size();
                    misses += expected.size();
                    covered += truths.size() - expected.size();
                }
            }
        }
        assertTrue(misses > changes / 10 && covered > changes / 10, misses + " misses, " + covered + " covered");
    }

    private static ClassifierRules randomRules(SplittableRandom random, int set) {
        StringBuilder yaml = new StringBuilder("tables:\n");
        for (Table table : TABLES) {
            yaml.append("  ")
                    .append(table.name())
                    .append(": {key: ")
                    .append(table.key())
                    .append(", columns: ")
                    .append(table.columns())
                    .append("}\n");
        }
        yaml.append("procedures:\n");
        for (int p = 0; p < 3; p++) {
            yaml.append("  p").append(p).append(":\n    parameters:\n");
            yaml.append("      - {name: i, type: integer}\n");
            yaml.append("      - {name: j, type: integer}\n");
            yaml.append("      - {name: q, type: integer, nullable: true}\n");
            yaml.append("      - {name: s, type: text}\n");
            yaml.append("      - {name: num, type: numeric}\n");
            yaml.append("      - {name: arr, type: \"integer[]\"}\n");
            yaml.append("      - {name: arr2, type: \"integer[]\"}\n");
            yaml.append("      - {name: txt, type: \"text[]\"}\n");
            yaml.append("    writes:\n");
            int writes = 1 + random.nextInt(4);
            for (int w = 0; w < writes; w++) {
                Table table = TABLES.get(random.nextInt(TABLES.size()));
                if (table.key().isEmpty() || random.nextInt(8) == 0) {
                    yaml.append("      - {insert: ").append(table.name()).append(", fresh: true}\n");
                    continue;
                }
                String operation =
                        List.of("update", "update", "insert", "delete").get(random.nextInt(4));
                List<String> parts = new ArrayList<>();
                for (String type : table.keyTypes()) {
                    parts.add(
                            switch (type) {
                                case "int" ->
                                    List.of("i", "j", "\"q?\"", "\"arr[]\"", "\"arr2[]\"", "\"*\"", "2")
                                            .get(random.nextInt(7));
                                case "text" ->
                                    List.of("s", "\"txt[]\"", "\"*\"").get(random.nextInt(3));
                                default -> List.of("num", "\"*\"").get(random.nextInt(2));
                            });
                }
                if (parts.contains("\"txt[]\"") && (parts.contains("\"arr[]\"") || parts.contains("\"arr2[]\""))) {
                    parts.replaceAll(part -> part.equals("\"txt[]\"") ? "s" : part);
                }
                yaml.append("      - {").append(operation).append(": ").append(table.name());
                yaml.append(", key: ").append(parts);
                if (operation.equals("update")) {
                    List<String> columns = new ArrayList<>();
                    for (String column : table.columns()) {
                        if (random.nextInt(2) == 0) {
                            columns.add(column);
                        }
                    }
                    if (columns.isEmpty()) {
                        columns.add(table.others().get(0));
                    }
                    yaml.append(", columns: ").append(columns);
                }
                yaml.append("}\n");
            }
        }
        return RulesLoader.load(
                new ByteArrayInputStream(yaml.toString().getBytes(StandardCharsets.UTF_8)), "random-" + set + ".yaml");
    }

    private static ProcedureCall randomCall(SplittableRandom random, ProcedureRule procedure) {
        int length = random.nextInt(4);
        List<Integer> arr = new ArrayList<>();
        List<Integer> arr2 = new ArrayList<>();
        for (int e = 0; e < length; e++) {
            arr.add(1 + random.nextInt(3));
            arr2.add(1 + random.nextInt(3));
        }
        List<String> txt = new ArrayList<>();
        for (int e = 0; e < random.nextInt(3); e++) {
            txt.add(TEXTS.get(random.nextInt(TEXTS.size())));
        }
        return new ProcedureCall(
                procedure.name(),
                Arrays.asList(
                        1 + random.nextInt(3),
                        1 + random.nextInt(3),
                        random.nextInt(3) == 0 ? null : 1 + random.nextInt(3),
                        TEXTS.get(random.nextInt(TEXTS.size())),
                        NUMERICS.get(random.nextInt(NUMERICS.size())),
                        arr,
                        arr2,
                        txt));
    }

    private static List<Truth> randomChanges(SplittableRandom random) {
        List<Truth> truths = new ArrayList<>();
        int count = random.nextInt(6);
        for (int c = 0; c < count; c++) {
            Table table = TABLES.get(random.nextInt(TABLES.size()));
            List<Object> key = new ArrayList<>();
            for (String type : table.keyTypes()) {
                key.add(
                        switch (type) {
                            case "int" -> 1 + random.nextInt(3);
                            case "text" -> TEXTS.get(random.nextInt(TEXTS.size()));
                            default ->
                                List.of(new BigDecimal("1.50"), new BigDecimal("2.00"), new BigDecimal("2.5"))
                                        .get(random.nextInt(3));
                        });
            }
            Operation operation = table.key().isEmpty()
                    ? Operation.INSERT
                    : List.of(Operation.INSERT, Operation.UPDATE, Operation.DELETE)
                            .get(random.nextInt(3));
            if (c > 0 && random.nextInt(4) == 0) {
                // A later change of a row an earlier change inserted.
                Truth earlier = truths.get(random.nextInt(truths.size()));
                if (!earlier.table().key().isEmpty()) {
                    table = earlier.table();
                    key = earlier.key();
                    operation = random.nextBoolean() ? Operation.UPDATE : Operation.DELETE;
                }
            }
            List<String> columns = new ArrayList<>();
            if (operation == Operation.UPDATE) {
                for (String column : table.others()) {
                    if (random.nextInt(2) == 0) {
                        columns.add(column);
                    }
                }
                if (columns.isEmpty()) {
                    columns.add(table.others().get(random.nextInt(table.others().size())));
                }
            }
            if (random.nextInt(40) == 0) {
                table = new Table("undeclared", List.of("a"), List.of("int"), List.of("x"));
                operation = Operation.INSERT;
                key = List.of(1);
            }
            truths.add(new Truth(table, operation, key, columns));
        }
        return truths;
    }

    /** The change as the node's capture writes it. */
    private static RowChange json(Truth truth) {
        Map<String, Object> members = new LinkedHashMap<>();
        for (int i = 0; i < truth.table().key().size(); i++) {
            members.put(truth.table().key().get(i), truth.key().get(i));
        }
        List<String> values = truth.operation() == Operation.INSERT
                ? truth.table().others()
                : truth.operation() == Operation.UPDATE ? truth.columns() : List.of();
        for (String column : values) {
            members.put(column, "v");
        }
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> member : members.entrySet()) {
            json.append(json.length() > 1 ? ", " : "")
                    .append('"')
                    .append(member.getKey())
                    .append("\": ");
            Object value = member.getValue();
            if (value instanceof String text) {
                json.append('"')
                        .append(text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                        .append('"');
            } else {
                json.append(value);
            }
        }
        return new RowChange(
                truth.table().name(), truth.operation(), json.append('}').toString());
    }

    /** One keyed write of the call: table, operation, the known leading key values, the columns it touches. */
    private record Access(String table, WriteRule.Operation operation, List<Object> known, List<String> columns) {}

    /** "table operation column" of each change not covered, as the checker names them. */
    private static List<String> oracle(
            ClassifierRules rules,
            ProcedureRule procedure,
            ProcedureCall call,
            List<Truth> truths,
            Isolation isolation) {
        List<Access> accesses = new ArrayList<>();
        for (WriteRule write : procedure.writes()) {
            if (write.fresh()) {
                continue;
            }
            int elements = 1;
            for (KeyPart part : write.key()) {
                if (part.kind() == KeyPart.Kind.ELEMENT) {
                    elements = ((List<?>) call.arguments().get(part.parameterIndex())).size();
                }
            }
            for (int e = 0; e < elements; e++) {
                List<Object> known = new ArrayList<>();
                for (KeyPart part : write.key()) {
                    Object value = switch (part.kind()) {
                        case WILDCARD -> null;
                        case CONSTANT -> part.constant();
                        case PARAMETER, PARAMETER_OR_WILDCARD ->
                            call.arguments().get(part.parameterIndex());
                        case ELEMENT -> ((List<?>) call.arguments().get(part.parameterIndex())).get(e);
                    };
                    if (value == null) {
                        break;
                    }
                    known.add(value);
                }
                accesses.add(new Access(
                        write.table().name(),
                        write.operation(),
                        known,
                        write.operation() == WriteRule.Operation.UPDATE
                                ? List.copyOf(write.columns())
                                : write.table().columns()));
            }
        }
        List<String> misses = new ArrayList<>();
        List<Boolean> coveredInserts = new ArrayList<>();
        for (int c = 0; c < truths.size(); c++) {
            Truth truth = truths.get(c);
            String missedColumn = null;
            boolean declared = rules.tables().containsKey(truth.table().name());
            if (!declared) {
                missedColumn = "*";
            } else if (truth.operation() == Operation.UPDATE) {
                for (String column : truth.columns()) {
                    boolean cell = false;
                    for (Access access : accesses) {
                        if (designates(access, truth)
                                && (isolation == Isolation.SI
                                        || access.operation() != WriteRule.Operation.UPDATE
                                        || access.columns().contains(column))) {
                            cell = true;
                        }
                    }
                    if (!cell) {
                        missedColumn = column;
                        break;
                    }
                }
            } else {
                boolean row = false;
                for (Access access : accesses) {
                    boolean fits = truth.operation() == Operation.INSERT
                            ? access.operation() == WriteRule.Operation.INSERT
                            : access.operation() != WriteRule.Operation.UPDATE;
                    row |= fits && designates(access, truth);
                }
                if (truth.operation() == Operation.INSERT) {
                    for (WriteRule write : procedure.writes()) {
                        row |= write.fresh()
                                && write.table().name().equals(truth.table().name());
                    }
                }
                missedColumn = row ? null : "*";
            }
            if (missedColumn != null && declared && !truth.table().key().isEmpty()) {
                for (int j = 0; j < c; j++) {
                    Truth earlier = truths.get(j);
                    if (earlier.operation() == Operation.INSERT
                            && coveredInserts.get(j)
                            && earlier.table().name().equals(truth.table().name())
                            && sameValues(earlier.key(), truth.key())) {
                        missedColumn = null;
                    }
                }
            }
            coveredInserts.add(missedColumn == null);
            if (missedColumn != null) {
                misses.add(truth.table().name() + " " + truth.operation().name().toLowerCase(java.util.Locale.ROOT)
                        + " " + missedColumn);
            }
        }
        return misses;
    }

    private static boolean designates(Access access, Truth truth) {
        if (!access.table().equals(truth.table().name())) {
            return false;
        }
        for (int i = 0; i < access.known().size(); i++) {
            if (!sameValue(access.known().get(i), truth.key().get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameValues(List<Object> a, List<Object> b) {
        for (int i = 0; i < a.size(); i++) {
            if (!sameValue(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
        }
        return Objects.equals(a, b);
    }
}
