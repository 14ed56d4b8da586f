package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * How often a process's threads gave up a core, from Linux's {@code /proc/PID/task/TID/status}
 * ({@code voluntary_ctxt_switches}, a thread that blocked or parked, plus {@code nonvoluntary_ctxt_switches}, one the
 * scheduler preempted). Every hand-off of a message from one thread to another costs a wake-up and usually a switch at
 * each end, so switches per call count the hand-offs a call crosses, which CPU time alone hides (docs/costs.md: 35–46%
 * of every Gargamel process's samples end in the kernel, in park and unpark).
 *
 * <p>Counted by thread ({@link ThreadCounters}): a thread that ended between two readings takes its switches with it
 * (JGroups' pool threads come and go), so the figure is a lower bound.
 */
public final class ContextSwitches {
    private final Path proc;

    /** Reads under {@code proc}, the root of a {@code /proc} tree (another one in tests). */
    public ContextSwitches(Path proc) {
        this.proc = proc;
    }

    /** This machine's {@code /proc}. */
    public static ContextSwitches ofThisMachine() {
        return new ContextSwitches(Path.of("/proc"));
    }

    /** Thread id to context switches so far (voluntary and not) of each thread of process {@code pid}; empty if gone. */
    public Map<Long, Long> byThread(long pid) {
        return ThreadCounters.read(proc, pid, thread -> switches(thread.resolve("status")));
    }

    /** The two counters of one thread's status file summed; -1 if it is gone or has neither line. */
    static long switches(Path status) {
        try {
            long count = -1;
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    count = Math.max(count, 0)
                            + Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return count;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
