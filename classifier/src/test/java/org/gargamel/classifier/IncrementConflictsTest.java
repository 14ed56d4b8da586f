package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.classifier.index.ConflictIndex;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Increments ({@code add:}, docs/classifier.md, Increments): in PSI two increments of a cell do not conflict, an
 * increment conflicts with any other write or a declared read of the cell; in SI an increment is an ordinary write.
 * The index keeps SHARED keys like read locks.
 */
@Tag("unit")
class IncrementConflictsTest {
    static final String RULES = """
            tables:
              account: {key: [branch, id], columns: [branch, id, owner, balance, deposits, note]}
              totals:  {key: [branch], columns: [branch, total, audits]}
            procedures:
              deposit:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [branch, id], add: [balance, deposits]}
                  - {update: totals, key: [branch], add: [total]}
              deposit_many:
                parameters:
                  - {name: branch, type: integer}
                  - {name: ids, type: "integer[]"}
                writes:
                  - {update: account, key: [branch, "ids[]"], add: [balance, deposits]}
              interest_branch:
                parameters:
                  - {name: branch, type: integer}
                  - {name: rate, type: numeric}
                writes:
                  - {update: account, key: [branch, "*"], add: [balance]}
              interest_all:
                parameters:
                  - {name: rate, type: numeric}
                writes:
                  - {update: account, key: ["*", "*"], add: [balance]}
              set_balance:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer, nullable: true}
                writes:
                  - {update: account, key: [branch, "id?"], columns: [balance]}
              pay_and_note:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                writes:
                  - {update: account, key: [branch, id], columns: [note], add: [balance]}
              rename:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                writes:
                  - {update: account, key: [branch, id], columns: [owner]}
              audit:
                parameters:
                  - {name: branch, type: integer}
                writes:
                  - {update: totals, key: [branch], columns: [audits]}
                reads:
                  - {table: account, key: [branch, "*"], columns: [balance]}
              reset_totals:
                parameters: []
                writes:
                  - {update: totals, key: ["*"], columns: [total]}
            """;

    static final ClassifierRules RULES_LOADED =
            RulesLoader.load(new ByteArrayInputStream(RULES.getBytes(StandardCharsets.UTF_8)), "increments.yaml");

