package org.gargamel.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.tpcc.TpccRules;

/**
 * What the simulated processes cost, in CPU milliseconds, as a measured run found them (thesis ch. 5: the simulator's
 * parameters come from measurements of the real system).
 *
 * <ul>
 *   <li>{@code procedures}: per procedure, executing a call at its replica and applying its write-set at another one
 *       (the node's thread and its PostgreSQL backend: nodes.json's {@code executeCpuMs} and {@code applyCpuMs}).
 *   <li>{@code clientCpuMs} and {@code schedulerCpuMs}: the terminals' process and the scheduler's, per call.
 *   <li>{@code replicaOverheadCpuMs}: what a replica spends per write-set beyond those (JGroups, the write-set log, the
 *       node's other threads, PostgreSQL's background work), at every replica: the replicas' processes' CPU per call
 *       (result.json's {@code cpu}) less the measured executes and applies, spread over the write-sets each handled.
 *   <li>{@code hostBusyCores}: how many cores the calibration run's machine delivered, saturated by it (all its
 *       processes on one host): what a prediction of a run on that machine may use.
 * </ul>
 */
public record CostModel(
        int replicas,
        Map<String, ProcedureCost> procedures,
        double clientCpuMs,
        double schedulerCpuMs,
        double replicaOverheadCpuMs,
        double hostBusyCores,
        String source) {

    /** One procedure's costs: executing a call, and applying its write-set elsewhere (0 for a read-only one). */
    public record ProcedureCost(double executeCpuMs, double applyCpuMs) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    public CostModel {
        procedures = Map.copyOf(procedures);
    }

    /** The costs of procedure {@code name}; an error naming the procedures known if the run measured none. */
    public ProcedureCost cost(String name) {
        ProcedureCost cost = procedures.get(name);
        if (cost == null) {
            throw new IllegalArgumentException("the calibration (" + source + ") measured no procedure '" + name
                    + "'; it has " + new TreeMap<>(procedures).keySet());
        }
        return cost;
    }

    /** From a run shipped as class-path resources {@code directory + "nodes.json"} and {@code "result.json"}. */
    static CostModel fromResources(String directory) {
        try (InputStream nodes = CostModel.class.getResourceAsStream(directory + "nodes.json");
                InputStream result = CostModel.class.getResourceAsStream(directory + "result.json")) {
            if (nodes == null || result == null) {
                throw new IllegalStateException("the built-in calibration " + directory + " is missing from the jar");
            }
            return from(JSON.readTree(nodes), JSON.readTree(result), "built-in " + directory);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the built-in calibration: " + e.getMessage(), e);
        }
    }

    /**
     * From a run's output directory ({@code tpcc run --out DIR}), or its {@code nodes.json}, with {@code result.json}
     * beside it. A run of one replica measures no apply (its apply costs are 0 here: {@link Calibration} takes them
     * from a run of more).
     */
    public static CostModel fromRun(Path location) throws IOException {
        Path directory = Files.isDirectory(location)
                ? location
                : location.toAbsolutePath().getParent();
        Path nodes = directory.resolve("nodes.json");
        Path result = directory.resolve("result.json");
        for (Path file : new Path[] {nodes, result}) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("calibration " + location + ": no " + file.getFileName() + " in "
                        + directory + " (give the --out directory of a 'tpcc run' with 2 or more replicas)");
            }
        }
        return from(readJson(nodes), readJson(result), directory.toString());
    }

    /** A run's JSON file; one that is not JSON is an error naming it and where it breaks, on one line. */
    private static JsonNode readJson(Path file) throws IOException {
        try {
            return JSON.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("calibration " + file + " is not valid JSON: "
                    + e.getOriginalMessage() + " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")");
        }
    }

    static CostModel from(JsonNode nodes, JsonNode result, String source) {
        if (!nodes.isArray() || nodes.isEmpty()) {
            throw new IllegalArgumentException("calibration " + source + ": nodes.json holds no node");
        }
        int replicas = result.path("replicas").asInt(0);
        if (replicas < 1 || !"gargamel".equals(result.path("mode").asText())) {
            throw new IllegalArgumentException("calibration " + source + ": not a run through Gargamel (mode "
                    + result.path("mode").asText() + ", " + replicas + " replica(s))");
        }
        JsonNode cpu = result.path("cpu");
        if (!cpu.isObject()) {
            throw new IllegalArgumentException("calibration " + source + ": result.json has no 'cpu' (where the run's "
                    + "CPU went); it comes from a 'tpcc run' on this version, on Linux, with no chaos");
        }
        JsonNode perCall = cpu.path("msPerCall");
        Map<String, double[]> sums = new LinkedHashMap<>(); // executed, execute CPU sum, applied, apply CPU sum
        for (JsonNode node : nodes) {
            node.path("procedures").properties().forEach(entry -> {
                JsonNode p = entry.getValue();
                double[] sum = sums.computeIfAbsent(entry.getKey(), k -> new double[4]);
                long executed = p.path("executed").asLong();
                long applied = p.path("appliedCount").asLong();
                if (executed > 0) {
                    sum[0] += executed;
                    sum[1] += executed * required(p, "executeCpuMs", source, entry.getKey());
                }
                if (applied > 0) {
                    sum[2] += applied;
                    sum[3] += applied * required(p, "applyCpuMs", source, entry.getKey());
                }
            });
        }
        Map<String, ProcedureCost> procedures = new LinkedHashMap<>();
        double calls = 0;
        double updateCalls = 0;
        double measuredPerRun = 0; // CPU ms the nodes measured in all: executes everywhere, applies everywhere
        ClassifierRules kit = ClassifierRules.loadResource(TpccRules.class, TpccRules.TABLE61_RESOURCE);
        for (Map.Entry<String, double[]> entry : sums.entrySet()) {
            double[] sum = entry.getValue();
            double execute = sum[0] == 0 ? 0 : sum[1] / sum[0];
            double apply = sum[2] == 0 ? 0 : sum[3] / sum[2];
            procedures.put(entry.getKey(), new ProcedureCost(round(execute), round(apply)));
            calls += sum[0];
            if (!kit.procedures().containsKey(entry.getKey())) {
                throw new IllegalArgumentException("calibration " + source + ": procedure " + entry.getKey()
                        + " is not TPC-C's (the simulator drives the TPC-C kit)");
            }
            if (!kit.procedure(entry.getKey()).readOnly()) {
                updateCalls += sum[0];
            }
            measuredPerRun += sum[1] + sum[3];
        }
        double replicaCpuPerCall = perCall.path("nodes").asDouble(Double.NaN)
                + perCall.path("postgres").asDouble(Double.NaN);
        if (Double.isNaN(replicaCpuPerCall)) {
            throw new IllegalArgumentException("calibration " + source + ": result.json's cpu.msPerCall lacks 'nodes' "
                    + "or 'postgres' (a run on embedded PostgreSQL measures both)");
        }
        // The measured executes and applies per call (the nodes count the whole run, warm-up included, so their total
        // is taken per call); the rest of the replicas' CPU is spread over every write-set at every replica.
        double measuredPerCall = calls == 0 ? 0 : measuredPerRun / calls;
        double updateShare = calls == 0 ? 0 : updateCalls / calls;
        double overhead =
                updateShare == 0 ? 0 : Math.max(0, replicaCpuPerCall - measuredPerCall) / (replicas * updateShare);
        return new CostModel(
                replicas,
                procedures,
                perCall.path("client").asDouble(0),
                perCall.path("scheduler").asDouble(0),
                round(overhead),
                cpu.path("hostBusyCores").asDouble(0),
                source);
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }

    private static double required(JsonNode procedure, String field, String source, String name) {
        JsonNode value = procedure.path(field);
        if (!value.isNumber()) {
            throw new IllegalArgumentException("calibration " + source + ": procedure " + name + " has no " + field
                    + " (PostgreSQL's CPU was not measured: a run on embedded PostgreSQL on Linux measures it)");
        }
        return value.asDouble();
    }
}
