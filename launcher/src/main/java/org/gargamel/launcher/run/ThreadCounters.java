package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * A counter kept by Linux per thread ({@code /proc/PID/task/TID/...}), read for every thread of a process, and how much
 * it grew between two readings. Counted by thread, since threads start and end between readings: one new in the later
 * reading counts from 0, one gone from it not at all (what it did between the readings is lost: a lower bound, never
 * negative). {@link CompilerThreads} and {@link ContextSwitches} read theirs this way.
 */
final class ThreadCounters {
    private ThreadCounters() {}

    /**
     * Thread id to counter of each thread of process {@code pid} under {@code proc}: {@code counter} reads it from the
     * thread's directory, negative for a thread that does not count. Empty if the process is gone.
     */
    static Map<Long, Long> read(Path proc, long pid, ToLongFunction<Path> counter) {
        Map<Long, Long> counters = new HashMap<>();
        Path tasks = proc.resolve(Long.toString(pid)).resolve("task");
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                long value = counter.applyAsLong(thread);
                if (value >= 0) {
                    counters.put(Long.parseLong(thread.getFileName().toString()), value);
                }
            }
        } catch (IOException | RuntimeException e) {
            // The process is gone, or this is not Linux: nothing to count.
        }
        return counters;
    }

    /** How much the counters grew from reading {@code from} to reading {@code to}, thread by thread (class comment). */
    static long spent(Map<Long, Long> from, Map<Long, Long> to) {
        long grown = 0;
        for (Map.Entry<Long, Long> thread : to.entrySet()) {
            grown += Math.max(0, thread.getValue() - from.getOrDefault(thread.getKey(), 0L));
        }
        return grown;
    }
}