    /** A random call of {@link #RULES}: two branches, three accounts, so that rows collide often. */
    static ProcedureCall randomCall(SplittableRandom random) {
        int branch = 1 + random.nextInt(2);
        int id = 1 + random.nextInt(3);
        List<Integer> ids = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            ids.add(1 + random.nextInt(3));
        }
        return switch (random.nextInt(12)) {
            case 0, 1, 2 -> ProcedureCall.of("deposit", branch, id, 5);
            case 3 -> ProcedureCall.of("deposit_many", branch, ids);
            case 4 -> ProcedureCall.of("interest_branch", branch, 2);
            case 5 -> ProcedureCall.of("interest_all", 2);
            case 6 -> ProcedureCall.of("set_balance", branch, random.nextInt(3) == 0 ? null : id);
            case 7 -> ProcedureCall.of("pay_and_note", branch, id);
            case 8 -> ProcedureCall.of("rename", branch, id);
            case 9 -> ProcedureCall.of("audit", branch);
            case 10 -> ProcedureCall.of("reset_totals");
            default -> ProcedureCall.of("deposit", branch, id, 7);
        };
    }

    private static boolean conflict(String first, String second, Isolation isolation) {
        return RULES_LOADED
                .conflict(RULES_LOADED.parse(first), RULES_LOADED.parse(second), isolation)
                .isPresent();
    }

    @Test
    void incrementsOfOneCellDoNotConflictInPsiButDoInSi() {
        for (String[] pair : new String[][] {
            {"deposit(1, 1, 5)", "deposit(1, 1, 7)"},
            {"deposit(1, 1, 5)", "deposit_many(1, ARRAY[1, 2])"},
            {"deposit(1, 1, 5)", "interest_branch(1, 2)"},
            {"interest_branch(1, 2)", "interest_all(2)"},
            {"deposit(1, 1, 5)", "pay_and_note(1, 1)"}
        }) {
            assertFalse(conflict(pair[0], pair[1], Isolation.PSI), "PSI: " + Arrays.toString(pair));
            assertTrue(conflict(pair[0], pair[1], Isolation.SI), "SI: " + Arrays.toString(pair));
        }
    }

    @Test
    void anIncrementConflictsWithAnyOtherWriteOrReadOfItsCell() {
        for (Isolation isolation : Isolation.values()) {
            assertTrue(conflict("deposit(1, 1, 5)", "set_balance(1, 1)", isolation));
            assertTrue(conflict("deposit(1, 1, 5)", "set_balance(1, NULL)", isolation), "a wildcard plain write");
            assertTrue(conflict("interest_all(2)", "set_balance(2, 3)", isolation), "a wildcard increment");
            assertTrue(conflict("deposit(1, 1, 5)", "audit(1)", isolation), "a declared read");
            assertTrue(conflict("deposit(2, 1, 5)", "reset_totals()", isolation));
            assertTrue(conflict("pay_and_note(1, 1)", "pay_and_note(1, 1)", isolation), "its plain column");
            assertFalse(conflict("deposit(1, 1, 5)", "set_balance(1, 2)", isolation), "another row");
            assertFalse(conflict("deposit(1, 1, 5)", "deposit(2, 1, 5)", isolation), "another branch");
        }
        assertFalse(conflict("deposit(1, 1, 5)", "rename(1, 1)", Isolation.PSI), "another column");
        assertFalse(conflict("pay_and_note(1, 1)", "pay_and_note(1, 2)", Isolation.PSI));
    }

    /** A key is SHARED where its rule only adds to every column of its slot, in PSI; never in SI. */
    @Test
    void keysAreSharedWhereTheirRuleOnlyAddsToTheirSlot() {
        ProcedureCall payAndNote = RULES_LOADED.parse("pay_and_note(1, 1)");
        List<String> modes = new ArrayList<>();
        for (WriteKey key : RULES_LOADED.conflictKeys(payAndNote, Isolation.PSI)) {
            modes.add(RULES_LOADED.slotName(key.slot()) + (key.shared() ? " shared" : " exclusive"));
        }
        assertEquals(List.of("account[balance] shared", "account[note] exclusive"), modes);
        assertTrue(RULES_LOADED.conflictKeys(payAndNote, Isolation.SI).stream().noneMatch(WriteKey::shared));
        assertTrue(RULES_LOADED.conflictKeys(RULES_LOADED.parse("audit(1)"), Isolation.PSI).stream()
                .noneMatch(WriteKey::shared));
        assertTrue(RULES_LOADED.conflictKeys(RULES_LOADED.parse("deposit(1, 1, 5)"), Isolation.PSI).stream()
                .allMatch(WriteKey::shared));
    }

    /** Cells that every rule touching them only adds to can conflict with nothing: they order nothing. */
    @Test
    void slotsOnlyIncrementsReachGiveNoConflictKey() {
        ProcedureCall deposit = RULES_LOADED.parse("deposit(1, 1, 5)");
        List<String> written = new ArrayList<>();
        RULES_LOADED.writeKeys(deposit, Isolation.PSI).forEach(key -> written.add(RULES_LOADED.slotName(key.slot())));
        List<String> ordering = new ArrayList<>();
        RULES_LOADED
                .conflictKeys(deposit, Isolation.PSI)
                .forEach(key -> ordering.add(RULES_LOADED.slotName(key.slot())));
        assertEquals(List.of("account[balance]", "account[deposits]", "totals[total]"), written);
        assertEquals(List.of("account[balance]", "totals[total]"), ordering, "deposits: only increments touch it");
        assertEquals(2, RULES_LOADED.conflictKeys(deposit, Isolation.SI).size(), "SI: its two rows");
    }

    /**
     * Like a read lock: increments depend on the last plain writer only, a plain writer on the last plain writer and
     * every increment since, and the next increments on it; a wildcard increment depends on the plain writers below.
     */
    @Test
    void theIndexKeepsIncrementsLikeReadLocks() {
        ConflictIndex index = new ConflictIndex(RULES_LOADED::wildcardPossible);
        assertArrayEquals(new long[] {}, add(index, 1, "set_balance(1, 1)"));
        assertArrayEquals(new long[] {1}, add(index, 2, "deposit(1, 1, 5)"));
        assertArrayEquals(new long[] {1}, add(index, 3, "deposit_many(1, ARRAY[1, 1])"));
        assertArrayEquals(new long[] {}, add(index, 4, "set_balance(1, 2)"));
        assertArrayEquals(new long[] {1, 4}, add(index, 5, "interest_branch(1, 2)"), "the plain writers below");
        assertArrayEquals(new long[] {1, 2, 3, 5}, add(index, 6, "set_balance(1, 1)"));
        assertArrayEquals(new long[] {6}, add(index, 7, "deposit(1, 1, 5)"));
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6, 7}, add(index, 8, "set_balance(1, NULL)"));
        assertArrayEquals(new long[] {1, 4, 6, 8}, add(index, 9, "interest_all(2)"), "plain writers, not increments");
        assertArrayEquals(new long[] {9}, add(index, 10, "set_balance(2, 1)"));
        for (long t = 1; t <= 10; t++) {
            index.remove(t);
        }
        assertEquals(0, index.size());
        assertTrue(index.nodeCount() <= RULES_LOADED.slotCount(), "only roots are left: " + index.nodeCount());
    }

    private static long[] add(ConflictIndex index, long txn, String call) {
        long[] dependencies = index.add(txn, RULES_LOADED.conflictKeys(RULES_LOADED.parse(call), Isolation.PSI));
        Arrays.sort(dependencies);
        return dependencies;
    }
}
