package org.gargamel.classifier.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.classifier.WriteKey;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The optimised index returns exactly the dependencies of the original one ({@link ReferenceConflictIndex}),
 * call for call, and keeps the same number of trie nodes, on random keys over few slots and small parts
 * (so that keys, prefixes and wildcards collide often) with dependency-ordered removals.
 */
@Tag("unit")
class ConflictIndexDifferentialTest {

    @Test
    void sameDependenciesAsTheReferenceWithFifoRemoval() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            ConflictIndex.WildcardDepths depths = depths(random);
            ConflictIndex index = new ConflictIndex(depths);
            ReferenceConflictIndex reference = new ReferenceConflictIndex(depths);
            int inflight = 1 + random.nextInt(200);
            for (long t = 0; t < 3_000; t++) {
                List<WriteKey> keys = randomKeys(random);
                assertArrayEquals(
                        sorted(reference.add(t, keys)), sorted(index.add(t, keys)), "seed " + seed + " txn " + t);
                if (t >= inflight) {
                    index.remove(t - inflight);
                    reference.remove(t - inflight);
                }
                assertEquals(reference.size(), index.size());
                assertEquals(reference.nodeCount(), index.nodeCount(), "seed " + seed + " txn " + t);
            }
            for (long t = 3_000L - inflight; t < 3_000; t++) {
                index.remove(t);
            }
            assertEquals(0, index.size());
            org.junit.jupiter.api.Assertions.assertTrue(
                    index.nodeCount() <= 4, "only roots left: " + index.nodeCount());
        }
    }

    @Test
    void sameDependenciesAsTheReferenceWithDependencyOrderedRemoval() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(100 + seed);
            ConflictIndex.WildcardDepths depths = depths(random);
            ConflictIndex index = new ConflictIndex(depths);
            ReferenceConflictIndex reference = new ReferenceConflictIndex(depths);
            int calls = 1_500;
            BitSet[] edges = new BitSet[calls];
            BitSet removed = new BitSet();
            for (int t = 0; t < calls; t++) {
                List<WriteKey> keys = randomKeys(random);
                long[] expected = sorted(reference.add(t, keys));
                assertArrayEquals(expected, sorted(index.add(t, keys)), "seed " + seed + " txn " + t);
                edges[t] = new BitSet();
                for (long d : expected) {
                    edges[t].set((int) d);
                }
                if (random.nextInt(3) == 0 && t > 5) {
                    int victim = random.nextInt(t - 5);
                    BitSet leaving = ancestors(edges, victim);
                    leaving.set(victim);
                    for (int old = leaving.nextSetBit(0); old >= 0; old = leaving.nextSetBit(old + 1)) {
                        if (!removed.get(old)) {
                            removed.set(old);
                            index.remove(old);
                            reference.remove(old);
                        }
                    }
                    index.remove(victim); // a repeated report is harmless
                }
                assertEquals(reference.size(), index.size());
                assertEquals(reference.nodeCount(), index.nodeCount(), "seed " + seed + " txn " + t);
            }
        }
    }

    @Test
    void aRemovedIdMayComeBackAsANewTransaction() {
        ConflictIndex index = new ConflictIndex();
        ReferenceConflictIndex reference = new ReferenceConflictIndex();
        SplittableRandom random = new SplittableRandom(9);
        for (int round = 0; round < 2_000; round++) {
            long t = round % 7; // ids reused as soon as they leave
            index.remove(t);
            reference.remove(t);
            List<WriteKey> keys = randomKeys(random);
            assertArrayEquals(sorted(reference.add(t, keys)), sorted(index.add(t, keys)), "round " + round);
        }
    }

    @Test
    void aWildcardWriterCollectsManyWritersOnceEach() {
        // More writers than the linear deduplication handles, each reached twice (two keys below).
        ConflictIndex index = new ConflictIndex();
        for (long t = 0; t < 300; t++) {
            index.add(
                    t,
                    List.of(
                            new WriteKey(2, new long[] {1, t}, 2, null, null),
                            new WriteKey(2, new long[] {1, t + 1_000}, 2, null, null)));
        }
        long[] dependencies = sorted(index.add(300, List.of(new WriteKey(2, new long[] {1, 0}, 1, null, null))));
        assertEquals(300, dependencies.length);
        for (int t = 0; t < 300; t++) {
            assertEquals(t, dependencies[t]);
        }
        assertArrayEquals(
                new long[] {5, 300},
                sorted(index.add(301, List.of(new WriteKey(2, new long[] {1, 5}, 2, null, null)))),
                "its key's writer and the wildcard");
    }

    @Test
    void aDuplicateIdIsRejectedAndChangesNothing() {
        ConflictIndex index = new ConflictIndex();
        List<WriteKey> keys = List.of(new WriteKey(1, new long[] {4}, 1, null, null));
        index.add(1, keys);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> index.add(1, List.of()));
        assertEquals(1, index.size());
        assertArrayEquals(new long[] {1}, index.add(2, keys), "the first transaction 1 is still the writer");
        index.remove(1);
        index.remove(2);
        assertEquals(0, index.size());
    }

    private static ConflictIndex.WildcardDepths depths(SplittableRandom random) {
        if (random.nextBoolean()) {
            return ConflictIndex.WildcardDepths.ANY;
        }
        long mask = random.nextLong();
        return (slot, depth) -> ((mask >>> ((slot * 5 + depth) & 63)) & 1) != 0;
    }

    private static List<WriteKey> randomKeys(SplittableRandom random) {
        int count = random.nextInt(0, 6);
        List<WriteKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int slot = random.nextInt(4);
            int length = slot; // a slot's keys have one length: 0..3 parts
            long[] parts = new long[length];
            for (int p = 0; p < length; p++) {
                parts[p] = random.nextInt(3) - 1L; // -1, 0, 1: includes 0 and a negative part
            }
            int known = random.nextInt(4) == 0 ? random.nextInt(length + 1) : length;
            boolean shared = random.nextInt(5) < 2; // SHARED and EXCLUSIVE keys mix, exact and wildcard
            keys.add(new WriteKey(slot, parts, known, shared, null, null));
        }
        return keys;
    }

    private static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        for (int i = 1; i < copy.length; i++) {
            if (copy[i] == copy[i - 1]) {
                throw new AssertionError("duplicate dependency " + copy[i] + " in " + Arrays.toString(values));
            }
        }
        return copy;
    }

    private static BitSet ancestors(BitSet[] edges, int t) {
        BitSet result = new BitSet();
        ArrayDeque<Integer> todo = new ArrayDeque<>(List.of(t));
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
}
