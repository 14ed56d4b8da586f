package org.gargamel.classifier.index;

import java.util.ArrayList;
import java.util.List;

/** Keys that collide in the index's open-addressing tables, which place key k at the top bits of k * C. */
final class FibonacciHomes {
    private FibonacciHomes() {}

    /** The first {@code count} non-negative keys whose home in a table of 2^{@code log2Capacity} slots is {@code slot}. */
    static List<Long> keysHomedAt(int slot, int log2Capacity, int count) {
        List<Long> keys = new ArrayList<>();
        for (long key = 0; keys.size() < count; key++) {
            if ((int) ((key * 0x9E3779B97F4A7C15L) >>> (64 - log2Capacity)) == slot) {
                keys.add(key);
            }
        }
        return keys;
    }
}
