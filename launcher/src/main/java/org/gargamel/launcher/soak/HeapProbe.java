package org.gargamel.launcher.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The heap a JVM retains: a full collection is asked of it, then its used heap is read. What stays after a full
 * collection is what the process holds; a number that grows from one sample to the next over an hour is a leak. (The
 * usage after the latest collection, without forcing one, is no measure with the serial collector the cluster's
 * processes run: a young collection leaves the old generation's garbage counted until the next full one, which a large
 * heap seldom runs, so the figure climbs between full collections whether anything leaks or not.) The price: a full
 * collection of each process at every sample, tens to hundreds of milliseconds every 30 s.
 *
 * <p>This JVM is read directly ({@code MemoryMXBean.gc}, then its heap usage). Another JVM of this user is sent two
 * diagnostic commands through its attach socket ({@link AttachClient}): {@code GC.run} (the same full collection),
 * then {@code GC.heap_info}, whose used heap {@link HeapInfo} reads. Not JMX: its connector is RMI over TCP to the
 * target's loopback, which a process in another network namespace (the soak's nodes, for its partitions) does not
 * share with this one; the attach socket is a file, reached through {@code /proc/PID/root} in any namespace
 * ({@code HeapProbeTest} reads a JVM in another network namespace). A command the target does not answer within 20 s
 * (thrashing near its heap's limit, or stopped) is abandoned, and the sample has no heap for it.
 *
 * <p>A process is attached to only once it handles SIGQUIT ({@code SigCgt} in {@code /proc/PID/status}): before a JVM
 * has installed its signal handlers, the attach request's SIGQUIT would kill it (JDK 17 does not check), and a process
 * is listed as soon as it is started again after a fault.
 */
final class HeapProbe implements AutoCloseable {
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);

    private final AttachClient attach;

    HeapProbe() {
        this(COMMAND_TIMEOUT);
    }

    /** @param commandTimeout how long each diagnostic command sent to another JVM may take */
    HeapProbe(Duration commandTimeout) {
        this.attach = new AttachClient(commandTimeout);
    }

    /** The heap {@code pid} retains after a full collection, in bytes; empty if it cannot be read (yet). */
    OptionalLong retainedAfterGc(long pid) {
        if (pid == ProcessHandle.current().pid()) {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            memory.gc();
            return OptionalLong.of(memory.getHeapMemoryUsage().getUsed());
        }
        if (!handlesSigquit(pid)) {
            return OptionalLong.empty(); // starting: not attachable yet
        }
        try {
            attach.jcmd(pid, "GC.run");
            return HeapInfo.usedBytes(attach.jcmd(pid, "GC.heap_info"));
        } catch (IOException | RuntimeException | LinkageError e) {
            return OptionalLong.empty(); // gone, restarted, not a JVM any more, or not answering
        }
    }

    /** Whether {@code pid} catches SIGQUIT (signal 3): a JVM does once its signal handlers are installed. */
    static boolean handlesSigquit(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("SigCgt:")) {
                    long caught = Long.parseUnsignedLong(
                            line.substring("SigCgt:".length()).trim(), 16);
                    return (caught & (1L << (3 - 1))) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return false;
    }

    /** Forgets what it knows of processes not in {@code live}. */
    void keepOnly(Set<Long> live) {
        attach.keepOnly(live);
    }

    @Override
    public void close() {
        attach.close();
    }
}
