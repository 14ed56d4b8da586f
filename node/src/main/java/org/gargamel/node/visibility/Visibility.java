package org.gargamel.node.visibility;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which transactions are visible at this node (committed here, or their write-set applied here), so a call or a
 * write-set waits for its back-dependencies (DESIGN.md §5).
 *
 * <p>Transaction ids are {@code epoch << 32 | n} ({@code epoch << 32 | site << 26 | n} for a site's scheduler):
 * dense increasing numbers within one scheduler's epoch (its id <em>space</em>: the id without its last
 * {@value org.gargamel.common.wire.TransactionIds#SEQUENCE_BITS} bits, so two sites whose logs gave their schedulers
 * the same epoch have spaces apart), far apart between spaces. Each space has its own bitmap, a ring over its newest
 * {@link #DEFAULT_WINDOW} ids (2 MB): marking an id beyond the window slides it, and every id of the space below the
 * window counts as visible. That is sound because a scheduler keeps a transaction in its graph (and so can name it as a
 * back-dependency) only until every replica has applied it, and bounds the transactions in flight (maxInFlight) far
 * below the window: an id 16 million behind the newest one of its space was applied everywhere long ago.
 *
 * <p>One bitmap per space, because several spaces are live at once in a multi-site cluster (one per site's scheduler,
 * docs/multisite.md): with one bitmap for all, the first id marked from a higher space made every id of a lower one
 * "visible", and a call ran before the other site's call it depended on. An id of a space this node never marked is
 * not visible. Memory stays bounded: beyond {@link #MAX_SPACES} spaces, the one marked least recently gives up its
 * bitmap and keeps only the highest id it marked, every id up to which counts as visible (an epoch that long unused
 * was superseded, or its site's calls were all applied long ago).
 */
public final class Visibility {
    static final int DEFAULT_WINDOW = 1 << 24;
    /** Spaces that keep a bitmap (2 MB each); the others keep their highest marked id. */
    static final int MAX_SPACES = 8;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final int words;
    private final Map<Long, Space> spaces = new HashMap<>();
    /** The space used last (the only one in a single-site cluster between failovers). */
    private Space recent;

    private long uses;

    /** One scheduler epoch's ids. */
    private static final class Space {
        final long key;
        /** Null once retired (beyond {@link #MAX_SPACES}): then only {@link #highest} counts. */
        long[] ring;
        /** Word number (id / 64) of the oldest word in the window; the space's ids below it count as visible. */
        long baseWord;
        /** The highest id marked in this space. */
        long highest = -1;
        /** Ids up to this one count as visible: the highest marked when the space was last retired (-1: never). */
        long floor = -1;

        long lastUse;

        Space(long key, int words) {
            this.key = key;
            this.ring = new long[words];
        }
    }

    public Visibility() {
        this(DEFAULT_WINDOW);
    }

    /** {@code window}: ids remembered per space, a multiple of 64. */
    public Visibility(int window) {
        if (window < 64 || window % 64 != 0) {
            throw new IllegalArgumentException("window must be a positive multiple of 64, got " + window);
        }
        words = window / 64;
    }

    public void markVisible(long txn) {
        lock.lock();
        try {
            Space space = space(spaceOf(txn), true);
            if (space.ring == null) {
                // Used again after it was retired: a fresh window from the word of the highest id it had marked.
                space.floor = space.highest;
                space.ring = new long[words];
                space.baseWord = space.floor >>> 6;
                retireBeyondLimit(space);
            }
            long[] ring = space.ring;
            long word = txn >>> 6;
            if (word >= space.baseWord) {
                long end = space.baseWord + ring.length;
                if (word >= end) {
                    // Slide: the words entering the window reuse (and clear) the slots of the words leaving it.
                    long fresh = Math.min(word - end + 1, ring.length);
                    for (long w = word - fresh + 1; w <= word; w++) {
                        ring[(int) (w % ring.length)] = 0;
                    }
                    space.baseWord = word - ring.length + 1;
                }
                ring[(int) (word % ring.length)] |= 1L << (txn & 63);
            }
            space.highest = Math.max(space.highest, txn);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isVisible(long txn) {
        lock.lock();
        try {
            return visible(txn);
        } finally {
            lock.unlock();
        }
    }

    /** Blocks until every id in {@code txns} is visible. */
    public void awaitAll(long[] txns) throws InterruptedException {
        if (txns.length == 0) {
            return;
        }
        lock.lock();
        try {
            for (long txn : txns) {
                while (!visible(txn)) {
                    changed.await();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until every id in {@code txns} is visible (true), or until {@code giveUp} says so when woken by
     * {@link #wakeAll} (false): a call of a superseded scheduler stops waiting for dependencies that may never come.
     */
    public boolean awaitAllUnless(long[] txns, java.util.function.BooleanSupplier giveUp) throws InterruptedException {
        if (txns.length == 0) {
            return true;
        }
        lock.lock();
        try {
            for (long txn : txns) {
                while (!visible(txn)) {
                    if (giveUp.getAsBoolean()) {
                        return false;
                    }
                    changed.await();
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Blocks until every id in {@code txns} is visible or {@code millis} pass; returns those still not visible. */
    public java.util.List<Long> awaitAll(long[] txns, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        lock.lock();
        try {
            for (long txn : txns) {
                while (!visible(txn)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        java.util.List<Long> missing = new java.util.ArrayList<>();
                        for (long each : txns) {
                            if (!visible(each)) {
                                missing.add(each);
                            }
                        }
                        return missing;
                    }
                    changed.awaitNanos(left);
                }
            }
            return java.util.List.of();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter (shutdown). */
    public void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private boolean visible(long txn) {
        Space space = space(spaceOf(txn), false);
        if (space == null) {
            return false; // no id of its space was ever marked here
        }
        long[] ring = space.ring;
        if (ring == null) {
            return txn <= space.highest;
        }
        if (txn <= space.floor) {
            return true;
        }
        long word = txn >>> 6;
        if (word < space.baseWord) {
            return true;
        }
        if (word >= space.baseWord + ring.length) {
            return false;
        }
        return (ring[(int) (word % ring.length)] & (1L << (txn & 63))) != 0;
    }

    /** The space {@code key}, made if {@code create} (the caller holds the lock). */
    private Space space(long key, boolean create) {
        Space space = recent;
        if (space == null || space.key != key) {
            space = spaces.get(key);
            if (space == null) {
                if (!create) {
                    return null;
                }
                space = new Space(key, words);
                spaces.put(key, space);
                space.lastUse = ++uses;
                retireBeyondLimit(space);
            }
            recent = space;
        }
        if (create) {
            space.lastUse = ++uses;
        }
        return space;
    }

    /** Beyond {@link #MAX_SPACES} bitmaps, the space marked least recently (never {@code keep}) gives its up. */
    private void retireBeyondLimit(Space keep) {
        int withRing = 0;
        Space oldest = null;
        for (Space space : spaces.values()) {
            if (space.ring != null) {
                withRing++;
                if (space != keep && (oldest == null || space.lastUse < oldest.lastUse)) {
                    oldest = space;
                }
            }
        }
        if (withRing > MAX_SPACES && oldest != null) {
            oldest.ring = null;
        }
    }

    /** The id space of {@code txn}: its epoch and, for a site's scheduler, its site ({@code TransactionIds}). */
    static long spaceOf(long txn) {
        return txn >>> org.gargamel.common.wire.TransactionIds.SEQUENCE_BITS;
    }
}
