package org.gargamel.launcher.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gargamel.launcher.cluster.SitesTopology;

/**
 * Writes {@code compare.json} ({@code {"runs": [...]}}, the contract in docs/commands.md, compare) and {@code compare.html}, a
 * self-contained page (inline SVG, no scripts, no network) with the closed-loop tpmC and p99 per mode and the
 * open-loop latency against the incoming rate, as in the thesis's Fig 7.1 and 7.6.
 */
public final class CompareReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};
    private static final List<String> MODE_ORDER = List.of("direct", "gargamel", "round-robin", "centralized");

    private final List<CompareRun> runs;
    private final String machine;

    public CompareReport(List<CompareRun> runs, String machine) {
        this.runs = List.copyOf(runs);
        this.machine = machine;
    }

    public List<CompareRun> runs() {
        return runs;
    }

    public void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("machine", machine);
        document.put("runs", runs);
        JSON.writeValue(directory.resolve("compare.json").toFile(), document);
        Files.writeString(directory.resolve("compare.html"), html(), StandardCharsets.UTF_8);
    }

    /** Whether this is the multi-site comparison ({@code compare --sites}). */
    private boolean multiSite() {
        return runs.stream().anyMatch(run -> run.sites() != null);
    }

    /** A fixed-width table of every run, for the terminal and docs/results.md. */
    public String table() {
        if (multiSite()) {
            return sitesTable();
        }
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                Locale.ROOT,
                "%-15s %-4s %5s %3s %10s %10s %9s %8s %8s %8s %8s%n",
                "mode",
                "iso",
                "repl",
                "wh",
                "load",
                "tpmC",
                "tx/s",
                "aborts",
                "p50 ms",
                "p95 ms",
                "p99 ms"));
        for (CompareRun run : runs) {
            String load = run.openLoop() ? String.format(Locale.ROOT, "%.0f/s", run.rate()) : run.terminals() + " term";
            text.append(String.format(
                    Locale.ROOT,
                    "%-15s %-4s %5d %3d %10s %10.0f %9.1f %8d %8.2f %8.2f %8.2f%n",
                    run.modeAndClient(),
                    run.mode().equals("direct") ? "-" : run.isolation(),
                    run.replicas(),
                    run.warehouses(),
                    load,
                    run.tpmC(),
                    run.throughputTps(),
                    run.conflictAborts(),
                    run.latencyMs().get("p50"),
                    run.latencyMs().get("p95"),
                    run.latencyMs().get("p99")));
        }
        return text.toString();
    }

    /**
     * The multi-site comparison's table: per run, the median and p99 latency of each site's terminals (a single-site
     * run's overall figures under site-1), tpmC and what the agreement cost.
     */
    String sitesTable() {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                Locale.ROOT,
                "%-42s %8s %11s %11s %11s %11s %18s %14s%n",
                "configuration",
                "tpmC",
                "p50 site-1",
                "p50 site-2",
                "p99 site-1",
                "p99 site-2",
                "collisions (c, k)",
                "agree p50/p99"));
        for (CompareRun run : runs) {
            String collisions = run.sites() == null
                    ? "-"
                    : String.format(
                            Locale.ROOT,
                            "%d (%d, %d)",
                            run.siteCount("collisions"),
                            run.siteCount("cancels"),
                            run.siteCount("kills"));
            String wait = "-";
            if (run.sites() != null && run.sites().get("agreementWaitMs") instanceof Map<?, ?> agreed) {
                wait = String.format(
                        Locale.ROOT,
                        "%.0f/%.0f",
                        ((Number) agreed.get("p50")).doubleValue(),
                        ((Number) agreed.get("p99")).doubleValue());
            }
            text.append(String.format(
                    Locale.ROOT,
                    "%-42s %8.0f %11s %11s %11s %11s %18s %14s%n",
                    run.label(),
                    run.tpmC(),
                    millis(siteLatency(run, 0, "p50")),
                    millis(siteLatency(run, 1, "p50")),
                    millis(siteLatency(run, 0, "p99")),
                    millis(siteLatency(run, 1, "p99")),
                    collisions,
                    run.agreement() == null || run.agreement().equals(SitesTopology.OneScheduler.NAME) ? "-" : wait));
        }
        return text.toString();
    }

    /** Site {@code site}'s percentile of a run: a single-site run's overall figure is site-1's. */
    private static Double siteLatency(CompareRun run, int site, String percentile) {
        if (run.sites() == null) {
            return site == 0 ? run.latencyMs().get(percentile) : null;
        }
        return run.siteLatency(site, percentile);
    }

    private static String millis(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    String html() {
        if (multiSite()) {
            return sitesHtml();
        }
        StringBuilder page = new StringBuilder();
        page.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Gargamel comparison</title><style>")
                .append("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#eee}")
                .append("td:first-child{text-align:left}svg{margin:1em 0}</style></head><body>")
                .append("<h1>Gargamel: the same TPC-C workload through each mode</h1><p>")
                .append(escape(machine))
                .append("</p>");
        List<CompareRun> closed = runs.stream().filter(run -> !run.openLoop()).toList();
        List<CompareRun> open = runs.stream().filter(CompareRun::openLoop).toList();
        if (!closed.isEmpty()) {
            page.append("<h2>Closed loop: throughput (tpmC)</h2>").append(barChart(closed, true));
            page.append("<h2>Closed loop: p99 latency of all calls (ms)</h2>").append(barChart(closed, false));
        }
        if (!open.isEmpty()) {
            page.append("<h2>Open loop: p99 latency (ms) against the incoming rate (calls/s)</h2>")
                    .append(lineChart(open));
        }
        page.append("<h2>All runs</h2><table><tr><th>configuration</th><th>load</th><th>tpmC</th><th>tx/s</th>")
                .append("<th>conflict aborts</th><th>retries</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th>")
                .append("<th>consistent</th><th>identical</th></tr>");
        for (CompareRun run : runs) {
            page.append("<tr><td>")
                    .append(escape(run.label()))
                    .append("</td><td>")
                    .append(run.openLoop() ? format(run.rate()) + "/s" : run.terminals() + " terminals")
                    .append("</td><td>")
                    .append(format(run.tpmC()))
                    .append("</td><td>")
                    .append(format(run.throughputTps()))
                    .append("</td><td>")
                    .append(run.conflictAborts())
                    .append("</td><td>")
                    .append(run.retries())
                    .append("</td><td>")
                    .append(format(run.latencyMs().get("p50")))
                    .append("</td><td>")
                    .append(format(run.latencyMs().get("p95")))
                    .append("</td><td>")
                    .append(format(run.latencyMs().get("p99")))
                    .append("</td><td>")
                    .append(run.consistent() ? "yes" : "NO")
                    .append("</td><td>")
                    .append(run.identical() ? "yes" : "NO")
                    .append("</td></tr>");
        }
        return page.append("</table></body></html>\n").toString();
    }

    /** The multi-site comparison's page: each site's median and p99 by configuration, then the table. */
    private String sitesHtml() {
        StringBuilder page = new StringBuilder();
        page.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Gargamel: sites compared</title><style>")
                .append("body{font-family:sans-serif;margin:2em;color:#222}pre{background:#f6f6f6;padding:1em}")
                .append("svg{margin:1em 0}</style></head><body>")
                .append("<h1>Gargamel across sites: one TPC-C workload, each way of serving two sites</h1><p>")
                .append(escape(machine))
                .append("</p><p>Each configuration's terminals at site-1 and site-2 (a single-site run: all at one")
                .append(" site). one-scheduler: site-1's scheduler and every node serve both sites, site-2's clients")
                .append(" call it across the delay; optimistic and pessimistic: a scheduler and a replica per site,")
                .append(" agreeing through the schedule log (docs/multisite.md).</p>");
        page.append("<h2>Median latency by site (ms)</h2>").append(sitesChart("p50"));
        page.append("<h2>p99 latency by site (ms)</h2>").append(sitesChart("p99"));
        page.append("<h2>All runs</h2><pre>").append(escape(sitesTable())).append("</pre>");
        return page.append("</body></html>\n").toString();
    }

    /** One group of two bars (site-1, site-2) per run. */
    private String sitesChart(String percentile) {
        double max = 1;
        for (CompareRun run : runs) {
            for (int site = 0; site < 2; site++) {
                Double value = siteLatency(run, site, percentile);
                max = value == null ? max : Math.max(max, value);
            }
        }
        int barWidth = 22;
        int groupWidth = 2 * barWidth + 40;
        int height = 260;
        int left = 70;
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">",
                left + runs.size() * groupWidth + 120,
                height + 90));
        svg.append(axis(left, height, max));
        int x = left + 10;
        for (CompareRun run : runs) {
            for (int site = 0; site < 2; site++) {
                Double value = siteLatency(run, site, percentile);
                if (value != null) {
                    int h = (int) Math.round(value / max * (height - 20));
                    svg.append(String.format(
                            Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s, site-%d: %s ms"
                                    + "</title></rect>",
                            x + site * barWidth,
                            height - h,
                            barWidth - 3,
                            h,
                            COLORS[site],
                            escape(run.label()),
                            site + 1,
                            format(value)));
                }
            }
            List<String> words =
                    run.sites() == null ? List.of("single", "site") : List.of(run.agreement(), run.warehousesPerSite());
            for (int line = 0; line < words.size(); line++) {
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                        x + barWidth,
                        height + 16 + 14 * line,
                        escape(words.get(line))));
            }
            x += groupWidth;
        }
        for (int site = 0; site < 2; site++) {
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">"
                            + "site-%d</text>",
                    x + 10,
                    20 + 18 * site,
                    COLORS[site],
                    x + 28,
                    30 + 18 * site,
                    site + 1));
        }
        return svg.append("</svg>").toString();
    }

    /** Groups = (warehouses, replicas); one bar per mode inside a group. */
    private String barChart(List<CompareRun> closed, boolean throughput) {
        Map<String, List<CompareRun>> groups = new TreeMap<>();
        for (CompareRun run : closed) {
            groups.computeIfAbsent(
                            String.format(
                                    Locale.ROOT,
                                    "%d wh, %d replica%s",
                                    run.warehouses(),
                                    run.replicas(),
                                    run.replicas() == 1 ? "" : "s"),
                            key -> new ArrayList<>())
                    .add(run);
        }
        double max =
                closed.stream().mapToDouble(run -> value(run, throughput)).max().orElse(1);
        max = max <= 0 ? 1 : max;
        int barWidth = 26;
        int groupGap = 30;
        int height = 260;
        int left = 70;
        int width = left
                + groups.values().stream()
                        .mapToInt(g -> g.size() * barWidth + groupGap)
                        .sum()
                + 160;
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">",
                width,
                height + 60));
        svg.append(axis(left, height, max));
        int x = left + 10;
        for (Map.Entry<String, List<CompareRun>> group : groups.entrySet()) {
            List<CompareRun> bars = new ArrayList<>(group.getValue());
            bars.sort((a, b) -> Integer.compare(
                    modeIndex(a.mode()) * 10 + (a.isolation().equals("psi") ? 0 : 1),
                    modeIndex(b.mode()) * 10 + (b.isolation().equals("psi") ? 0 : 1)));
            int groupStart = x;
            for (CompareRun run : bars) {
                double v = value(run, throughput);
                int h = (int) Math.round(v / max * (height - 20));
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s: %s</title></rect>",
                        x,
                        height - h,
                        barWidth - 4,
                        h,
                        COLORS[modeIndex(run.mode()) % COLORS.length],
                        escape(run.label()),
                        format(v)));
                x += barWidth;
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    (groupStart + x) / 2,
                    height + 16,
                    escape(group.getKey())));
            x += groupGap;
        }
        svg.append(legend(x + 10, 20));
        return svg.append("</svg>").toString();
    }

    /** One line per (mode, isolation, replicas, warehouses): p99 against the incoming rate. */
    private String lineChart(List<CompareRun> open) {
        Map<String, List<CompareRun>> series = new TreeMap<>();
        for (CompareRun run : open) {
            series.computeIfAbsent(run.label(), key -> new ArrayList<>()).add(run);
        }
        double maxRate = open.stream().mapToDouble(CompareRun::rate).max().orElse(1);
        double maxLatency = open.stream()
                .mapToDouble(run -> run.latencyMs().get("p99"))
                .max()
                .orElse(1);
        maxLatency = maxLatency <= 0 ? 1 : maxLatency;
        int left = 70;
        int height = 260;
        int plotWidth = 480;
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">",
                left + plotWidth + 260,
                height + 60));
        svg.append(axis(left, height, maxLatency));
        for (int tick = 0; tick <= 4; tick++) {
            double rate = maxRate * tick / 4;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    left + (int) (plotWidth * tick / 4.0),
                    height + 16,
                    format(rate)));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">calls/s</text>",
                left + plotWidth / 2,
                height + 34));
        int index = 0;
        for (Map.Entry<String, List<CompareRun>> line : series.entrySet()) {
            List<CompareRun> points = new ArrayList<>(line.getValue());
            points.sort((a, b) -> Double.compare(a.rate(), b.rate()));
            String color = COLORS[modeIndex(points.get(0).mode()) % COLORS.length];
            StringBuilder path = new StringBuilder();
            for (CompareRun point : points) {
                int px = left + (int) Math.round(point.rate() / maxRate * plotWidth);
                int py = height - (int) Math.round(point.latencyMs().get("p99") / maxLatency * (height - 20));
                path.append(path.length() == 0 ? "" : " ")
                        .append(px)
                        .append(',')
                        .append(py);
                svg.append(String.format(
                        Locale.ROOT,
                        "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"><title>%s at %s/s: p99 %s ms</title></circle>",
                        px,
                        py,
                        color,
                        escape(line.getKey()),
                        format(point.rate()),
                        format(point.latencyMs().get("p99"))));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                    path,
                    color,
                    index % 2 == 1 ? " stroke-dasharray=\"5,3\"" : ""));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>",
                    left + plotWidth + 20,
                    20 + 16 * index,
                    color,
                    escape(line.getKey())));
            index++;
        }
        return svg.append("</svg>").toString();
    }

    private static String axis(int left, int height, double max) {
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", left, left, height));
        for (int tick = 0; tick <= 4; tick++) {
            int y = height - (int) Math.round((height - 20) * tick / 4.0);
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
                            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>",
                    left - 6,
                    y + 4,
                    format(max * tick / 4),
                    left,
                    y,
                    left + 2000,
                    y));
        }
        return svg.toString();
    }

    private static String legend(int x, int y) {
        StringBuilder svg = new StringBuilder();
        for (int i = 0; i < MODE_ORDER.size(); i++) {
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\">%s</text>",
                    x,
                    y + 18 * i,
                    COLORS[i],
                    x + 18,
                    y + 18 * i + 10,
                    MODE_ORDER.get(i)));
        }
        return svg.toString();
    }

    private static double value(CompareRun run, boolean throughput) {
        return throughput ? run.tpmC() : run.latencyMs().get("p99");
    }

    private static int modeIndex(String mode) {
        int index = MODE_ORDER.indexOf(mode);
        return index < 0 ? MODE_ORDER.size() : index;
    }

    private static String format(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
