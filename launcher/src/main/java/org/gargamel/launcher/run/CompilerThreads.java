package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The CPU of a JVM's JIT compiler threads, from Linux's {@code /proc/PID/task/TID/stat}: HotSpot names them "C1
 * CompilerThreadN" and "C2 CompilerThreadN", which the kernel keeps as {@code comm} cut to 15 characters ("C2
 * CompilerThre"). What a run's steady state would spend is its CPU less theirs ({@code bench costs}, issue 40: on 2
 * cores C2 still takes about a fifth of a node JVM's CPU 150 s into a run).
 *
 * <p>Counted by thread: HotSpot starts compiler threads as the queue grows and ends idle ones
 * ({@code UseDynamicNumberOfCompilerThreads}), so between two readings a thread that is new counts from 0, and one that
 * ended counts nothing (what it spent between the readings is lost: the figure is a lower bound, never negative).
 */
public final class CompilerThreads {
    /** The prefixes of the compiler threads' {@code comm}. */
    static final String C1 = "C1 CompilerThre";

    static final String C2 = "C2 CompilerThre";

    private final Path proc;

    /** Reads under {@code proc}, the root of a {@code /proc} tree (another one in tests). */
    public CompilerThreads(Path proc) {
        this.proc = proc;
    }

    /** This machine's {@code /proc}. */
    public static CompilerThreads ofThisMachine() {
        return new CompilerThreads(Path.of("/proc"));
    }

    /** Whether a thread named {@code comm} compiles for the JIT. */
    static boolean isCompiler(String comm) {
        return comm.startsWith(C1) || comm.startsWith(C2);
    }

    /** Thread id to own ticks ({@code utime + stime}) of each compiler thread of process {@code pid}; empty if gone. */
    public Map<Long, Long> ticksByThread(long pid) {
        Map<Long, Long> ticks = new HashMap<>();
        Path tasks = proc.resolve(Long.toString(pid)).resolve("task");
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                Optional<ProcStat> stat = ProcStat.read(thread.resolve("stat"));
                if (stat.isPresent() && isCompiler(stat.get().comm())) {
                    ticks.put(
                            Long.parseLong(thread.getFileName().toString()),
                            stat.get().ownTicks());
                }
            }
        } catch (IOException | RuntimeException e) {
            // The process is gone, or this is not Linux: nothing to count.
        }
        return ticks;
    }

    /**
     * Ticks the compiler threads spent from reading {@code from} to reading {@code to}, thread by thread: a thread new
     * in {@code to} from 0, one gone from {@code to} not at all (see the class comment).
     */
    public static long spent(Map<Long, Long> from, Map<Long, Long> to) {
        long ticks = 0;
        for (Map.Entry<Long, Long> thread : to.entrySet()) {
            ticks += Math.max(0, thread.getValue() - from.getOrDefault(thread.getKey(), 0L));
        }
        return ticks;
    }
}
