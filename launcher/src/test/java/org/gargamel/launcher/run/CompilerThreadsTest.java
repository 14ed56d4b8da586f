package org.gargamel.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM's JIT compiler threads and their CPU, read from a {@code /proc} tree: a fake one written here (whose figures
 * are known) and this JVM's own.
 */
@Tag("unit")
class CompilerThreadsTest {
    @TempDir
    Path proc;

    @Test
    void onlyTheC1AndC2CompilerThreadsOfTheProcessCountWithTheirOwnTicks() throws IOException {
        thread(100, 100, "java", 500, 20);
        thread(100, 101, "C2 CompilerThre", 70, 5);
        thread(100, 102, "C1 CompilerThre", 30, 2);
        thread(100, 103, "GC Thread#0", 40, 1);
        thread(100, 104, "VM Thread", 9, 1);
        // Another process's compiler thread is not this one's.
        thread(200, 201, "C2 CompilerThre", 1000, 0);

        Map<Long, Long> ticks = new CompilerThreads(proc).ticksByThread(100);

        assertEquals(Map.of(101L, 75L, 102L, 32L), ticks);
        assertTrue(new CompilerThreads(proc).ticksByThread(999).isEmpty(), "a process that is gone has none");
    }

    @Test
    void betweenTwoReadingsAThreadCountsFromItsFirstReadingANewOneFromZeroAndAnEndedOneNotAtAll() {
        Map<Long, Long> from = Map.of(101L, 10L, 102L, 5L);
        // 101 went on (+15), 102 ended (its ticks since the first reading are lost), 104 started (3).
        Map<Long, Long> to = Map.of(101L, 25L, 104L, 3L);

        assertEquals(18, ThreadCounters.spent(from, to));
        assertEquals(0, ThreadCounters.spent(to, to), "nothing spent between two equal readings");
    }

    @Test
    void aStatLineIsReadAfterTheLastParenthesisOfItsName() {
        ProcStat stat = ProcStat.parse(statLine(7, "a) (b c", 11, 12, 13, 14));

        assertEquals("a) (b c", stat.comm());
        assertEquals(23, stat.ownTicks());
        assertEquals(13, stat.cutime());
        assertEquals(14, stat.cstime());
    }

    @Test
    void thisJvmHasCompilerThreadsAndTheyHaveCompiled() {
        // Surefire's JVM compiles as any JVM does (tiered: C1, and C2 unless stopped at level 1): by now, some code.
        Map<Long, Long> ticks = CompilerThreads.ofThisMachine()
                .ticksByThread(ProcessHandle.current().pid());

        assertFalse(ticks.isEmpty(), "no thread named 'C1 CompilerThre' or 'C2 CompilerThre' in /proc/self/task");
        assertTrue(
                ticks.keySet().stream().allMatch(tid -> Files.exists(Path.of("/proc/self/task/" + tid))),
                "the thread ids are this process's: " + ticks);
    }

    private void thread(long pid, long tid, String comm, long utime, long stime) throws IOException {
        Path task = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
        Files.writeString(task.resolve("stat"), statLine(tid, comm, utime, stime, 0, 0));
    }

    /** A stat line as Linux writes it: pid (comm) state, then the numeric fields, utime the 14th of the line. */
    private static String statLine(long id, String comm, long utime, long stime, long cutime, long cstime) {
        return id + " (" + comm + ") S 1 1 1 0 -1 4194368 100 0 0 0 " + utime + " " + stime + " " + cutime + " "
                + cstime + " 20 0 30 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
    }
}
