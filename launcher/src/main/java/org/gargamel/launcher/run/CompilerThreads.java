package org.gargamel.launcher.run;

import java.nio.file.Path;
import java.util.Map;

/**
 * The CPU of a JVM's JIT compiler threads, from Linux's {@code /proc/PID/task/TID/stat}: HotSpot names them "C1
 * CompilerThreadN" and "C2 CompilerThreadN", which the kernel keeps as {@code comm} cut to 15 characters ("C2
 * CompilerThre"). What a run's steady state would spend is its CPU less theirs ({@code bench costs}, issue 40: on 2
 * cores C2 still takes about a fifth of a node JVM's CPU 150 s into a run).
 *
 * <p>Counted by thread ({@link ThreadCounters}): HotSpot starts compiler threads as the queue grows and ends idle ones
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
        return ThreadCounters.read(
                proc,
                pid,
                thread -> ProcStat.read(thread.resolve("stat"))
                        .filter(stat -> isCompiler(stat.comm()))
                        .map(ProcStat::ownTicks)
                        .orElse(-1L));
    }
}
