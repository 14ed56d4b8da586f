package org.gargamel.node;

import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which transactions are visible at this node (committed here, or their write-set applied here), so a call or a
 * write-set waits for its back-dependencies (DESIGN.md §5). Transaction ids are dense increasing numbers from the
 * scheduler, so a bitmap holds them: one bit per id ever scheduled (12 MB per 100 million transactions); a
 * garbage-collection watermark from the scheduler would bound it further and is on the roadmap.
 */
final class Visibility {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long[] bits = new long[1024];

    void markVisible(long txn) {
        lock.lock();
        try {
            int word = (int) (txn >>> 6);
            if (word >= bits.length) {
                bits = Arrays.copyOf(bits, Math.max(word + 1, bits.length * 2));
            }
            bits[word] |= 1L << (txn & 63);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isVisible(long txn) {
        lock.lock();
        try {
            return visible(txn);
        } finally {
            lock.unlock();
        }
    }

    /** Blocks until every id in {@code txns} is visible. */
    void awaitAll(long[] txns) throws InterruptedException {
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

    /** Wakes every waiter (shutdown). */
    void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private boolean visible(long txn) {
        int word = (int) (txn >>> 6);
        return word < bits.length && (bits[word] & (1L << (txn & 63))) != 0;
    }
}
