package org.gargamel.launcher.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.testing.Await;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler reads another JVM of this user as it reads the cluster's processes: through its attach socket, the heap
 * it retains after a full collection (which this test makes hold about 64 MB), its threads and open files; a data
 * directory's size. The same JVM started in another network namespace (as the soak starts nodes, to cut them off) is
 * read the same way, which JMX, over the target's loopback, could not; a stopped JVM costs a sample the command's
 * deadline, not the sampler, and is read again once it runs.
 */
@Tag("integration")
class HeapProbeTest {
    /** A JVM that retains about 64 MB, collects, says its pid and waits to be read. */
    public static final class Holder {
        @SuppressWarnings("unused")
        private static byte[][] held;

        public static void main(String[] args) throws Exception {
            held = new byte[64][];
            for (int i = 0; i < held.length; i++) {
                held[i] = new byte[1 << 20];
            }
            System.gc();
            System.out.println("held " + ProcessHandle.current().pid());
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2));
        }
    }

    @Test
    void anotherJvmsRetainedHeapThreadsAndFilesAreRead(@TempDir Path directory) throws Exception {
        Process child = startHolder(List.of());
        try (HeapProbe probe = new HeapProbe()) {
            long pid = heldBy(child);
            assertEquals(child.pid(), pid);
            Await.until(
                    "the child's heap read through its attach socket",
                    Duration.ofSeconds(30),
                    () -> probe.retainedAfterGc(pid).isPresent());
            OptionalLong heap = probe.retainedAfterGc(pid);
            long retained = heap.getAsLong();
            assertTrue(retained > 60_000_000 && retained < 200_000_000, "retained " + retained);
            ProcessResources resources = ProcessResources.read(pid, heap).orElseThrow();
            assertTrue(resources.threads() > 3, resources.toString());
            assertTrue(resources.openFiles() > 2, resources.toString());
            assertTrue(resources.residentBytes() > retained, resources.toString());

            Files.write(directory.resolve("segment"), new byte[4096]);
            Files.createDirectories(directory.resolve("sub"));
            Files.write(directory.resolve("sub").resolve("more"), new byte[1000]);
            ResourceSampler sampler = new ResourceSampler(
                    () -> Map.of("holder", pid), Map.of("node-1", directory), () -> 7, Duration.ofHours(1));
            sampler.start().close(); // one sample at start, one at close
            List<ResourceSample> samples = sampler.samples();
            assertTrue(samples.size() == 2, samples.toString());
            assertTrue(samples.get(0).processes().get("holder").heapAfterGcBytes() > 60_000_000, samples.toString());
            assertTrue(samples.get(0).dataDirectoryBytes().get("node-1") == 5096, samples.toString());
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aJvmInAnotherNetworkNamespaceIsRead() throws Exception {
        assumeTrue(
                isRoot(),
                "creating a network namespace takes root: not root here, so not tested (this project's CI runs as"
                        + " root and tests it)");
        String namespace = "gargamel-heap-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", namespace);
        Process child = null;
        long pid = -1;
        try {
            child = startHolder(List.of("ip", "netns", "exec", namespace));
            pid = heldBy(child);
            assertNotEquals(
                    Files.readSymbolicLink(Path.of("/proc/self/ns/net")),
                    Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")),
                    "the child runs in a network namespace of its own");
            try (HeapProbe probe = new HeapProbe()) {
                long heldPid = pid;
                Await.until(
                        "the heap of the child in network namespace " + namespace + " read",
                        Duration.ofSeconds(30),
                        () -> probe.retainedAfterGc(heldPid).isPresent());
                long retained = probe.retainedAfterGc(pid).getAsLong();
                assertTrue(retained > 60_000_000 && retained < 200_000_000, "retained " + retained);
            }
        } finally {
            if (child != null) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            run("ip", "netns", "delete", namespace);
        }
    }

    @Test
    void aStoppedJvmCostsTheDeadlineAndIsReadOnceItRuns() throws Exception {
        Process child = startHolder(List.of());
        Duration deadline = Duration.ofSeconds(1);
        try (HeapProbe probe = new HeapProbe(deadline)) {
            long pid = heldBy(child);
            Await.until(
                    "the child's heap read",
                    Duration.ofSeconds(30),
                    () -> probe.retainedAfterGc(pid).isPresent());
            run("kill", "-STOP", Long.toString(pid));
            long start = System.nanoTime();
            OptionalLong stopped = probe.retainedAfterGc(pid);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(stopped.isEmpty(), "a stopped process read: " + stopped);
            assertTrue(
                    took.compareTo(deadline) >= 0 && took.compareTo(Duration.ofSeconds(10)) < 0,
                    "the read of a stopped process gave up after " + took + ", its deadline " + deadline);
            run("kill", "-CONT", Long.toString(pid));
            Await.until(
                    "the child's heap read again once it runs",
                    Duration.ofSeconds(30),
                    () -> probe.retainedAfterGc(pid).isPresent());
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A {@link Holder} started by {@code prefix} (a command that runs another, or none). */
    private static Process startHolder(List<String> prefix) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Holder.class.getName()));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The pid {@code child}'s holder says once it holds its 64 MB. */
    private static long heldBy(Process child) throws IOException {
        String line =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("held "), "the child said: " + line);
        return Long.parseLong(line.substring("held ".length()));
    }

    private static boolean isRoot() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + output);
    }
}
