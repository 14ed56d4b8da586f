package org.gargamel.tpcc.result;

import java.util.Map;
import org.gargamel.tpcc.workload.TransactionType;

/** The human summary printed at the end of a run. */
public final class RunSummary {
    private RunSummary() {}

    public static String render(RunResult result) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                "%nTPC-C %s (%s%s), %d replica(s), %d warehouse(s), %s, %.1f s%s%n",
                result.mode(),
                result.isolation(),
                result.client() == null ? "" : ", " + result.client(),
                result.replicas(),
                result.warehouses(),
                result.rate() == null
                        ? result.terminals() + " terminal(s)"
                        : String.format("open loop at %.0f calls/s", result.rate()),
                result.durationSeconds(),
                result.warmupSeconds() > 0
                        ? String.format(" measured after a %.1f s warm-up", result.warmupSeconds())
                        : ""));
        text.append(String.format(
                "%-13s %10s %7s %6s %9s %9s %9s %9s%n",
                "type", "committed", "aborts", "mix%", "p50 ms", "p95 ms", "p99 ms", "max ms"));
        for (TransactionType type : TransactionType.values()) {
            Map<String, Double> latency = result.latencyMs().get(type.name());
            long aborts = type == TransactionType.NEW_ORDER ? result.userAborts() : 0;
            text.append(String.format(
                    "%-13s %10d %7d %6.1f %9.2f %9.2f %9.2f %9.2f%n",
                    type.name(),
                    result.committed().get(type.name()),
                    aborts,
                    result.mix().get(type.name()),
                    latency.get("p50"),
                    latency.get("p95"),
                    latency.get("p99"),
                    latency.get("max")));
        }
        text.append(String.format(
                "tpmC %.1f   throughput %.1f tx/s   user aborts %d   conflict aborts %d   "
                        + "retries %d   errors %d%s%n",
                result.tpmC(),
                result.throughputTps(),
                result.userAborts(),
                result.conflictAborts(),
                result.retries(),
                result.errors(),
                result.dropped() > 0 ? "   dropped " + result.dropped() : ""));
        if (result.cpu() != null) {
            text.append(String.format(
                    "CPU %.2f core(s) busy, ms per call:", result.cpu().hostBusyCores()));
            result.cpu().msPerCall().forEach((role, ms) -> text.append(String.format(" %s %.3f", role, ms)));
            text.append('\n');
        }
        if (result.firstError() != null) {
            text.append("first error: ").append(result.firstError()).append('\n');
        }
        return text.toString();
    }
}
