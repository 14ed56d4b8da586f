package org.gargamel.classifier.index;

import java.util.Arrays;

/**
 * SHARED writers of one place since its last EXCLUSIVE writer: an append-only array whose removed members are
 * dropped lazily (when full), as {@link Node#below}. An EXCLUSIVE writer detaches the whole object; a removal
 * decrements {@link #live} of the object it joined, and detaches it from its place when none is left.
 *
 * <p>Invariant: {@link #live} is the number of members in {@code [0, size)} still in the index, and no member is in
 * it twice in a row (one call's keys join it once).
 */
final class Sharers {
    static final int LEAF = 0;
    static final int EXACT = 1;
    static final int WILDCARD = 2;
    static final int BELOW = 3;

    /** Which field of its node's {@link Shares} holds it: one of the constants above. */
    final int place;
    /** For a {@link #LEAF}, the full key's last part. */
    final long part;

    Entry[] members = new Entry[4];
    int size;
    int live;

    Sharers(int place, long part) {
        this.place = place;
        this.part = part;
    }

    /** False if {@code entry} is its last member already (an earlier key of the same call). */
    boolean add(Entry entry) {
        int n = size;
        Entry[] array = members;
        if (n > 0 && array[n - 1] == entry) {
            return false;
        }
        if (n == array.length) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                Entry member = array[i];
                if (member.live) {
                    array[kept++] = member;
                }
            }
            Arrays.fill(array, kept, n, null);
            n = kept;
            if (kept > array.length >> 1) {
                members = array = Arrays.copyOf(array, array.length << 1);
            }
        }
        array[n] = entry;
        size = n + 1;
        live++;
        return true;
    }
}
