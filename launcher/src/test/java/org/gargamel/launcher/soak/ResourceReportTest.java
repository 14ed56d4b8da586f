package org.gargamel.launcher.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a long run's samples say: a process whose retained heap grows from minute 10 to the end by more than 20% is
 * named; one that stays flat (noisy from one young collection to the next) is not; the files are written and the chart
 * is well-formed XML whatever the process names hold.
 */
@Tag("unit")
class ResourceReportTest {
    private static final long MB = 1_000_000;

    @Test
    void aProcessWhoseRetainedHeapGrowsIsNamedAndAFlatOneIsNot(@TempDir Path directory) throws Exception {
        List<ResourceSample> samples = new ArrayList<>();
        for (int i = 0; i <= 120; i++) { // an hour, every 30 s
            double seconds = 30.0 * i;
            Map<String, ProcessResources> processes = new LinkedHashMap<>();
            long noise = (long) (i % 3) * 2 * MB; // a young collection leaves more or less in the survivor space
            processes.put("scheduler", new ProcessResources(10, 40 * MB + noise, 30, 40, 200 * MB));
            // node-1 leaks 1 MB a minute after its warm-up: 50 MB at minute 10, 100 MB at the end.
            long leak = seconds < 600 ? 0 : (long) ((seconds - 600) / 60 * MB);
            processes.put("node-1 <&>", new ProcessResources(11, 50 * MB + leak + noise, 50, 60, 300 * MB));
            samples.add(new ResourceSample(seconds, processes, Map.of("node-1", 1024L * i), 100 + i % 7));
        }
        ResourceReport report = new ResourceReport(samples);
        Map<String, ResourceReport.Growth> growth = report.heapGrowth();
        assertEquals(600, growth.get("scheduler").referenceSeconds(), 0.001);
        assertEquals(3600, growth.get("scheduler").lifeSeconds(), 0.001);
        assertEquals(1, growth.get("scheduler").incarnations());
        assertTrue(growth.get("scheduler").flat(), growth.toString());
        assertTrue(Math.abs(growth.get("scheduler").growth()) < 0.06, growth.toString());
        assertFalse(growth.get("node-1 <&>").flat(), growth.toString());
        assertEquals(1.0, growth.get("node-1 <&>").growth(), 0.06, growth.toString());
        assertTrue(report.summary().stream().anyMatch(line -> line.contains("node-1") && line.contains("more than")));

        report.write(directory);
        JsonNode json =
                new ObjectMapper().readTree(directory.resolve("resources.json").toFile());
        assertEquals(121, json.get("samples").size());
        assertEquals(
                50,
                json.get("samples")
                        .get(0)
                        .get("processes")
                        .get("node-1 <&>")
                        .get("threads")
                        .asInt());
        assertFalse(json.get("heapGrowth").get("node-1 <&>").get("flat").asBoolean());
        String svg = java.nio.file.Files.readString(directory.resolve("resources.svg"));
        DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertTrue(svg.contains("node-1 &lt;&amp;&gt;"), "the name escaped in the legend");
    }

    @Test
    void aShortRunTakesItsReferenceAtASixthAndTooFewReadingsSayNothing() {
        List<ResourceSample> samples = new ArrayList<>();
        for (int i = 0; i <= 4; i++) {
            samples.add(new ResourceSample(
                    10.0 * i, Map.of("client", new ProcessResources(1, 10 * MB, 20, 10, 100 * MB)), Map.of(), 5));
        }
        assertEquals(Map.of(), new ResourceReport(samples).heapGrowth(), "five readings are too few to compare");
        assertEquals(40.0 / 6, ResourceReport.referenceAfter(40), 0.001);
        assertEquals(600, ResourceReport.referenceAfter(3600), 0.001);
    }

    /**
     * A process killed and started again is a new JVM, its heap afresh: its growth is read within its longest life,
     * not from one JVM's minute 10 to another's end (which would hide a leak that each incarnation repeats).
     */
    @Test
    void aRestartedProcessIsComparedWithinItsLongestLife() {
        List<ResourceSample> samples = new ArrayList<>();
        for (int i = 0; i <= 60; i++) {
            double seconds = 30.0 * i;
            long pid = i < 20 ? 100 : 200; // killed at 10 minutes, started again under pid 200
            long start = i < 20 ? 0 : 20;
            long leak = (i - start) * 2 * MB; // each incarnation leaks 4 MB a minute from 40 MB
            samples.add(new ResourceSample(
                    seconds,
                    Map.of("node-2", new ProcessResources(pid, 40 * MB + leak, 50, 60, 300 * MB)),
                    Map.of(),
                    100));
        }
        ResourceReport.Growth growth = new ResourceReport(samples).heapGrowth().get("node-2");
        assertEquals(2, growth.incarnations(), growth.toString());
        assertEquals(1200, growth.lifeSeconds(), 0.001, "the second life, 20 minutes: " + growth);
        assertFalse(growth.flat(), "its leak is seen: " + growth);
        assertTrue(growth.referenceSeconds() >= 600 + 200 - 30, growth.toString());
    }
}
