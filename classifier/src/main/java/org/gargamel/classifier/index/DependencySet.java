package org.gargamel.classifier.index;

import java.util.Arrays;

/**
 * The back-dependencies collected by one {@link ConflictIndex#add}: each id at most once, never the call's own, in no
 * particular order. Reused by every add (the index is single-threaded), so its arrays are allocated once and grow.
 *
 * <p>Invariant: between adds the id set is empty ({@link #finish} clears exactly the slots {@link #begin} and
 * {@link #add} filled), so one add's ids never hide another's (guarded by {@code ConflictIndexDifferentialTest}).
 */
final class DependencySet {
    private long[] dependencies = new long[32];
    private int dependencyCount;
    /** Open-addressing set of the ids collected by the current add (and its own), for deduplication. */
    private long[] collected = emptySet(64);

    private int[] collectedSlots = new int[32];
    private int collectedCount;

    /** Starts the set of call {@code self}, which is never its own dependency. */
    void begin(long self) {
        dependencyCount = 0;
        remember(self);
    }

    void add(Entry writer) {
        if (writer != null) {
            add(writer.txn);
        }
    }

    /** Adds {@code txn} to the current call's dependencies unless it is there already (or is the call). */
    void add(long txn) {
        if (remember(txn)) {
            if (dependencyCount == dependencies.length) {
                dependencies = Arrays.copyOf(dependencies, dependencyCount * 2);
            }
            dependencies[dependencyCount++] = txn;
        }
    }

    /** Adds the members of {@code sharers} still in the index. */
    void addLive(Sharers sharers) {
        Entry[] members = sharers.members;
        for (int i = 0, size = sharers.size; i < size; i++) {
            Entry member = members[i];
            if (member.live) {
                add(member.txn);
            }
        }
    }

    /** The current call's dependencies; empties the id set for the next call. */
    long[] finish() {
        for (int i = 0; i < collectedCount; i++) {
            collected[collectedSlots[i]] = LongLongMap.ABSENT;
        }
        collectedCount = 0;
        return Arrays.copyOf(dependencies, dependencyCount);
    }

    /** Puts {@code txn} in the set of ids seen by the current add; false if it was there. */
    private boolean remember(long txn) {
        if (collectedCount * 2 >= collected.length) {
            growCollected();
        }
        long[] set = collected;
        int mask = set.length - 1;
        int i = (int) ((txn * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        for (long current; (current = set[i]) != LongLongMap.ABSENT; i = (i + 1) & mask) {
            if (current == txn) {
                return false;
            }
        }
        set[i] = txn;
        if (collectedCount == collectedSlots.length) {
            collectedSlots = Arrays.copyOf(collectedSlots, collectedCount * 2);
        }
        collectedSlots[collectedCount++] = i;
        return true;
    }

    /** Doubles the id set, re-inserting what the current add has seen (a Delivery collects ~100). */
    private void growCollected() {
        long[] seen = new long[collectedCount];
        for (int i = 0; i < collectedCount; i++) {
            seen[i] = collected[collectedSlots[i]];
        }
        collected = emptySet(collected.length * 2);
        collectedCount = 0;
        for (long txn : seen) {
            remember(txn);
        }
    }

    private static long[] emptySet(int capacity) {
        long[] set = new long[capacity];
        Arrays.fill(set, LongLongMap.ABSENT);
        return set;
    }
}
