package org.gargamel.launcher.compare;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;
import org.gargamel.tpcc.result.RunResult;

/**
 * One row of {@code compare.json}: a configuration and what it achieved. {@code terminals} is set for
 * closed-loop runs, {@code rate} for open-loop ones. Latency is over all five transaction types.
 */
@JsonPropertyOrder({
    "mode",
    "isolation",
    "client",
    "replicas",
    "warehouses",
    "terminals",
    "rate",
    "tpmC",
    "throughputTps",
    "conflictAborts",
    "retries",
    "userAborts",
    "errors",
    "latencyMs",
    "consistent",
    "identical",
    "result"
})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompareRun(
        String mode,
        String isolation,
        String client,
        int replicas,
        int warehouses,
        Integer terminals,
        Double rate,
        double tpmC,
        double throughputTps,
        long conflictAborts,
        long retries,
        long userAborts,
        long errors,
        Map<String, Double> latencyMs,
        boolean consistent,
        boolean identical,
        String result) {

    /** A row from a run's result; {@code overallLatency} holds p50/p95/p99 over every call of the run. */
    public static CompareRun of(
            RunResult run,
            Map<String, Double> overallLatency,
            boolean consistent,
            boolean identical,
            String resultPath) {
        return new CompareRun(
                run.mode(),
                run.isolation(),
                run.client(),
                run.replicas(),
                run.warehouses(),
                run.rate() == null ? run.terminals() : null,
                run.rate(),
                run.tpmC(),
                run.throughputTps(),
                run.conflictAborts(),
                run.retries(),
                run.userAborts(),
                run.errors(),
                overallLatency,
                consistent,
                identical,
                resultPath);
    }

    public boolean openLoop() {
        return rate != null;
    }

    /** The mode, and the client when it is not the library: {@code gargamel pgwire}. */
    public String modeAndClient() {
        return mode + (PGWIRE.equals(client) ? " " + PGWIRE : "");
    }

    /** e.g. {@code gargamel psi, 3 replicas, 1 wh}, or {@code gargamel pgwire psi, 1 repl., 1 wh}. */
    public String label() {
        return modeAndClient() + (mode.equals("direct") ? "" : " " + isolation) + ", " + replicas + " repl., "
                + warehouses + " wh";
    }

    private static final String PGWIRE = "pgwire";
}
