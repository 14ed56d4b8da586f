package org.gargamel.launcher.server;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a child JVM (scheduler, node) that the process that started it is gone, so a demo killed with SIGKILL leaves
 * no orphaned Gargamel process behind. The parent passes its pid in {@value #ENVIRONMENT_VARIABLE}; a watcher thread
 * polls it and completes {@link #parentGone()}, which the command waits on; its {@code main} then exits with
 * {@link ExitCodes#PARENT_GONE} through the shutdown hooks. The watchdog never exits the JVM itself.
 */
public final class ParentWatchdog implements AutoCloseable {
    public static final String ENVIRONMENT_VARIABLE = "GARGAMEL_PARENT_PID";
    private static final Logger LOG = LoggerFactory.getLogger(ParentWatchdog.class);
    /**
     * Each poll reads and parses /proc/PID/stat: at 250 ms that was 0.3-0.9% of a node JVM's CPU under TPC-C
     * (async-profiler); an orphan living one second longer costs nothing.
     */
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

    private final CompletableFuture<Long> parentGone = new CompletableFuture<>();
    private Thread watcher;

    private ParentWatchdog() {}

    /**
     * Watches the process named by {@value #ENVIRONMENT_VARIABLE}; watches nothing if the variable is not set.
     *
     * @throws IllegalArgumentException if the variable is set but is not a process id
     */
    public static ParentWatchdog fromEnvironment() {
        String value = System.getenv(ENVIRONMENT_VARIABLE);
        if (value == null || value.isBlank()) {
            return new ParentWatchdog();
        }
        try {
            return watching(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(ENVIRONMENT_VARIABLE + " '" + value + "' is not a process id");
        }
    }

    /** Watches process {@code pid}; {@link #parentGone()} is complete at once if it does not run. */
    public static ParentWatchdog watching(long pid) {
        ParentWatchdog watchdog = new ParentWatchdog();
        Optional<ProcessHandle> parent = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (parent.isEmpty()) {
            watchdog.gone(pid);
            return watchdog;
        }
        watchdog.watcher = new Thread(() -> watchdog.watch(parent.get()), "parent-watchdog");
        watchdog.watcher.setDaemon(true);
        watchdog.watcher.start();
        return watchdog;
    }

    /** Completed with the parent's pid once it is gone; never completed if there is no parent to watch. */
    public CompletableFuture<Long> parentGone() {
        return parentGone;
    }

    private void watch(ProcessHandle parent) {
        try {
            while (parent.isAlive()) {
                Thread.sleep(POLL_INTERVAL.toMillis());
            }
        } catch (InterruptedException e) {
            return; // closed
        }
        gone(parent.pid());
    }

    private void gone(long pid) {
        LOG.warn("parent process {} is gone; stopping", pid);
        parentGone.complete(pid);
    }

    /** Stops watching (the command is over). */
    @Override
    public void close() {
        if (watcher != null) {
            watcher.interrupt();
            try {
                watcher.join(POLL_INTERVAL.multipliedBy(4).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
