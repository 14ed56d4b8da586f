package org.gargamel.classifier.index;

/**
 * A map from {@code long} to non-null objects without boxing: open addressing with linear probing over
 * parallel arrays, deletion by backward shift (no tombstones, so probe chains never degrade under churn).
 * Every long is a valid key; a slot is free when its value is {@code null}. The table grows above 1/2 full
 * (short probe chains: most lookups of the index are misses, for new keys) and shrinks below 1/8 full, so
 * memory follows the number of entries. Not thread-safe.
 */
final class LongObjectMap<V> {
    static final int MIN_CAPACITY = 4;

    private long[] keys;
    private Object[] values;
    private int size;
    private int mask;
    private int shift;

    /** Makes the value of an absent key (without boxing it). */
    @FunctionalInterface
    interface Factory<A, V> {
        V create(A argument, long key);
    }

    LongObjectMap() {
        this(MIN_CAPACITY);
    }

    /** {@code capacity} slots, rounded up to a power of two (at least {@link #MIN_CAPACITY}). */
    LongObjectMap(int capacity) {
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
        return keys.length;
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        long[] keys = this.keys;
        Object[] values = this.values;
        for (int i = slot(key); ; i = (i + 1) & mask) {
            Object value = values[i];
            if (value == null) {
                return null;
            }
            if (keys[i] == key) {
                return (V) value;
            }
        }
    }

    boolean containsKey(long key) {
        return get(key) != null;
    }

    /** Maps {@code key} to {@code value} (non-null) and returns the previous value, or {@code null}. */
    @SuppressWarnings("unchecked")
    V put(long key, V value) {
        if (value == null) {
            throw new NullPointerException("null value");
        }
        int i = slot(key);
        for (Object current; (current = values[i]) != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = value;
                return (V) current;
            }
        }
        keys[i] = key;
        values[i] = value;
        if (++size > keys.length >> 1) {
            rehash(keys.length << 1);
        }
        return null;
    }

    /**
     * The value of {@code key}, or if absent the value {@code create} makes, inserted with a single probe
     * sequence (the index's child lookup, where most keys are new).
     */
    @SuppressWarnings("unchecked")
    <A> V computeIfAbsent(long key, A argument, Factory<A, ? extends V> create) {
        long[] keys = this.keys;
        Object[] values = this.values;
        int i = slot(key);
        for (Object current; (current = values[i]) != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return (V) current;
            }
        }
        V value = create.create(argument, key);
        keys[i] = key;
        values[i] = value;
        if (++size > keys.length >> 1) {
            rehash(keys.length << 1);
        }
        return value;
    }

    /** Removes {@code key} if it maps to {@code value} itself; true if it did. */
    boolean removeIfSame(long key, Object value) {
        long[] keys = this.keys;
        Object[] values = this.values;
        for (int i = slot(key); ; i = (i + 1) & mask) {
            Object current = values[i];
            if (current == null) {
                return false;
            }
            if (keys[i] == key) {
                if (current != value) {
                    return false;
                }
                delete(i);
                return true;
            }
        }
    }

    /** Removes {@code key} and returns its value, or {@code null} if it was absent. */
    @SuppressWarnings("unchecked")
    V remove(long key) {
        long[] keys = this.keys;
        Object[] values = this.values;
        int i = slot(key);
        Object value;
        while (true) {
            value = values[i];
            if (value == null) {
                return null;
            }
            if (keys[i] == key) {
                break;
            }
            i = (i + 1) & mask;
        }
        delete(i);
        return (V) value;
    }

    private void delete(int i) {
        long[] keys = this.keys;
        Object[] values = this.values;
        // Backward shift: move later members of the probe chain into the hole when their home allows it.
        int hole = i;
        for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j]);
            // j may move to hole iff its home is not cyclically within (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = null;
        size--;
        if (size < (keys.length >> 3) && keys.length > MIN_CAPACITY) {
            rehash(keys.length >> 1);
        }
    }

    /** Calls {@code action} for every value, in no particular order; the map must not change meanwhile. */
    @SuppressWarnings("unchecked")
    void forEachValue(java.util.function.Consumer<? super V> action) {
        for (Object value : values) {
            if (value != null) {
                action.accept((V) value);
            }
        }
    }

    private int slot(long key) {
        // Fibonacci hashing: the high bits of the product mix every bit of the key.
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        values = new Object[capacity];
        mask = capacity - 1;
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        allocate(capacity);
        for (int j = 0; j < oldKeys.length; j++) {
            Object value = oldValues[j];
            if (value != null) {
                int i = slot(oldKeys[j]);
                while (values[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = value;
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null) {
                text.append(text.length() > 1 ? ", " : "")
                        .append(keys[i])
                        .append('=')
                        .append(values[i]);
            }
        }
        return text.append('}').toString();
    }
}
