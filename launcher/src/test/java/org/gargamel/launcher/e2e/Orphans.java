package org.gargamel.launcher.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Remembers every process a command starts (polling its descendants), to check later that none survived it. */
final class Orphans {
    private Orphans() {}

    /** Collects {@code root}'s descendants in the background until it exits; the list fills as they appear. */
    static List<ProcessHandle> watchDescendants(Process root) {
        Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();
        List<ProcessHandle> view = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread watcher = new Thread(
                () -> {
                    while (root.isAlive()) {
                        root.descendants().forEach(handle -> {
                            if (seen.add(handle)) {
                                view.add(handle);
                            }
                        });
                        try {
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "descendant-watcher");
        watcher.setDaemon(true);
        watcher.start();
        return view;
    }

    /** Waits until at least {@code count} descendants have been seen; fails naming how many after the timeout. */
    static void awaitAtLeast(List<ProcessHandle> processes, int count, long timeoutSeconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        while (processes.size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected at least " + count + " processes within " + timeoutSeconds
                        + " s, saw " + processes.size());
            }
            Thread.sleep(100);
        }
    }

    /** Every process seen is gone (allowing a few seconds for a watchdog to notice its parent died). */
    static void assertAllGone(List<ProcessHandle> processes, String context) throws InterruptedException {
        long deadline = System.nanoTime() + 15_000_000_000L;
        List<ProcessHandle> alive = new ArrayList<>();
        do {
            alive.clear();
            for (ProcessHandle handle : processes) {
                if (handle.isAlive()) {
                    alive.add(handle);
                }
            }
            if (alive.isEmpty()) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        StringBuilder names = new StringBuilder();
        for (ProcessHandle handle : alive) {
            names.append("\n  pid ")
                    .append(handle.pid())
                    .append(": ")
                    .append(handle.info().commandLine().orElse("?"));
            handle.destroyForcibly();
        }
        throw new AssertionError("processes outlived the command:" + names + "\noutput:\n" + context);
    }
}
