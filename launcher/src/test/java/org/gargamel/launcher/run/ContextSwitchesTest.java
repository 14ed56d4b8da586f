package org.gargamel.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A process's context switches by thread, read from a {@code /proc} tree: a fake one written here and this JVM's. */
@Tag("unit")
class ContextSwitchesTest {
    @TempDir
    Path proc;

    @Test
    void everyThreadOfTheProcessCountsItsVoluntaryAndInvoluntarySwitches() throws IOException {
        thread(100, 100, 40, 2);
        thread(100, 101, 7, 0);
        thread(200, 201, 1000, 1000);
        // A thread whose status file has no counters (a kernel without them) counts nothing.
        Files.createDirectories(proc.resolve("100/task/102"));
        Files.writeString(proc.resolve("100/task/102/status"), "Name:\tjava\nState:\tS (sleeping)\n");

        assertEquals(Map.of(100L, 42L, 101L, 7L), new ContextSwitches(proc).byThread(100));
        assertTrue(new ContextSwitches(proc).byThread(999).isEmpty(), "a process that is gone has none");
    }

    @Test
    void aThreadThatSleepsSwitches() throws IOException, InterruptedException {
        // The link resolves to /proc/PID/task/TID of the thread that reads it.
        long self = Long.parseLong(
                Path.of("/proc/thread-self").toRealPath().getFileName().toString());
        long pid = ProcessHandle.current().pid();
        Map<Long, Long> before = ContextSwitches.ofThisMachine().byThread(pid);
        Thread.sleep(20);
        Map<Long, Long> after = ContextSwitches.ofThisMachine().byThread(pid);

        assertTrue(before.containsKey(self), "this thread (" + self + ") is one of the process's: " + before.keySet());
        assertTrue(after.get(self) > before.get(self), "a sleep gives up the core: " + before.get(self));
    }

    private void thread(long pid, long tid, long voluntary, long involuntary) throws IOException {
        Path task = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
        Files.writeString(
                task.resolve("status"),
                "Name:\tjava\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t" + voluntary
                        + "\nnonvoluntary_ctxt_switches:\t" + involuntary + "\n");
    }
}
