package org.gargamel.node.visibility;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which transactions are visible at this node (committed here, or their write-set applied here), so a call or a
 * write-set waits for its back-dependencies (DESIGN.md §5). Transaction ids are dense increasing numbers from the
 * scheduler, so a bitmap holds them, as a ring over the newest {@link #DEFAULT_WINDOW} ids (2 MB): marking an id
 * beyond the window slides it, and every id below the window counts as visible. That is sound because the
 * scheduler keeps a transaction in its graph (and so can name it as a back-dependency) only until every replica
 * has applied it, and bounds the transactions in flight (maxInFlight) far below the window: an id 16 million
 * behind the newest one seen here was applied everywhere long ago. Memory stays bounded under any run length.
 */
public final class Visibility {
    static final int DEFAULT_WINDOW = 1 << 24;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final long[] ring;
    /** Word number (id / 64) of the oldest word in the window; ids below it count as visible. */
    private long baseWord;

    public Visibility() {
        this(DEFAULT_WINDOW);
    }

    /** {@code window}: ids remembered, a multiple of 64. */
    public Visibility(int window) {
        if (window < 64 || window % 64 != 0) {
            throw new IllegalArgumentException("window must be a positive multiple of 64, got " + window);
        }
        ring = new long[window / 64];
    }

    public void markVisible(long txn) {
        lock.lock();
        try {
            long word = txn >>> 6;
            if (word < baseWord) {
                return;
            }
            long end = baseWord + ring.length;
            if (word >= end) {
                // Slide: the words entering the window reuse (and clear) the slots of the words leaving it.
                long fresh = Math.min(word - end + 1, ring.length);
                for (long w = word - fresh + 1; w <= word; w++) {
                    ring[(int) (w % ring.length)] = 0;
                }
                baseWord = word - ring.length + 1;
            }
            ring[(int) (word % ring.length)] |= 1L << (txn & 63);
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
        long word = txn >>> 6;
        if (word < baseWord) {
            return true;
        }
        if (word >= baseWord + ring.length) {
            return false;
        }
        return (ring[(int) (word % ring.length)] & (1L << (txn & 63))) != 0;
    }
}
