package org.gargamel.common.lifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner of a process's long-lived threads (STYLE.md, Concurrency): starts and names them, hears of their death,
 * and stops them with a bounded wait. A thread that throws, or whose body returns while the owner still runs, is a
 * failure of the whole process: it is logged with the thread's name and completes {@link #failure()}, which the
 * process's main waits on to exit with a non-zero code. Nothing is printed and carried on.
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);

    /** The work of one supervised thread. InterruptedException while stopping is the normal way out. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    private final String owner;
    private final List<Thread> threads = new ArrayList<>();
    private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
    private volatile boolean stopping;

    /** {@code owner} names the process part in log lines, e.g. {@code node-1}. */
    public Supervisor(String owner) {
        this.owner = owner;
    }

    /** Starts {@code body} on a new thread named {@code name}. */
    public synchronized Thread start(String name, Body body) {
        if (stopping) {
            throw new IllegalStateException(owner + " is stopping; cannot start thread " + name);
        }
        Thread thread = new Thread(() -> runSupervised(name, body), name);
        threads.add(thread);
        thread.start();
        return thread;
    }

    private void runSupervised(String name, Body body) {
        try {
            body.run();
            if (!stopping) {
                fail(new IllegalStateException(owner + ": thread " + name + " ended while " + owner + " was running"));
            }
        } catch (InterruptedException e) {
            if (!stopping) {
                fail(new IllegalStateException(
                        owner + ": thread " + name + " was interrupted while " + owner + " was running", e));
            }
        } catch (Throwable e) {
            if (!stopping) {
                fail(
                        e instanceof FatalException
                                ? e
                                : new FatalException(owner + ": thread " + name + " failed: " + e, e));
            }
        }
    }

    /**
     * Records that the process cannot go on (the first reason wins) and logs it. Safe from any thread, including
     * threads the supervisor did not start (JGroups' receive threads).
     */
    public void fail(Throwable reason) {
        if (failure.complete(reason)) {
            LOG.error("{}: fatal: {}", owner, reason.getMessage(), reason);
        }
    }

    /** Completes with the reason when a supervised thread fails or {@link #fail} is called; never otherwise. */
    public CompletableFuture<Throwable> failure() {
        return failure;
    }

    public boolean stopping() {
        return stopping;
    }

    /**
     * Interrupts every thread and waits up to {@code grace} in all for them to end; logs those that did not. Idempotent.
     * A supervised thread that ends or throws once stopping has begun is not a failure.
     */
    public void stop(Duration grace) {
        List<Thread> started;
        synchronized (this) {
            stopping = true;
            started = List.copyOf(threads);
        }
        for (Thread thread : started) {
            thread.interrupt();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread thread : started) {
            if (thread == Thread.currentThread()) {
                continue; // stopped from one of its own threads: that one ends when it returns
            }
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    thread.join(Math.max(1, left / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (thread.isAlive()) {
                LOG.warn("{}: thread {} did not stop within {} ms", owner, thread.getName(), grace.toMillis());
            }
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
