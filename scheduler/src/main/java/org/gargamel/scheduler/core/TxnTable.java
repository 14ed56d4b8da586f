package org.gargamel.scheduler.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Open-addressing map from transaction id (never 0) to value, with linear probing and backward-shift
 * deletion: no boxing and no per-entry objects on the scheduler's hot path. Shrinks when mostly empty, so
 * its memory follows what is in flight.
 */
final class TxnTable<V> {
    private static final int MIN_CAPACITY = 64;

    private long[] keys = new long[MIN_CAPACITY];
    private Object[] values = new Object[MIN_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(long key) {
        long[] k = keys;
        int mask = k.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            long present = k[i];
            if (present == key) {
                return (V) values[i];
            }
            if (present == 0) {
                return null;
            }
        }
    }

    void put(long key, V value) {
        if (key == 0) {
            throw new IllegalArgumentException("id 0 is reserved");
        }
        if ((size + 1) * 2 > keys.length) {
            resize(keys.length * 2);
        }
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
            if (keys[i] == 0) {
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
        }
    }

    void remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (keys[i] != key) {
            if (keys[i] == 0) {
                return;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move later entries of the probe run into the hole.
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = 0;
        values[hole] = null;
        size--;
        if (keys.length > MIN_CAPACITY && size * 8 < keys.length) {
            resize(keys.length / 2);
        }
    }

    @SuppressWarnings("unchecked")
    List<V> values() {
        List<V> result = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                result.add((V) values[i]);
            }
        }
        return result;
    }

    private void resize(int capacity) {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[capacity];
        values = new Object[capacity];
        int mask = capacity - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                int j = slot(oldKeys[i], mask);
                while (keys[j] != 0) {
                    j = (j + 1) & mask;
                }
                keys[j] = oldKeys[i];
                values[j] = oldValues[i];
            }
        }
    }

    private static int slot(long key, int mask) {
        long z = key * 0x9E3779B97F4A7C15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }
}
