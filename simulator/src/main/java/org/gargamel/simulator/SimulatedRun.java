package org.gargamel.simulator;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.common.config.Mode;

/**
 * What one simulated run achieved, over its measurement interval: an entry of {@code runs} in simulate.json.
 * {@code cpuUtilisation} is the share of the simulated cores that was busy.
 */
@JsonPropertyOrder({
    "mode",
    "replicas",
    "terminals",
    "warehouses",
    "tpmC",
    "throughputTps",
    "conflictAborts",
    "rejected",
    "latencyMs",
    "cpuUtilisation"
})
public record SimulatedRun(
        @JsonIgnore Mode mode,
        int replicas,
        int terminals,
        int warehouses,
        double tpmC,
        double throughputTps,
        long conflictAborts,
        long rejected,
        @JsonIgnore double latencyP50Ms,
        @JsonIgnore double latencyP99Ms,
        double cpuUtilisation) {

    /** The mode as the commands name it: gargamel, round-robin, centralized. */
    @com.fasterxml.jackson.annotation.JsonProperty("mode")
    public String modeName() {
        return mode.configName();
    }

    @com.fasterxml.jackson.annotation.JsonProperty("latencyMs")
    public Map<String, Double> latencyMs() {
        Map<String, Double> latency = new LinkedHashMap<>();
        latency.put("p50", round(latencyP50Ms));
        latency.put("p99", round(latencyP99Ms));
        return latency;
    }

    /** Rounded to what a simulation can claim. */
    public SimulatedRun rounded() {
        return new SimulatedRun(
                mode,
                replicas,
                terminals,
                warehouses,
                Math.round(tpmC),
                round(throughputTps),
                conflictAborts,
                rejected,
                latencyP50Ms,
                latencyP99Ms,
                round(cpuUtilisation));
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
