package org.gargamel.launcher.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a long run's samples say: each process's retained heap (after a full collection, {@link HeapProbe}) at a
 * reference time against its end, as a growth ratio; written as {@code resources.json} and drawn as
 * {@code resources.svg} (heap per process and calls per second over time). Issue 43 asks that no process grow by more
 * than 20%. A process killed and started again is a new JVM whose heap starts afresh, so the comparison is made within
 * one incarnation (one pid) of each name, the longest-lived: its reference is 10 minutes after it started, or a sixth
 * of its life if shorter; {@link Growth#incarnations} says how many there were, and {@link Growth#lifeSeconds} how long
 * the compared one lived (a node killed every few minutes is compared over minutes, not the hour). Each value is the
 * median of three samples.
 */
public final class ResourceReport {
    /** The growth issue 43 allows between the reference and the end. */
    public static final double ALLOWED_GROWTH = 0.20;

    /**
     * One process's retained heap at the reference and at the end of its longest incarnation, the ratio (end /
     * reference - 1), how long that incarnation lived and how many the run had.
     */
    public record Growth(
            double referenceSeconds,
            long referenceBytes,
            long endBytes,
            double growth,
            double lifeSeconds,
            int incarnations) {
        @com.fasterxml.jackson.annotation.JsonProperty("flat")
        public boolean flat() {
            return growth <= ALLOWED_GROWTH;
        }
    }

    private final List<ResourceSample> samples;

    public ResourceReport(List<ResourceSample> samples) {
        this.samples = List.copyOf(samples);
    }

    /** Seconds after an incarnation's first sample at which its reference is read: 600, or a sixth of its life. */
    static double referenceAfter(double lifeSeconds) {
        return Math.min(600, lifeSeconds / 6);
    }

    /** Every process's heap growth, by name; a process whose longest incarnation has fewer than six readings is left out. */
    public Map<String, Growth> heapGrowth() {
        Map<String, Growth> growth = new LinkedHashMap<>();
        for (String name : processNames()) {
            List<List<double[]>> incarnations = new ArrayList<>(); // each: {seconds, bytes} of one pid
            long pid = -1;
            for (ResourceSample sample : samples) {
                ProcessResources process = sample.processes().get(name);
                if (process == null) {
                    continue;
                }
                if (process.pid() != pid) {
                    incarnations.add(new ArrayList<>());
                    pid = process.pid();
                }
                if (process.heapAfterGcBytes() >= 0) {
                    incarnations
                            .get(incarnations.size() - 1)
                            .add(new double[] {sample.seconds(), process.heapAfterGcBytes()});
                }
            }
            List<double[]> readings = List.of();
            for (List<double[]> incarnation : incarnations) {
                if (span(incarnation) > span(readings) || readings.isEmpty()) {
                    readings = incarnation;
                }
            }
            if (readings.size() < 6) {
                continue;
            }
            double life = span(readings);
            double reference = readings.get(0)[0] + referenceAfter(life);
            int at = 0;
            while (at < readings.size() - 1 && readings.get(at)[0] < reference) {
                at++;
            }
            at = Math.max(1, Math.min(at, readings.size() - 5));
            long atReference = median(readings, at - 1);
            long atEnd = median(readings, readings.size() - 3);
            growth.put(
                    name,
                    new Growth(
                            readings.get(at)[0],
                            atReference,
                            atEnd,
                            (double) atEnd / Math.max(1, atReference) - 1,
                            life,
                            incarnations.size()));
        }
        return growth;
    }

    private static double span(List<double[]> readings) {
        return readings.isEmpty() ? -1 : readings.get(readings.size() - 1)[0] - readings.get(0)[0];
    }

    private static long median(List<double[]> readings, int from) {
        double[] three = {readings.get(from)[1], readings.get(from + 1)[1], readings.get(from + 2)[1]};
        Arrays.sort(three);
        return (long) three[1];
    }

    private Set<String> processNames() {
        Set<String> names = new LinkedHashSet<>();
        samples.forEach(sample -> names.addAll(sample.processes().keySet()));
        return names;
    }

    /** Lines for the run's summary: each process's heap at the reference and at the end. */
    public List<String> summary() {
        List<String> lines = new ArrayList<>();
        heapGrowth()
                .forEach((name, g) -> lines.add(String.format(
                        Locale.ROOT,
                        "  %-12s heap after GC %7.1f MB at %4.0f s, %7.1f MB at the end: %+.0f%%%s",
                        name,
                        g.referenceBytes() / 1e6,
                        g.referenceSeconds(),
                        g.endBytes() / 1e6,
                        100 * g.growth(),
                        g.flat() ? "" : " (more than " + Math.round(100 * ALLOWED_GROWTH) + "%)")));
        return lines;
    }

    /** Writes {@code resources.json} and {@code resources.svg} into {@code directory}. */
    public void write(Path directory) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("referenceAfterSeconds", "600, or a sixth of the compared incarnation's life");
        json.put("allowedHeapGrowth", ALLOWED_GROWTH);
        json.put("heapGrowth", heapGrowth());
        json.put("samples", samples);
        new ObjectMapper()
                .writerWithDefaultPrettyPrinter()
                .writeValue(directory.resolve("resources.json").toFile(), json);
        Files.writeString(directory.resolve("resources.svg"), svg());
    }

    private static final String[] COLOURS = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"
    };

    /** Two panels over the same time axis: heap after GC (MB) per process, and calls per second. */
    String svg() {
        int width = 900;
        int panel = 220;
        int left = 70;
        int right = 160;
        int top = 30;
        int gap = 50;
        int height = top + panel + gap + panel + 40;
        double lastSeconds = samples.isEmpty()
                ? 1
                : Math.max(1, samples.get(samples.size() - 1).seconds());
        double maxHeap = 1;
        double maxRate = 1;
        for (ResourceSample sample : samples) {
            maxRate = Math.max(maxRate, sample.callsPerSecond());
            for (ProcessResources process : sample.processes().values()) {
                maxHeap = Math.max(maxHeap, process.heapAfterGcBytes() / 1e6);
            }
        }
        double plotWidth = width - left - right;
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                        + " font-size=\"11\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                width,
                height));
        axes(svg, left, top, plotWidth, panel, lastSeconds, maxHeap, "heap retained after GC (MB)");
        axes(svg, left, top + panel + gap, plotWidth, panel, lastSeconds, maxRate, "calls answered per second");
        int colour = 0;
        for (String name : processNames()) {
            StringBuilder points = new StringBuilder();
            for (ResourceSample sample : samples) {
                ProcessResources process = sample.processes().get(name);
                if (process != null && process.heapAfterGcBytes() >= 0) {
                    points.append(String.format(
                            Locale.ROOT,
                            "%.1f,%.1f ",
                            left + plotWidth * sample.seconds() / lastSeconds,
                            top + panel - panel * (process.heapAfterGcBytes() / 1e6) / maxHeap));
                }
            }
            String stroke = COLOURS[colour % COLOURS.length];
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n"
                            + "<text x=\"%.0f\" y=\"%d\" fill=\"%s\">%s</text>%n",
                    stroke,
                    points.toString().trim(),
                    left + plotWidth + 10,
                    top + 12 + 14 * colour,
                    stroke,
                    escape(name)));
            colour++;
        }
        StringBuilder rate = new StringBuilder();
        for (ResourceSample sample : samples) {
            rate.append(String.format(
                    Locale.ROOT,
                    "%.1f,%.1f ",
                    left + plotWidth * sample.seconds() / lastSeconds,
                    top + panel + gap + panel - panel * sample.callsPerSecond() / maxRate));
        }
        svg.append(String.format(
                "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\" points=\"%s\"/>%n",
                rate.toString().trim()));
        return svg.append("</svg>\n").toString();
    }

    private static void axes(
            StringBuilder svg, int left, int top, double width, int height, double seconds, double max, String title) {
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>%n"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"#888\"/>%n"
                        + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>%n"
                        + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>%n"
                        + "<text x=\"%.0f\" y=\"%d\" text-anchor=\"end\">%.1f min</text>%n",
                left,
                top - 8,
                escape(title),
                left,
                top,
                left,
                top + height,
                left,
                top + height,
                left + width,
                top + height,
                left - 4,
                top + 10,
                max,
                left - 4,
                top + height,
                left + width,
                top + height + 14,
                seconds / 60));
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
