package org.gargamel.launcher.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.gargamel.common.testing.Await;
import org.gargamel.launcher.GargamelMain;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real async-profiler in a real JVM: a child JVM spinning in one method ({@link BusyLoop}) is profiled until it
 * has spent a second of CPU, and its collapsed stacks must show that method.
 */
@Tag("integration")
class ProcessProfilerTest {
    private static final String BUSY_FRAME = "org/gargamel/launcher/profile/BusyLoop.spinForProfiler";

    private static Process busy;

    @BeforeAll
    static void startBusyLoop() throws Exception {
        Path classes = Path.of(BusyLoop.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        busy = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx32m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classes.toString(),
                        BusyLoop.class.getName())
                .redirectErrorStream(true)
                .start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(busy.getInputStream(), StandardCharsets.UTF_8));
        String first = CompletableFuture.supplyAsync(() -> {
                    try {
                        return output.readLine();
                    } catch (IOException e) {
                        return "(unreadable: " + e + ")";
                    }
                })
                .get(30, TimeUnit.SECONDS);
        assertEquals(BusyLoop.READY, first, "the busy JVM's first line");
    }

    @AfterAll
    static void stopBusyLoop() throws InterruptedException {
        if (busy != null) {
            busy.destroyForcibly();
            busy.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theProfileOfABusyJvmShowsItsBusyMethod(@TempDir Path out) throws Exception {
        ProfileSession session = ProcessProfiler.start(Map.of("busy", busy.pid()), out);
        Map<String, ProfileResult> results;
        try {
            awaitCpu(busy, Duration.ofSeconds(1));
        } finally {
            results = session.stop();
        }
        ProfileResult.Written written =
                assertInstanceOf(ProfileResult.Written.class, results.get("busy"), results::toString);
        assertEquals(busy.pid(), written.pid());
        assertEquals(out.resolve("busy.collapsed"), written.collapsed());
        assertTrue(Set.of("cpu", "itimer").contains(written.event()), written.event());
        CollapsedStacks profile = CollapsedStacks.read(written.collapsed());
        long inBusyMethod = profile.stacks().stream()
                .filter(stack -> stack.frames().contains(new Frame(BUSY_FRAME, FrameKind.JAVA)))
                .mapToLong(CollapsedStacks.Stack::samples)
                .sum();
        assertTrue(
                inBusyMethod >= 100 && inBusyMethod * 4 >= profile.samples(),
                () -> inBusyMethod + " of " + profile.samples() + " samples in " + BUSY_FRAME + "; top frames: "
                        + StageBreakdown.of(profile, 5).topSelfFrames());
        assertSame(results, session.stop(), "stopping again returns the same results");
        assertTrue(Files.notExists(out.resolve("busy.profiler.log")), "the log is removed when all went well");
    }

    @Test
    void theCommandProfilesTheBusyJvmAndDrawsIt(@TempDir Path out) throws Exception {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code;
        try (PrintStream outStream = new PrintStream(stdout, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
            code = GargamelMain.run(
                    new String[] {"profile", "--pid", "busy=" + busy.pid(), "--duration", "1s", "--out", out.toString()
                    },
                    outStream,
                    errStream);
        }
        String err = stderr.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err);
        assertTrue(stdout.toString(StandardCharsets.UTF_8).startsWith("share of CPU samples"), stdout::toString);
        JsonNode json = new ObjectMapper()
                .readTree(out.resolve("profile.json").toFile())
                .get("busy");
        assertEquals(busy.pid(), json.get("pid").asLong(), json::toString);
        long samples = json.get("samples").asLong();
        assertTrue(samples > 0, json::toString);
        assertEquals(
                samples, CollapsedStacks.read(out.resolve("busy.collapsed")).samples());
        String svg = Files.readString(out.resolve("busy.svg"));
        assertTrue(svg.contains("<title>" + BUSY_FRAME + " (Java): "), "the flame graph has the busy method");
    }

    @Test
    void aProcessThatIsNotAJvmIsRefusedAndLeftAlone(@TempDir Path out) throws Exception {
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            ProfilerException refused = assertThrows(
                    ProfilerException.class,
                    () -> ProcessProfiler.start(Map.of("busy", busy.pid(), "postgres", sleep.pid()), out));
            assertTrue(
                    refused.getMessage().startsWith("postgres (pid " + sleep.pid() + ") is not a running JVM"),
                    refused.getMessage());
            assertTrue(sleep.isAlive(), "the process was not signalled");
            assertEquals(List.of(), listing(out), "nothing was started, so nothing was written");
        } finally {
            sleep.destroyForcibly();
        }
    }

    private static List<Path> listing(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }

    /** Waits until {@code process} has spent {@code cpu} more CPU time than now (its own, read from /proc). */
    private static void awaitCpu(Process process, Duration cpu) throws InterruptedException {
        Duration start = cpuTime(process);
        Await.until(
                "the busy JVM to spend " + cpu.toMillis() + " ms of CPU",
                Duration.ofSeconds(60),
                () -> cpuTime(process).minus(start).compareTo(cpu) >= 0,
                () -> cpuTime(process).minus(start));
    }

    private static Duration cpuTime(Process process) {
        return process.info().totalCpuDuration().orElseThrow(() -> new AssertionError("no CPU time for the JVM"));
    }
}
