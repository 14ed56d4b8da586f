package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.gargamel.classifier.index.ConflictIndex;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The index against a brute-force oracle in the spirit of the thesis's Algorithm 1 (a call depends on every
 * earlier, still in-flight transaction it conflicts with): on random workloads with random removals, the
 * index's edges only join conflicting transactions, and both give the same transitive ordering. With declared reads
 * the oracle works cell by cell from the rules themselves (not from the classifier's slots): two calls conflict iff
 * they touch a common cell that one of them writes, or that both read and some procedure writes (in PSI, two increments
 * of a cell do not conflict over it). On random keys, the oracle is the keys' own conflict test, SHARED and EXCLUSIVE
 * keys and wildcards mixed.
 */
@Tag("unit")
class ConflictIndexPropertyTest {
    /** Both of the kit's rules: the commutative ones give SHARED keys in PSI, the thesis's none. */
    @Test
    void sameOrderingAsTheBruteForceGraphWalk() {
        for (TpccRules.Variant variant : TpccRules.Variant.values()) {
            ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, variant.resource());
            sameOrderingAsTheBruteForceGraphWalk(rules);
        }
    }

    private static void sameOrderingAsTheBruteForceGraphWalk(ClassifierRules rules) {
        for (Isolation isolation : Isolation.values()) {
            for (long seed = 1; seed <= 40; seed++) {
                int warehouses = 1 + (int) (seed % 3);
                check(
                        new SplittableRandom(seed),
                        rules,
                        isolation,
                        300,
                        random -> TpccCalls.random(random, warehouses),
                        (first, second) ->
                                conflict(rules.conflictKeys(first, isolation), rules.conflictKeys(second, isolation)));
            }
        }
    }

    @Test
    void declaredReadsAreOrderedAgainstEveryWriteOfTheirCells() {
        ClassifierRules withReads = ReadKeysTest.RULES_LOADED;
        for (Isolation isolation : Isolation.values()) {
            CellOracle oracle = new CellOracle(withReads, isolation);
            int conflicting = 0;
            for (long seed = 1; seed <= 40; seed++) {
                conflicting += check(
                        new SplittableRandom(1000 + seed),
                        withReads,
                        isolation,
                        200,
                        ConflictIndexPropertyTest::randomBankCall,
                        oracle::conflict);
            }
            assertTrue(conflicting > 1000, isolation + ": too few conflicting pairs to mean much: " + conflicting);
        }
    }

    /**
     * Increments (SHARED keys) beside plain writes and reads of the same cells, exact, by array element and by wildcard
     * at both depths, against the cell-by-cell oracle: in PSI increments of a cell pass each other, in SI they do not.
     */
    @Test
    void incrementsAreOrderedOnlyAgainstOtherAccessesOfTheirCells() {
        ClassifierRules increments = IncrementConflictsTest.RULES_LOADED;
        for (Isolation isolation : Isolation.values()) {
            CellOracle oracle = new CellOracle(increments, isolation);
            int conflicting = 0;
            for (long seed = 1; seed <= 40; seed++) {
                conflicting += check(
                        new SplittableRandom(2000 + seed),
                        increments,
                        isolation,
                        200,
                        IncrementConflictsTest::randomCall,
                        oracle::conflict);
            }
            assertTrue(conflicting > 1000, isolation + ": too few conflicting pairs to mean much: " + conflicting);
        }
    }

    /**
     * Random keys over few slots and small parts, so that keys, prefixes and wildcards collide often, SHARED and
     * EXCLUSIVE mixed, against the brute-force walk with the keys' own conflict test.
     */
    @Test
    void sharedAndExclusiveKeysAreOrderedAsTheBruteForceWalkOrdersThem() {
        int conflicting = 0;
        for (long seed = 1; seed <= 40; seed++) {
            conflicting += check(
                    new SplittableRandom(3000 + seed),
                    new ConflictIndex(), // a wildcard may come at any depth
                    300,
                    ConflictIndexPropertyTest::randomKeys,
                    keys -> keys,
                    ConflictIndexPropertyTest::conflict);
        }
        assertTrue(conflicting > 5000, "too few conflicting pairs to mean much: " + conflicting);
    }

    /** Up to four keys of slots 0..3 (a slot's keys have as many parts as its number), some wildcards, some SHARED. */
    private static List<WriteKey> randomKeys(SplittableRandom random) {
        List<WriteKey> keys = new ArrayList<>();
        for (int i = random.nextInt(1, 5); i > 0; i--) {
            int slot = random.nextInt(4);
            long[] parts = new long[slot];
            for (int p = 0; p < slot; p++) {
                parts[p] = random.nextInt(3);
            }
            int known = random.nextInt(3) == 0 ? random.nextInt(slot + 1) : slot;
            keys.add(new WriteKey(slot, parts, known, random.nextInt(5) < 3, null, null));
        }
        return keys;
    }

    /** A random call of {@link ReadKeysTest#RULES}: two branches, four accounts, so that rows collide often. */
    private static ProcedureCall randomBankCall(SplittableRandom random) {
        int branch = 1 + random.nextInt(2);
        int id = 1 + random.nextInt(4);
        List<Integer> ids = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            ids.add(1 + random.nextInt(4));
        }
        return switch (random.nextInt(9)) {
            case 0 -> ProcedureCall.of("deposit", branch, id, 5);
            case 1 -> ProcedureCall.of("deposit_many", branch, ids, 5);
            case 2 -> ProcedureCall.of("rename", branch, id, "Ada");
            case 3 -> ProcedureCall.of("audit", branch, id);
            case 4 -> ProcedureCall.of("check_balance", branch, id);
            case 5 -> ProcedureCall.of("audit_branch", branch, random.nextInt(3) == 0 ? null : id);
            case 6 -> ProcedureCall.of("audit_some", branch, ids);
            case 7 -> ProcedureCall.of("copy_balance", branch, id, 1 + random.nextInt(4));
            default -> ProcedureCall.of("audit_history", branch, id);
        };
    }

    /** Returns how many pairs of calls conflicted. */
    private static int check(
            SplittableRandom random,
            ClassifierRules rules,
            Isolation isolation,
            int calls,
            Function<SplittableRandom, ProcedureCall> nextCall,
            BiPredicate<ProcedureCall, ProcedureCall> oracle) {
        ConflictIndex index = random.nextBoolean() ? new ConflictIndex() : new ConflictIndex(rules::wildcardPossible);
        return check(random, index, calls, nextCall, call -> rules.conflictKeys(call, isolation), oracle);
    }

    /** Returns how many pairs of calls conflicted. */
    private static <C> int check(
            SplittableRandom random,
            ConflictIndex index,
            int calls,
            Function<SplittableRandom, C> nextCall,
            Function<C, List<WriteKey>> keysOf,
            BiPredicate<C, C> oracle) {
        List<C> made = new ArrayList<>();
        BitSet removed = new BitSet();
        BitSet[] indexEdges = new BitSet[calls];
        BitSet[] oracleEdges = new BitSet[calls];
        int conflicting = 0;
        for (int t = 0; t < calls; t++) {
            made.add(nextCall.apply(random));
            indexEdges[t] = new BitSet();
            oracleEdges[t] = new BitSet();
            for (long dependency : index.add(t, keysOf.apply(made.get(t)))) {
                indexEdges[t].set((int) dependency);
            }
            for (int earlier = 0; earlier < t; earlier++) {
                if (!removed.get(earlier) && oracle.test(made.get(earlier), made.get(t))) {
                    oracleEdges[t].set(earlier);
                    conflicting++;
                }
            }
            // Garbage collection now and then: a transaction is globally applied only after everything it
            // depends on, so a victim leaves together with its not yet removed ancestors, oldest first.
            if (random.nextInt(4) == 0 && t > 10) {
                int victim = random.nextInt(t - 10);
                BitSet leaving = ancestors(indexEdges, victim);
                leaving.set(victim);
                for (int old = leaving.nextSetBit(0); old >= 0; old = leaving.nextSetBit(old + 1)) {
                    if (!removed.get(old)) {
                        removed.set(old);
                        index.remove(old);
                    }
                }
            }
        }
        for (int t = 0; t < calls; t++) {
            for (int dependency = indexEdges[t].nextSetBit(0);
                    dependency >= 0;
                    dependency = indexEdges[t].nextSetBit(dependency + 1)) {
                C earlier = made.get(dependency);
                C later = made.get(t);
                String edge = dependency + " -> " + t;
                assertTrue(
                        dependency < t && oracle.test(earlier, later),
                        () -> "edge " + edge + " joins transactions that do not conflict: " + earlier + ", " + later);
            }
        }
        BitSet[] indexReach = closure(indexEdges);
        BitSet[] oracleReach = closure(oracleEdges);
        for (int t = 0; t < calls; t++) {
            C call = made.get(t);
            int id = t;
            assertEquals(
                    oracleReach[t],
                    indexReach[t],
                    () -> "transactions ordered before " + id + " (" + call + ") differ");
        }
        return conflicting;
    }

    private static boolean conflict(List<WriteKey> first, List<WriteKey> second) {
        for (WriteKey a : first) {
            for (WriteKey b : second) {
                if (a.conflictsWith(b)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static BitSet ancestors(BitSet[] edges, int t) {
        BitSet result = new BitSet();
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>(List.of(t));
        while (!todo.isEmpty()) {
            int current = todo.pop();
            for (int d = edges[current].nextSetBit(0); d >= 0; d = edges[current].nextSetBit(d + 1)) {
                if (!result.get(d)) {
                    result.set(d);
                    todo.push(d);
                }
            }
        }
        return result;
    }

    /** reach[t] = every transaction from which t is reachable. */
    private static BitSet[] closure(BitSet[] edges) {
        BitSet[] reach = new BitSet[edges.length];
        for (int t = 0; t < edges.length; t++) {
            reach[t] = new BitSet();
            for (int d = edges[t].nextSetBit(0); d >= 0; d = edges[t].nextSetBit(d + 1)) {
                reach[t].set(d);
                reach[t].or(reach[d]);
            }
        }
        return reach;
    }
}
