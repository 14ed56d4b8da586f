package org.gargamel.launcher.compare;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;
import org.gargamel.tpcc.result.RunResult;

/**
 * One row of {@code compare.json}: a configuration and what it achieved. {@code terminals} is set for
 * closed-loop runs, {@code rate} for open-loop ones. Latency is over all five transaction types. {@code sites}: a
 * multi-site run's figures as its result.json has them (docs/multisite.md), else absent.
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
    "sites",
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
        Map<String, Object> sites,
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
                sitesOf(run),
                resultPath);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> sitesOf(RunResult run) {
        return run.sites() instanceof Map<?, ?> figures ? (Map<String, Object>) figures : null;
    }

    /**
     * A multi-site run's agreement (optimistic, pessimistic, owned, one-scheduler; "owned, site ack" with a write-set
     * log per site), or null.
     */
    public String agreement() {
        if (sites == null) {
            return null;
        }
        String agreement = (String) sites.get("agreement");
        return "site".equals(sites.get("acknowledgement")) ? agreement + ", site ack" : agreement;
    }

    /** A multi-site run's warehouse placement (partitioned, shared), or null. */
    public String warehousesPerSite() {
        return sites == null ? null : (String) sites.get("warehousesPerSite");
    }

    /** A multi-site run's latency percentile {@code p} (p50, p99) at site {@code site} (0-based), or null. */
    public Double siteLatency(int site, String p) {
        if (sites == null) {
            return null;
        }
        Object bySite = ((Map<?, ?>) sites.get("latencyMsBySite")).get("site-" + (site + 1));
        return bySite == null ? null : ((Number) ((Map<?, ?>) bySite).get(p)).doubleValue();
    }

    /** A multi-site run's count {@code key} (collisions, cancels, kills, stalls), 0 if absent. */
    public long siteCount(String key) {
        return sites == null || !(sites.get(key) instanceof Number n) ? 0 : n.longValue();
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
        if (sites != null) {
            return agreement() + ", " + ((java.util.List<?>) sites.get("sites")).size() + " sites "
                    + sites.get("siteDelayMs") + " ms, " + warehousesPerSite();
        }
        return modeAndClient() + (mode.equals("direct") ? "" : " " + isolation) + ", " + replicas + " repl., "
                + warehouses + " wh";
    }

    private static final String PGWIRE = "pgwire";
}
