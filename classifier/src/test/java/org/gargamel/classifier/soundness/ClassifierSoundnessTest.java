package org.gargamel.classifier.soundness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.UnsoundWrite;
import org.gargamel.classifier.WriteChecker;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.random.TpccRandom;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.workload.TerminalContext;
import org.gargamel.tpcc.workload.TransactionMix;
import org.gargamel.tpcc.workload.TransactionType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The TPC-C rules (both: the default commutative ones and the thesis's Table 6.1) are sound on a real database: random
 * TPC-C calls each run in a rolled-back transaction on a loaded 2-warehouse database, recording the cells (table,
 * primary key, column) they change; for every pair whose cells intersect, the classifier must answer CONFLICT in PSI,
 * unless every cell they share is one that both calls' rules declare an increment ({@code add:}). Pairs it calls conflicting
 * without a shared cell are false positives, reported per pair of types (they cost parallelism only). And the
 * soundness checker the nodes run ({@link WriteChecker}) finds every change each call made covered by its rule, in PSI
 * and SI.
 */
@Tag("integration")
class ClassifierSoundnessTest {
    private static final int CALLS = 700;
    private static final int WAREHOUSES = 2;

    @Test
    void classifierNeverMissesAConflictThatTheDatabaseShows() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1)) {
            LoadInfo load =
                    new TpccLoader(new LoadOptions(WAREHOUSES, 5, 2), LoadProgress.silent()).load(cluster.jdbcUrl(0));
            NURandConstants run = NURandConstants.forRun(load.loadConstants(), new SplittableRandom(9));
            Clock clock = Clock.fixed(Instant.parse("2026-01-01T10:00:00Z"), ZoneOffset.UTC);
            try (Connection connection = cluster.connect(0)) {
                // The shipped rules match the kit's real catalogue: procedures, tables, columns, primary keys, and
                // every added column is of a type that adds exactly.
                for (TpccRules.Variant variant : TpccRules.Variant.values()) {
                    new org.gargamel.classifier.validate.LiveValidator().validate(rules(variant), connection);
                }
            }
            List<ProcedureCall> calls = new ArrayList<>();
            List<TransactionType> types = new ArrayList<>();
            List<Set<CellCapture.Cell>> cells = new ArrayList<>();
            try (Connection connection = cluster.connect(0);
                    CellCapture capture = new CellCapture(connection)) {
                for (int terminal = 0; terminal < 10; terminal++) {
                    TerminalContext context = new TerminalContext(
                            new TpccRandom(100 + terminal, run),
                            terminal % WAREHOUSES + 1,
                            terminal / WAREHOUSES + 1,
                            WAREHOUSES,
                            clock);
                    TransactionMix mix = new TransactionMix(context.random());
                    for (int i = 0; i < CALLS / 10; i++) {
                        TransactionType type = mix.next();
                        ProcedureCall call = TransactionMix.generate(type, context);
                        calls.add(call);
                        types.add(type);
                        cells.add(capture.cellsChangedBy(call));
                    }
                }
            }

            for (TpccRules.Variant variant : TpccRules.Variant.values()) {
                check(rules(variant), calls, types, cells);
            }
        }
    }

    private static ClassifierRules rules(TpccRules.Variant variant) {
        return ClassifierRules.loadResource(TpccRules.class, variant.resource());
    }

    private static void check(
            ClassifierRules rules,
            List<ProcedureCall> calls,
            List<TransactionType> types,
            List<Set<CellCapture.Cell>> cells) {
        // The soundness checker the nodes run (rulesCheck) finds every captured change covered by its call's rule.
        long checked = 0;
        for (Isolation isolation : Isolation.values()) {
            WriteChecker checker = new WriteChecker(rules, isolation);
            for (int i = 0; i < calls.size(); i++) {
                List<WriteSet.RowChange> changes = changes(cells.get(i));
                List<UnsoundWrite> unsound = checker.check(calls.get(i), changes);
                assertEquals(List.of(), unsound, isolation + " " + calls.get(i) + " wrote " + changes);
                checked += changes.size();
            }
        }
        assertTrue(checked > 1000, "the checker saw " + checked + " changes");

        // {pairs, sharing a cell, sharing a cell not both add to, classifier conflicts, false positives}
        Map<String, long[]> byPair = new TreeMap<>();
        long intersecting = 0;
        for (int a = 0; a < calls.size(); a++) {
            for (int b = a + 1; b < calls.size(); b++) {
                boolean shared = CellCapture.intersect(cells.get(a), cells.get(b));
                boolean mustConflict = shared
                        && !sharedCellsAreIncrements(rules, calls.get(a), cells.get(a), calls.get(b), cells.get(b));
                boolean predicted = rules.conflict(calls.get(a), calls.get(b), Isolation.PSI)
                        .isPresent();
                if (mustConflict && !predicted) {
                    throw new AssertionError(rules.source() + ": the classifier missed a conflict: " + calls.get(a)
                            + " and " + calls.get(b) + " both change " + sharedCells(cells.get(a), cells.get(b)));
                }
                String pair = pairName(types.get(a), types.get(b));
                long[] counts = byPair.computeIfAbsent(pair, key -> new long[5]);
                counts[0]++;
                counts[1] += shared ? 1 : 0;
                counts[2] += mustConflict ? 1 : 0;
                counts[3] += predicted ? 1 : 0;
                counts[4] += predicted && !mustConflict ? 1 : 0;
                intersecting += mustConflict ? 1 : 0;
            }
        }
        System.out.println(rules.source() + "\npair type                      pairs  sharing a cell  not both adding  "
                + "classifier CONFLICT  false positives");
        byPair.forEach((pair, counts) -> System.out.printf(
                "%-28s %7d %15d %16d %20d %16d (%.1f%% of pairs)%n",
                pair, counts[0], counts[1], counts[2], counts[3], counts[4], 100.0 * counts[4] / counts[0]));
        assertTrue(intersecting > 100, "the workload must produce real conflicts to test against, got " + intersecting);
        assertTrue(byPair.get("NEW_ORDER x NEW_ORDER")[2] > 0, "no New-Order pair shared a cell");
        assertTrue(byPair.get("PAYMENT x PAYMENT")[1] > 0, "no Payment pair shared a cell");
        assertTrue(byPair.get("DELIVERY x DELIVERY")[2] > 0, "no Delivery pair shared a cell");
        assertEquals(0, byPair.get("PAYMENT x ORDER_STATUS")[3], "read-only calls conflict with nothing");
        if (!rules.incrementColumns().isEmpty()) {
            long[] payments = byPair.get("PAYMENT x PAYMENT");
            assertTrue(payments[1] > payments[2], "no Payment pair shared only increments: " + payments[1]);
        }
    }

    /** Whether every cell both change is one that both calls' rules declare {@code add:} (PSI: no conflict needed). */
    private static boolean sharedCellsAreIncrements(
            ClassifierRules rules,
            ProcedureCall first,
            Set<CellCapture.Cell> firstCells,
            ProcedureCall second,
            Set<CellCapture.Cell> secondCells) {
        Map<String, Set<String>> firstAdds = rules.increments(first.procedure());
        Map<String, Set<String>> secondAdds = rules.increments(second.procedure());
        for (CellCapture.Cell a : firstCells) {
            for (CellCapture.Cell b : secondCells) {
                if (a.overlaps(b)
                        && !(a.column().equals(b.column())
                                && firstAdds.getOrDefault(a.table(), Set.of()).contains(a.column())
                                && secondAdds.getOrDefault(b.table(), Set.of()).contains(b.column()))) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The cells as the node's capture would write them (the key's members, and an update's changed columns); updates of
     * one row come as one change, in no particular order (the check does not depend on it for TPC-C: no procedure
     * changes a row it inserted).
     */
    private static List<WriteSet.RowChange> changes(Set<CellCapture.Cell> cells) {
        Map<String, StringBuilder> updates = new TreeMap<>();
        List<WriteSet.RowChange> changes = new ArrayList<>();
        for (CellCapture.Cell cell : cells) {
            if (cell.operation().equals("UPDATE")) {
                updates.computeIfAbsent(cell.table() + "\u0000" + cell.key(), row -> new StringBuilder())
                        .append(", \"")
                        .append(cell.column())
                        .append("\": null");
            } else {
                changes.add(
                        new WriteSet.RowChange(cell.table(), WriteSet.Operation.valueOf(cell.operation()), cell.key()));
            }
        }
        updates.forEach((row, columns) -> {
            String table = row.substring(0, row.indexOf('\u0000'));
            String key = row.substring(row.indexOf('\u0000') + 1);
            changes.add(new WriteSet.RowChange(
                    table, WriteSet.Operation.UPDATE, key.substring(0, key.length() - 1) + columns + "}"));
        });
        return changes;
    }

    private static String pairName(TransactionType a, TransactionType b) {
        return a.compareTo(b) <= 0 ? a + " x " + b : b + " x " + a;
    }

    private static List<CellCapture.Cell> sharedCells(Set<CellCapture.Cell> first, Set<CellCapture.Cell> second) {
        List<CellCapture.Cell> shared = new ArrayList<>();
        for (CellCapture.Cell cell : first) {
            if (second.stream().anyMatch(cell::overlaps)) {
                shared.add(cell);
            }
        }
        return shared;
    }
}
