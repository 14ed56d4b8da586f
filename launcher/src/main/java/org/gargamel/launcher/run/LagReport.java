package org.gargamel.launcher.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an apply-lag run saw ({@link ApplyLagRun}): the summary it prints, its {@code lag.json} figures and its chart.
 * The lag is the scheduler's backlog: calls it dispatched that some replica has not applied yet (at most the calls
 * executing, when every replica keeps up). The trend is its least-squares slope over the run's second half, in calls
 * per minute: about 0 when the replicas keep up, the shortfall of apply when one does not.
 */
final class LagReport {
    private final ApplyLagRun.Request request;
    private final List<ApplyLagRun.Sample> samples;
    private final List<String> replicaNames;

    LagReport(ApplyLagRun.Request request, List<ApplyLagRun.Sample> samples, List<String> replicaNames) {
        this.request = request;
        this.samples = List.copyOf(samples);
        this.replicaNames = List.copyOf(replicaNames);
    }

    /** The samples the scheduler answered. */
    private List<ApplyLagRun.Sample> answered() {
        return samples.stream().filter(sample -> sample.backlog() != null).toList();
    }

    /** Least-squares slope of the backlog over the second half of the run, per minute (0 without samples). */
    double trendPerMinute() {
        List<ApplyLagRun.Sample> answered = answered();
        List<ApplyLagRun.Sample> half = answered.subList(answered.size() / 2, answered.size());
        if (half.size() < 2) {
            return 0;
        }
        double meanT = 0;
        double meanBacklog = 0;
        for (ApplyLagRun.Sample sample : half) {
            meanT += sample.seconds();
            meanBacklog += sample.backlog();
        }
        meanT /= half.size();
        meanBacklog /= half.size();
        double covariance = 0;
        double variance = 0;
        for (ApplyLagRun.Sample sample : half) {
            covariance += (sample.seconds() - meanT) * (sample.backlog() - meanBacklog);
            variance += (sample.seconds() - meanT) * (sample.seconds() - meanT);
        }
        return variance == 0 ? 0 : covariance / variance * 60;
    }

    long maxBacklog() {
        return answered().stream().mapToLong(ApplyLagRun.Sample::backlog).max().orElse(0);
    }

    long finalBacklog() {
        List<ApplyLagRun.Sample> answered = answered();
        return answered.isEmpty() ? 0 : answered.get(answered.size() - 1).backlog();
    }

    double throughputTps() {
        if (samples.isEmpty()) {
            return 0;
        }
        ApplyLagRun.Sample last = samples.get(samples.size() - 1);
        return last.calls() / last.seconds();
    }

