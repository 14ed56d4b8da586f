package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.classifier.index.ConflictIndex;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The index against a brute-force oracle in the spirit of the thesis's Algorithm 1 (a call depends on every
 * earlier, still in-flight transaction it conflicts with): on random workloads with random removals, the
 * index's edges only join conflicting transactions, and both give the same transitive ordering.
 */
@Tag("unit")
class ConflictIndexPropertyTest {
    private final ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);

    @Test
    void sameOrderingAsTheBruteForceGraphWalk() {
        for (Isolation isolation : Isolation.values()) {
            for (long seed = 1; seed <= 40; seed++) {
                check(new SplittableRandom(seed), isolation, 1 + (int) (seed % 3), 300);
            }
        }
    }

    private void check(SplittableRandom random, Isolation isolation, int warehouses, int calls) {
        ConflictIndex index = random.nextBoolean() ? new ConflictIndex() : new ConflictIndex(rules::wildcardPossible);
        List<List<WriteKey>> keys = new ArrayList<>();
        BitSet removed = new BitSet();
        BitSet[] indexEdges = new BitSet[calls];
        BitSet[] oracleEdges = new BitSet[calls];
        for (int t = 0; t < calls; t++) {
            keys.add(rules.writeKeys(TpccCalls.random(random, warehouses), isolation));
            indexEdges[t] = new BitSet();
            oracleEdges[t] = new BitSet();
            for (long dependency : index.add(t, keys.get(t))) {
                indexEdges[t].set((int) dependency);
            }
            for (int earlier = 0; earlier < t; earlier++) {
                if (!removed.get(earlier) && conflict(keys.get(earlier), keys.get(t))) {
                    oracleEdges[t].set(earlier);
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
                assertTrue(
                        dependency < t && conflict(keys.get(dependency), keys.get(t)),
                        "edge " + dependency + " -> " + t + " joins transactions that do not conflict");
            }
        }
        BitSet[] indexReach = closure(indexEdges);
        BitSet[] oracleReach = closure(oracleEdges);
        for (int t = 0; t < calls; t++) {
            assertEquals(oracleReach[t], indexReach[t], isolation + ": transactions ordered before " + t + " differ");
        }
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
