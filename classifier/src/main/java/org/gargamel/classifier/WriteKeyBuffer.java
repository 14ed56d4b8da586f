package org.gargamel.classifier;

import java.util.Arrays;
import org.gargamel.common.config.Isolation;

/**
 * A call's keys in reused primitive arrays: what {@link ClassifierRules#conflictKeys(org.gargamel.common.call.ProcedureCall,
 * Isolation, WriteKeyBuffer)} (writes and declared reads) fills for the scheduler and
 * {@link org.gargamel.classifier.index.ConflictIndex} reads.
 * Key {@code k} has the meaning of a {@link WriteKey}: a slot, {@link #length} parts of which the first
 * {@link #knownParts} are known (the rest are wildcards). The scheduler resolves one call at a time, so one buffer
 * serves every call: no key, parts array or list is allocated per call (a New-Order has up to 16 keys).
 *
 * <p>The keys of one write element share their parts (a PSI write touching two column groups has two keys with
 * the same row). Not thread-safe.
 */
public final class WriteKeyBuffer {
    private int size;
    private int[] slots = new int[16];
    private int[] knownParts = new int[16];
    /** Whether key k is SHARED (an increment in PSI: conflicts with no other SHARED key). */
    private boolean[] shared = new boolean[16];

    private int[] lengths = new int[16];
    /** Where key k's parts start in {@link #parts}. */
    private int[] starts = new int[16];
    /** The rule and array element each key came from, to explain it ({@link ClassifierRules#writeKeys(
     * org.gargamel.common.call.ProcedureCall, Isolation)}); null for keys added by hand. */
    private WriteRule[] rules = new WriteRule[16];

    private int[] elements = new int[16];
    private long[] parts = new long[64];
    private int partsSize;

    /** The number of keys. */
    public int size() {
        return size;
    }

    public int slot(int key) {
        return slots[key];
    }

    /** How many leading parts of key {@code key} are known; the rest are wildcards. */
    public int knownParts(int key) {
        return knownParts[key];
    }

    /** Whether key {@code key} is SHARED (see {@link WriteKey}); EXCLUSIVE otherwise. */
    public boolean shared(int key) {
        return shared[key];
    }

    /** How many parts key {@code key} has (its table's primary-key columns), known or not. */
    public int length(int key) {
        return lengths[key];
    }

    /** Part {@code depth} of key {@code key}; 0 for a part that is not known. */
    public long part(int key, int depth) {
        return parts[starts[key] + depth];
    }

    /** Empties the buffer (its arrays are kept). */
    public void clear() {
        size = 0;
        partsSize = 0;
    }

    /** Appends an EXCLUSIVE key: {@code parts} are copied, those at {@code knownParts} and after read as 0. */
    public void add(int slot, long[] keyParts, int known) {
        add(slot, keyParts, known, false);
    }

    /** Appends a key, SHARED or not: {@code parts} are copied, those at {@code knownParts} and after read as 0. */
    public void add(int slot, long[] keyParts, int known, boolean isShared) {
        if (known < 0 || known > keyParts.length) {
            throw new IllegalArgumentException(known + " known parts of a key of " + keyParts.length);
        }
        int start = reserveParts(keyParts.length);
        System.arraycopy(keyParts, 0, parts, start, known);
        addKey(slot, start, keyParts.length, known, isShared, null, 0);
    }

    /** The write rule key {@code key} came from (null for keys added by hand). */
    WriteRule rule(int key) {
        return rules[key];
    }

    /** The array element key {@code key} came from (0 for writes of no array). */
    int element(int key) {
        return elements[key];
    }

    /** A copy of key {@code key}'s parts. */
    long[] partsOf(int key) {
        return Arrays.copyOfRange(parts, starts[key], starts[key] + lengths[key]);
    }

    /** Room for {@code length} parts, zeroed; returns where they start. */
    int reserveParts(int length) {
        int start = partsSize;
        if (start + length > parts.length) {
            parts = Arrays.copyOf(parts, Math.max(start + length, parts.length * 2));
        }
        Arrays.fill(parts, start, start + length, 0L);
        partsSize = start + length;
        return start;
    }

    void setPart(int start, int depth, long value) {
        parts[start + depth] = value;
    }

    /** Appends a key whose parts were written at {@code start} (see {@link #reserveParts}). */
    void addKey(int slot, int start, int length, int known, boolean isShared, WriteRule rule, int element) {
        if (size == slots.length) {
            int capacity = size * 2;
            slots = Arrays.copyOf(slots, capacity);
            knownParts = Arrays.copyOf(knownParts, capacity);
            shared = Arrays.copyOf(shared, capacity);
            lengths = Arrays.copyOf(lengths, capacity);
            starts = Arrays.copyOf(starts, capacity);
            rules = Arrays.copyOf(rules, capacity);
            elements = Arrays.copyOf(elements, capacity);
        }
        slots[size] = slot;
        knownParts[size] = known;
        shared[size] = isShared;
        lengths[size] = length;
        starts[size] = start;
        rules[size] = rule;
        elements[size] = element;
        size++;
    }
}