    String summary(long events, long hits, long overloaded, double drainSeconds) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                Locale.ROOT,
                "apply lag: %,d events and %,d hits committed, %.0f tx/s (%d replicas, %s, %d terminals)%n",
                events,
                hits,
                throughputTps(),
                replicaNames.size(),
                applying(),
                request.terminals()));
        text.append("backlog (calls dispatched, not yet applied at every replica), by minute:");
        for (ApplyLagRun.Sample sample : answered()) {
            if (Math.round(sample.seconds()) % 60 == 0) {
                text.append(String.format(
                        Locale.ROOT, "  %.0f min: %,d", Math.round(sample.seconds()) / 60.0, sample.backlog()));
            }
        }
        text.append(String.format(
                Locale.ROOT,
                "%nat the end %,d, at most %,d; trend over the second half %+,.0f per minute; caught up %.1f s after "
                        + "the terminals stopped%n",
                finalBacklog(),
                maxBacklog(),
                trendPerMinute(),
                drainSeconds));
        if (overloaded > 0) {
            text.append(String.format(
                    "%,d call(s) turned away as overload: a replica was maxInFlight calls behind%n", overloaded));
        }
        return text.toString();
    }

    Map<String, Object> json() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("workload", "apply-lag");
        result.put("replicas", replicaNames.size());
        result.put("appliers", request.appliers());
        result.put("applyGroup", request.applyGroup());
        result.put("workers", request.workers());
        result.put("terminals", request.terminals());
        result.put("hotPercent", request.hotPercent());
        result.put("rowsPerCall", request.rowsPerCall());
        result.put("durationSeconds", request.duration().toSeconds());
        result.put("seed", request.seed());
        result.put("throughputTps", throughputTps());
        result.put("maxBacklog", maxBacklog());
        result.put("finalBacklog", finalBacklog());
        result.put("lagTrendPerMinute", trendPerMinute());
        List<Object> series = new ArrayList<>();
        for (ApplyLagRun.Sample sample : samples) {
            Map<String, Object> point = new LinkedHashMap<>();
            point.put("seconds", Math.round(sample.seconds() * 10) / 10.0);
            point.put("calls", sample.calls());
            point.put("events", sample.events());
            point.put("hits", sample.hits());
            point.put("throughputTps", Math.round(sample.throughputTps()));
            point.put("backlog", sample.backlog());
            if (sample.eventLagByReplica() != null) {
                Map<String, Long> lag = new LinkedHashMap<>();
                for (int i = 0; i < replicaNames.size(); i++) {
                    lag.put(replicaNames.get(i), sample.eventLagByReplica().get(i));
                }
                point.put("eventLagByReplica", lag);
            }
            series.add(point);
        }
        result.put("samples", series);
        return result;
    }

    String html() {
        return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>gargamel apply-lag</title></head><body>"
                + "<h1>Apply lag, " + applying() + "</h1><p>"
                + String.format(
                        Locale.ROOT,
                        "%d replicas, %d terminals, %d%% hits on one hot row; %.0f tx/s; backlog at the end %,d, "
                                + "trend over the second half %+,.0f per minute.",
                        replicaNames.size(),
                        request.terminals(),
                        request.hotPercent(),
                        throughputTps(),
                        finalBacklog(),
                        trendPerMinute())
                + "</p>" + chart() + "</body></html>\n";
    }

    /** The backlog against time. */
    String chart() {
        int width = 720;
        int height = 320;
        int left = 70;
        int bottom = 40;
        int plotWidth = width - left - 30;
        int plotHeight = height - bottom - 30;
        List<ApplyLagRun.Sample> answered = answered();
        double maxSeconds = Math.max(1, request.duration().toSeconds());
        double top = Math.max(10, maxBacklog() * 1.1);
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">"
                        + "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>"
                        + "<text x=\"%d\" y=\"14\">calls not yet applied at every replica; %d replicas, %s; %.0f "
                        + "tx/s</text>",
                width,
                height,
                left,
                replicaNames.size(),
                applying(),
                throughputTps()));
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"30\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                        + "y2=\"%d\" stroke=\"#000\"/>",
                left,
                left,
                30 + plotHeight,
                left,
                30 + plotHeight,
                left + plotWidth,
                30 + plotHeight));
        for (int tick = 0; tick <= 4; tick++) {
            double y = 30 + plotHeight - plotHeight * tick / 4.0;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>",
                    left - 5,
                    y + 4,
                    top * tick / 4));
            double x = left + plotWidth * tick / 4.0;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>",
                    x,
                    30 + plotHeight + 15,
                    maxSeconds * tick / 4));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds</text>",
                left + plotWidth / 2,
                height - 5));
        StringBuilder points = new StringBuilder();
        for (ApplyLagRun.Sample sample : answered) {
            double x = left + plotWidth * Math.min(1, sample.seconds() / maxSeconds);
            double y = 30 + plotHeight - plotHeight * sample.backlog() / top;
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        svg.append(String.format(
                Locale.ROOT,
                "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                points.toString().trim(),
                request.appliers() > 1 ? "#1f77b4" : "#d62728"));
        return svg.append("</svg>").toString();
    }

    /** How the nodes applied: their apply connections, and with one, the most write-sets it applies per transaction. */
    private String applying() {
        return request.appliers() > 1
                ? request.appliers() + " applier connections per node"
                : "1 applier connection per node, up to " + request.applyGroup() + " write-set(s) per transaction";
    }
}
