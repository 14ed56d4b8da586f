package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gargamel profile --collapsed}: existing profiles drawn and broken down, and the command's bad usage.
 * Profiling a running JVM: {@code org.gargamel.launcher.profile.ProcessProfilerTest}.
 */
@Tag("unit")
class ProfileCommandTest {
    private static final String NODE = """
            java/lang/Thread.run_[j];org/gargamel/node/execution/Worker.run_[j];a/Sql.run_[j] 6
            java/lang/Thread.run_[j];org/gargamel/node/apply/ApplyLoop.run_[j];futex_wait_[k] 2
            start_thread;CompileBroker::compiler_thread_loop 2
            """;

    @Test
    void collapsedFilesAreDrawnAndBrokenDownByStage(@TempDir Path directory) throws Exception {
        Path file = Files.writeString(directory.resolve("node-1.collapsed"), NODE);
        Path out = directory.resolve("out");
        CommandRunner run = CommandRunner.run("profile", "--collapsed", file.toString(), "--out", out.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().lines().anyMatch(line -> line.matches("worker \\(execute\\) +60\\.0%")), run.out());
        assertTrue(run.out().lines().anyMatch(line -> line.matches("kernel \\(leaf frame\\) +20\\.0%")), run.out());
        assertTrue(Files.readString(out.resolve("node-1.svg")).contains("<title>a/Sql.run (Java): 6 samples, 60.00%"));
        JsonNode node = new ObjectMapper()
                .readTree(out.resolve("profile.json").toFile())
                .get("node-1");
        assertEquals(10, node.get("samples").asLong(), node.toString());
        assertEquals(0.2, node.get("stages").get("apply loop").asDouble(), 1e-9);
        assertEquals(0.2, node.get("stages").get("JIT compiler").asDouble(), 1e-9);
        assertEquals(0.2, node.get("kernelShare").asDouble(), 1e-9);
        assertEquals("a/Sql.run", node.get("topSelfFrames").get(0).get("frame").asText());
        assertEquals(
                "org/gargamel/node/apply/ApplyLoop.run",
                node.get("kernelNearestJavaFrames").get(0).get("frame").asText());
        assertTrue(node.get("pid") == null, "no pid for a profile read from a file");
    }

    @Test
    void aLineThatIsNotAStackIsOneErrorNamingFileAndLine(@TempDir Path directory) throws Exception {
        Path file = Files.writeString(directory.resolve("node-1.collapsed"), NODE + "a;b;c many\n");
        CommandRunner run = CommandRunner.run(
                "profile",
                "--collapsed",
                file.toString(),
                "--out",
                directory.resolve("out").toString());
        assertEquals(1, run.exitCode(), run.toString());
        assertTrue(run.errorLine().contains(file + ", line 4: not a collapsed stack"), run.toString());
    }

    @Test
    void badUsageIsRefusedBeforeAnythingRuns(@TempDir Path directory) throws Exception {
        Path file = Files.writeString(directory.resolve("node-1.collapsed"), NODE);
        String out = directory.resolve("out").toString();
        assertUsage(CommandRunner.run("profile", "--out", out), "either --pid ROLE=PID");
        assertUsage(
                CommandRunner.run("profile", "--pid", "node-1=1", "--collapsed", file.toString(), "--out", out),
                "not both");
        assertUsage(
                CommandRunner.run("profile", "--collapsed", file.toString(), "--duration", "5s", "--out", out),
                "--duration");
        assertUsage(CommandRunner.run("profile", "--pid", "node-1=x", "--out", out), "--pid");
        assertUsage(CommandRunner.run("profile", "--pid", "../node=1", "--out", out), "a role is a file name");
        assertUsage(
                CommandRunner.run("profile", "--pid", "node-1=7", "--pid", "node-2=7", "--out", out),
                "pid 7 is given twice, as node-1 and node-2");
        assertTrue(Files.notExists(Path.of(out)), "nothing was written");
    }

    private static void assertUsage(CommandRunner run, String expected) {
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.errorLine().startsWith("gargamel: error:"), run.toString());
        assertTrue(run.errorLine().contains(expected), run.toString());
    }
}
