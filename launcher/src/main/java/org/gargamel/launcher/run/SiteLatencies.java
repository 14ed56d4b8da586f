package org.gargamel.launcher.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.stats.LatencyHistogram;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.ExecutionOutcome;

/**
 * A multi-site run's response times by site (docs/multisite.md): every call of a site's terminals, from the terminal's
 * side, recorded from the start of the measurement interval on ({@link #reset} at its start).
 */
final class SiteLatencies {
    private final List<String> names;
    /** Replaced whole at {@link #reset}; each one guarded by its own monitor (a histogram is not thread-safe). */
    private final AtomicReferenceArray<LatencyHistogram> bySite;

    SiteLatencies(SitesPlan plan) {
        this.names = plan.names();
        this.bySite = new AtomicReferenceArray<>(names.size());
        reset();
    }

    /** {@code inner}, timing each call for site {@code site} (0-based). */
    CallExecutor timing(int site, CallExecutor inner) {
        return new CallExecutor() {
            @Override
            public ExecutionOutcome execute(ProcedureCall call) {
                long start = System.nanoTime();
                ExecutionOutcome outcome = inner.execute(call);
                record(site, System.nanoTime() - start);
                return outcome;
            }

            @Override
            public void close() {
                inner.close();
            }
        };
    }

    private void record(int site, long nanos) {
        LatencyHistogram histogram = bySite.get(site);
        synchronized (histogram) { // a site's terminals share one
            histogram.recordNanos(nanos);
        }
    }

    /** Forgets what was recorded so far (the warm-up). */
    void reset() {
        for (int site = 0; site < bySite.length(); site++) {
            bySite.set(site, new LatencyHistogram()); // a call recorded into the old one belonged to the warm-up
        }
    }

    /** {site: {p50, p99, calls}} in milliseconds, for result.json. */
    Map<String, Map<String, Double>> summary() {
        Map<String, Map<String, Double>> summary = new LinkedHashMap<>();
        for (int site = 0; site < names.size(); site++) {
            LatencyHistogram histogram = bySite.get(site);
            synchronized (histogram) {
                Map<String, Double> figures = new LinkedHashMap<>();
                figures.put("p50", Math.round(histogram.percentileMillis(50) * 1000) / 1000.0);
                figures.put("p99", Math.round(histogram.percentileMillis(99) * 1000) / 1000.0);
                figures.put("calls", (double) histogram.count());
                summary.put(names.get(site), figures);
            }
        }
        return summary;
    }
}
