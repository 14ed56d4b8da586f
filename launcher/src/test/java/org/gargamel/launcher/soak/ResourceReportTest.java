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
        assertEquals(600, report.referenceSeconds(), 0.001);
        Map<String, ResourceReport.Growth> growth = report.heapGrowth();
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
        ResourceReport report = new ResourceReport(samples);
        assertEquals(40.0 / 6, report.referenceSeconds(), 0.001);
        assertEquals(Map.of(), report.heapGrowth(), "five readings are too few to compare");
    }
}
