package org.gargamel.launcher.server;

import java.util.Optional;

/**
 * Makes a child JVM (scheduler, node) end when the process that started it is gone, so a demo killed
 * with SIGKILL leaves no orphaned Gargamel process behind. The parent passes its pid in
 * {@value #ENVIRONMENT_VARIABLE}; the child polls it and exits through its shutdown hooks.
 */
public final class ParentWatchdog {
    public static final String ENVIRONMENT_VARIABLE = "GARGAMEL_PARENT_PID";
    /** Exit code of a child whose parent vanished (128 + SIGTERM, as if it had been terminated). */
    public static final int EXIT_PARENT_GONE = 143;

    private ParentWatchdog() {
    }

    /** Starts watching if the environment names a parent; a no-op otherwise. */
    public static void startIfRequested() {
        String value = System.getenv(ENVIRONMENT_VARIABLE);
        if (value == null || value.isBlank()) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(ENVIRONMENT_VARIABLE + " '" + value + "' is not a process id");
        }
        Optional<ProcessHandle> parent = ProcessHandle.of(pid);
        if (parent.isEmpty() || !parent.get().isAlive()) {
            System.err.println("gargamel: parent process " + pid + " is gone; exiting");
            System.exit(EXIT_PARENT_GONE);
        }
        Thread watcher = new Thread(() -> {
            ProcessHandle handle = parent.get();
            while (handle.isAlive()) {
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.err.println("gargamel: parent process " + pid + " is gone; exiting");
            System.exit(EXIT_PARENT_GONE);
        }, "parent-watchdog");
        watcher.setDaemon(true);
        watcher.start();
    }
}
