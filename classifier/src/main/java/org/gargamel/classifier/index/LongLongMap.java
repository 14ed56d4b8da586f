package org.gargamel.classifier.index;

/**
 * A map from {@code long} to {@code long} with each key and its value side by side in one array, so a
 * probe touches one cache line where {@link LongObjectMap} touches two (keys, values) and its caller a
 * third (the value object). The index's full-key leaves are its largest and coldest tables (a New-Order's
 * stock rows), where those misses were most of the cost of a large call.
 *
 * <p>Open addressing with linear probing, deletion by backward shift; {@link #ABSENT} is the one value that
 * cannot be stored (it marks a free slot). Grows above 1/2 full, shrinks below 1/8. Not thread-safe.
 */
final class LongLongMap {
    /** The value returned for an absent key, and marking a free slot; never a stored value. */
    static final long ABSENT = Long.MIN_VALUE;

    static final int MIN_CAPACITY = 4;

    /** [key0, value0, key1, value1, ...]; a slot is free when its value is {@link #ABSENT}. */
    private long[] table;

    private int size;
    private int mask;
    private int shift;

    LongLongMap() {
        this(MIN_CAPACITY);
    }

    /** {@code capacity} slots, rounded up to a power of two (at least {@link #MIN_CAPACITY}), as {@link LongObjectMap}. */
    LongLongMap(int capacity) {
        allocate(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, capacity - 1)) << 1));
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Slots allocated (for tests). */
    int capacity() {
        return mask + 1;
    }

    long get(long key) {
        long[] table = this.table;
        for (int i = slot(key); ; i = (i + 1) & mask) {
            long value = table[2 * i + 1];
            if (value == ABSENT || table[2 * i] == key) {
                return value;
            }
        }
    }

    /** The key stored in {@code key}'s home slot, whatever it is: one load, to bring that line into the cache. */
    long peek(long key) {
        return table[2 * slot(key)];
    }

    /** Maps {@code key} to {@code value} and returns the previous value, or {@link #ABSENT}. */
    long put(long key, long value) {
        if (value == ABSENT) {
            throw new IllegalArgumentException("value " + value + " is reserved");
        }
        long[] table = this.table;
        int i = slot(key);
        for (long current; (current = table[2 * i + 1]) != ABSENT; i = (i + 1) & mask) {
            if (table[2 * i] == key) {
                table[2 * i + 1] = value;
                return current;
            }
        }
        table[2 * i] = key;
        table[2 * i + 1] = value;
        if (++size > (mask + 1) >> 1) {
            rehash((mask + 1) << 1);
        }
        return ABSENT;
    }

    /** Removes {@code key} if it maps to {@code value}; true if it did. */
    boolean removeIfSame(long key, long value) {
        long[] table = this.table;
        for (int i = slot(key); ; i = (i + 1) & mask) {
            long current = table[2 * i + 1];
            if (current == ABSENT) {
                return false;
            }
            if (table[2 * i] == key) {
                if (current != value) {
                    return false;
                }
                delete(i);
                return true;
            }
        }
    }

    private void delete(int i) {
        long[] table = this.table;
        // Backward shift: move later members of the probe chain into the hole when their home allows it.
        int hole = i;
        for (int j = (hole + 1) & mask; table[2 * j + 1] != ABSENT; j = (j + 1) & mask) {
            int home = slot(table[2 * j]);
            // j may move to hole iff its home is not cyclically within (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                table[2 * hole] = table[2 * j];
                table[2 * hole + 1] = table[2 * j + 1];
                hole = j;
            }
        }
        table[2 * hole + 1] = ABSENT;
        size--;
        if (size < ((mask + 1) >> 3) && mask + 1 > MIN_CAPACITY) {
            rehash((mask + 1) >> 1);
        }
    }

    private int slot(long key) {
        // Fibonacci hashing: the high bits of the product mix every bit of the key.
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    private void allocate(int capacity) {
        table = new long[2 * capacity];
        for (int i = 1; i < table.length; i += 2) {
            table[i] = ABSENT;
        }
        mask = capacity - 1;
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
    }

    private void rehash(int capacity) {
        long[] old = table;
        allocate(capacity);
        long[] table = this.table;
        for (int j = 0; j < old.length; j += 2) {
            if (old[j + 1] != ABSENT) {
                int i = slot(old[j]);
                while (table[2 * i + 1] != ABSENT) {
                    i = (i + 1) & mask;
                }
                table[2 * i] = old[j];
                table[2 * i + 1] = old[j + 1];
            }
        }
    }
}
