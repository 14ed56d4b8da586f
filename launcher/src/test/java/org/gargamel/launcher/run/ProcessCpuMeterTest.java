package org.gargamel.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gargamel.tpcc.result.RunCpu;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The run's CPU by role, read from /proc: this process's own work counts for the client, and a server's counts with
 * every process of it, one that already ended included (its parent reaped it: cutime); a Java role's JIT compiler
 * threads' share is taken apart.
 */
@Tag("unit")
class ProcessCpuMeterTest {
    @Test
    void ownWorkCountsForTheClientAndAServersEndedChildForTheServer() throws Exception {
        assertTrue(ProcessCpuMeter.available(), "these machines run Linux, whose /proc the meter reads");
        // A "server": a shell whose child burns CPU and ends, then the shell waits, alive, to be read.
        Process server = new ProcessBuilder(
                        "sh", "-c", "sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done'; sleep 30")
                .start();
        try {
            ProcessCpuMeter meter = new ProcessCpuMeter(Map.of(), Map.of("postgres", List.of(server.pid())));
            ProcessCpuMeter.Reading before = meter.read();
            // 300 ms of this thread's own CPU, however long a loaded machine takes to give it.
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long burnUntil = threads.getCurrentThreadCpuTime() + TimeUnit.MILLISECONDS.toNanos(300);
            long spins = 0;
            while (threads.getCurrentThreadCpuTime() < burnUntil) {
                spins++;
            }
            awaitChildEnded(server);
            RunCpu cpu = ProcessCpuMeter.between(before, meter.read(), 100);
            assertTrue(spins > 0);
            assertEquals(100, cpu.calls());
            // At least those 300 ms, less a 10 ms tick of rounding at each reading: 2.8 ms per call.
            assertTrue(cpu.msPerCall().get("client") >= 2.8, cpu.toString());
            // The child's loop took CPU and ended before the second reading: it counts through its parent.
            assertTrue(cpu.msPerCall().get("postgres") > 0, cpu.toString());
            assertTrue(cpu.msPerCall().get(RunCpu.HOST) >= cpu.msPerCall().get("client"), cpu.toString());
            assertTrue(cpu.hostBusyCores() > 0 && cpu.hostCores() >= 1, cpu.toString());
            // The client is a JVM: its compilers' share is read and taken out; a server's is not (no JIT).
            assertTrue(cpu.jitMsPerCall().containsKey("client"), cpu.toString());
            assertFalse(cpu.jitMsPerCall().containsKey("postgres"), cpu.toString());
            assertEquals(
                    cpu.msPerCall().get("client"),
                    cpu.jitMsPerCall().get("client") + cpu.msPerCallLessJit().get("client"),
                    0.002,
                    cpu.toString());
            assertTrue(cpu.msPerCallLessJit().get("client") >= 2.8, "the busy loop is not the JIT's: " + cpu);
            // Context switches are read of the Java roles only, by thread.
            assertTrue(cpu.contextSwitchesPerCall().containsKey("client"), cpu.toString());
            assertFalse(cpu.contextSwitchesPerCall().containsKey("postgres"), cpu.toString());
        } finally {
            server.destroyForcibly();
        }
    }

    /** Until the busy child has ended and only the waiting {@code sleep} is left under the shell. */
    private static void awaitChildEnded(Process server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            boolean sleeping = server.descendants()
                    .anyMatch(p -> p.info().command().orElse("").endsWith("sleep"));
            if (sleeping) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the server's busy child did not end within 20 s");
    }
}
