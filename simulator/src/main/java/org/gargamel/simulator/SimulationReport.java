package org.gargamel.simulator;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Writes {@code simulate.json} (docs/results.md, Simulator: {@code calibration}, {@code machine}, {@code runs}, {@code
 * validation}) and {@code simulate.html}, a self-contained page (inline SVG, no scripts) with throughput and latency
 * against the number of replicas, one line per mode and offered load (the thesis's Fig 5.x), and the validation table.
 */
public final class SimulationReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    /** A measured run beside its prediction: an entry of {@code validation}. */
    @JsonPropertyOrder({
        "mode",
        "replicas",
        "terminals",
        "warehouses",
        "predictedTpmC",
        "measuredTpmC",
        "errorPercent",
        "costs"
    })
    public record Validation(
            String mode,
            int replicas,
            int terminals,
            int warehouses,
            double predictedTpmC,
            double measuredTpmC,
            double errorPercent,
            String costs) {
        /**
         * {@code costs} says where the prediction's costs came from: measured at this replica count (a calibration
         * run's count), or interpolated or extrapolated from other counts (a prediction in the full sense).
         */
        public static Validation of(SimulatedRun predicted, double measuredTpmC, Calibration calibration) {
            double error = measuredTpmC == 0 ? 0 : 100 * (predicted.tpmC() - measuredTpmC) / measuredTpmC;
            List<CostModel> points = calibration.points();
            String costs;
            if (points.stream().anyMatch(p -> p.replicas() == predicted.replicas())) {
                costs = "measured at this count";
            } else if (predicted.replicas() < points.get(0).replicas()
                    || predicted.replicas() > points.get(points.size() - 1).replicas()) {
                costs = "extrapolated";
            } else {
                costs = "interpolated";
            }
            return new Validation(
                    predicted.modeName(),
                    predicted.replicas(),
                    predicted.terminals(),
                    predicted.warehouses(),
                    predicted.tpmC(),
                    measuredTpmC,
                    Math.round(error * 10) / 10.0,
                    costs);
        }
    }

    private final Calibration calibration;
    private final String machine;
    private final List<SimulatedRun> runs;
    private final List<Validation> validation;

    public SimulationReport(
            Calibration calibration, String machine, List<SimulatedRun> runs, List<Validation> validation) {
        this.calibration = calibration;
        this.machine = machine;
        this.runs = List.copyOf(runs);
        this.validation = List.copyOf(validation);
    }

    /** Writes simulate.json and simulate.html into {@code directory}; returns the JSON file. */
    public Path write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Map<String, Object> document = new LinkedHashMap<>();
        Map<String, Object> costs = new LinkedHashMap<>();
        costs.put("runs", calibration.points());
        costs.put("hostBusyCores", calibration.hostBusyCores());
        document.put("calibration", costs);
        document.put("machine", machine);
        document.put("runs", runs);
        document.put("validation", validation);
        Path json = directory.resolve("simulate.json");
        JSON.writeValue(json.toFile(), document);
        Files.writeString(directory.resolve("simulate.html"), html());
        return json;
    }

    /** The summary printed at the end: the validation, then the runs. */
    public String text() {
        StringBuilder text = new StringBuilder();
        if (!validation.isEmpty()) {
            text.append("validation (a shared host like the measured one):\n");
            text.append(String.format(
                    "%-12s %8s %9s %14s %13s %7s%n",
                    "mode", "replicas", "terminals", "predicted tpmC", "measured tpmC", "error"));
            for (Validation v : validation) {
                text.append(String.format(
                        Locale.ROOT,
                        "%-12s %8d %9d %14.0f %13.0f %+6.1f%%%n",
                        v.mode(),
                        v.replicas(),
                        v.terminals(),
                        v.predictedTpmC(),
                        v.measuredTpmC(),
                        v.errorPercent()));
            }
        }
        if (!runs.isEmpty()) {
            text.append("predicted (").append(machine).append("):\n");
            text.append(String.format(
                    "%-12s %8s %9s %10s %10s %8s %8s %8s%n",
                    "mode", "replicas", "terminals", "tpmC", "tx/s", "p50 ms", "p99 ms", "aborts"));
            for (SimulatedRun run : runs) {
                text.append(String.format(
                        Locale.ROOT,
                        "%-12s %8d %9d %10.0f %10.1f %8.1f %8.1f %8d%n",
                        run.modeName(),
                        run.replicas(),
                        run.terminals(),
                        run.tpmC(),
                        run.throughputTps(),
                        run.latencyP50Ms(),
                        run.latencyP99Ms(),
                        run.conflictAborts()));
            }
        }
        return text.toString();
    }

    String html() {
        StringBuilder page = new StringBuilder();
        page.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Gargamel simulation</title><style>")
                .append("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}")
                .append("td:first-child{text-align:left}svg{margin:1em 0}</style></head><body>")
                .append("<h1>Gargamel simulated: TPC-C against the number of replicas</h1><p>")
                .append(escape(machine))
                .append("; costs from ")
                .append(escape(calibration.source()))
                .append("</p>");
        if (!runs.isEmpty()) {
            page.append("<h2>Throughput (tpmC)</h2>").append(lineChart(SimulatedRun::tpmC, "tpmC"));
            page.append("<h2>Median latency of all calls (ms)</h2>")
                    .append(lineChart(SimulatedRun::latencyP50Ms, "ms"));
        }
        if (!validation.isEmpty()) {
            page.append("<h2>Validation: predicted against measured</h2><table><tr><th>mode</th><th>replicas</th>")
                    .append("<th>terminals</th><th>predicted tpmC</th><th>measured tpmC</th><th>error</th></tr>");
            for (Validation v : validation) {
                page.append(String.format(
                        Locale.ROOT,
                        "<tr><td>%s</td><td>%d</td><td>%d</td><td>%.0f</td><td>%.0f</td><td>%+.1f%%</td></tr>",
                        escape(v.mode()),
                        v.replicas(),
                        v.terminals(),
                        v.predictedTpmC(),
                        v.measuredTpmC(),
                        v.errorPercent()));
            }
            page.append("</table>");
        }
        return page.append("</body></html>").toString();
    }

    /** One line per mode and terminals-per-replica, x the number of replicas on a log scale. */
    private String lineChart(ToDoubleFunction<SimulatedRun> metric, String unit) {
        Map<String, List<SimulatedRun>> lines = new LinkedHashMap<>();
        for (SimulatedRun run : runs) {
            String label = run.modeName() + ", " + (run.terminals() / run.replicas()) + " terminals per replica";
            lines.computeIfAbsent(label, k -> new ArrayList<>()).add(run);
        }
        TreeSet<Integer> replicaCounts = new TreeSet<>();
        double max = 0;
        for (SimulatedRun run : runs) {
            replicaCounts.add(run.replicas());
            max = Math.max(max, metric.applyAsDouble(run));
        }
        max = max <= 0 ? 1 : max * 1.1;
        int width = 720;
        int height = 320;
        int left = 70;
        int bottom = 40;
        int plotWidth = width - left - 250;
        int plotHeight = height - bottom - 20;
        double maxLog = Math.log(Math.max(2, replicaCounts.last()));
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">",
                width,
                height));
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"20\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                        + "y2=\"%d\" stroke=\"#000\"/>",
                left,
                left,
                20 + plotHeight,
                left,
                20 + plotHeight,
                left + plotWidth,
                20 + plotHeight));
        for (int tick = 0; tick <= 4; tick++) {
            double value = max * tick / 4;
            double y = 20 + plotHeight - plotHeight * tick / 4.0;
            svg.append(String.format(
                    Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>", left - 5, y + 4, value));
        }
        for (int replicas : replicaCounts) {
            double x = left + plotWidth * Math.log(replicas) / maxLog;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>",
                    x,
                    20 + plotHeight + 15,
                    replicas));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">replicas</text><text x=\"12\" y=\"14\">%s</text>",
                left + plotWidth / 2,
                height - 5,
                escape(unit)));
        int colour = 0;
        int legendY = 30;
        for (Map.Entry<String, List<SimulatedRun>> line : lines.entrySet()) {
            String stroke = COLOURS[colour++ % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (SimulatedRun run : line.getValue()) {
                double x = left + plotWidth * Math.log(run.replicas()) / maxLog;
                double y = 20 + plotHeight - plotHeight * metric.applyAsDouble(run) / max;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(
                        Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>", x, y, stroke));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                    points.toString().trim(),
                    stroke));
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>",
                    left + plotWidth + 20,
                    legendY - 9,
                    stroke,
                    left + plotWidth + 35,
                    legendY,
                    escape(line.getKey())));
            legendY += 16;
        }
        return svg.append("</svg>").toString();
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
