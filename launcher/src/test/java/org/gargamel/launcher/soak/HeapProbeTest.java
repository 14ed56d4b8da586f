package org.gargamel.launcher.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.testing.Await;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler reads another JVM of this user as it reads the cluster's processes: through the Attach API and its local
 * management agent, the heap it retained after its latest collection (which this test makes hold about 64 MB), its
 * threads and open files; a data directory's size.
 */
@Tag("integration")
class HeapProbeTest {
    /** A JVM that retains about 64 MB, collects and waits to be read. */
    public static final class Holder {
        @SuppressWarnings("unused")
        private static byte[][] held;

        public static void main(String[] args) throws Exception {
            held = new byte[64][];
            for (int i = 0; i < held.length; i++) {
                held[i] = new byte[1 << 20];
            }
            System.gc();
            System.out.println("held");
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2));
        }
    }

    @Test
    void anotherJvmsRetainedHeapThreadsAndFilesAreRead(@TempDir Path directory) throws Exception {
        Path javaBinary = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        javaBinary.toString(),
                        "-XX:+UseSerialGC",
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Holder.class.getName())
                .redirectErrorStream(true)
                .start();
        try (HeapProbe probe = new HeapProbe()) {
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(
                            child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))
                    .readLine();
            assertTrue("held".equals(line), "the child said: " + line);
            Await.until(
                    "the child's heap read through its management agent",
                    Duration.ofSeconds(30),
                    () -> probe.retainedAfterGc(child.pid()).isPresent());
            OptionalLong heap = probe.retainedAfterGc(child.pid());
            long retained = heap.getAsLong();
            assertTrue(retained > 60_000_000 && retained < 200_000_000, "retained " + retained);
            ProcessResources resources =
                    ProcessResources.read(child.pid(), heap).orElseThrow();
            assertTrue(resources.threads() > 3, resources.toString());
            assertTrue(resources.openFiles() > 2, resources.toString());
            assertTrue(resources.residentBytes() > retained, resources.toString());

            Files.write(directory.resolve("segment"), new byte[4096]);
            Files.createDirectories(directory.resolve("sub"));
            Files.write(directory.resolve("sub").resolve("more"), new byte[1000]);
            ResourceSampler sampler = new ResourceSampler(
                    () -> Map.of("holder", child.pid()), Map.of("node-1", directory), () -> 7, Duration.ofHours(1));
            sampler.start().close(); // one sample at start, one at close
            List<ResourceSample> samples = sampler.samples();
            assertTrue(samples.size() == 2, samples.toString());
            assertTrue(samples.get(0).processes().get("holder").heapAfterGcBytes() > 60_000_000, samples.toString());
            assertTrue(samples.get(0).dataDirectoryBytes().get("node-1") == 5096, samples.toString());
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
