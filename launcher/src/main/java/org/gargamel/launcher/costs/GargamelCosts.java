package org.gargamel.launcher.costs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.tpcc.result.RunCpu;
import org.gargamel.tpcc.result.RunResult;

/**
 * What one TPC-C run through Gargamel at {@code replicas} replicas cost, read back from the files the run wrote
 * ({@code result.json}'s {@code cpu}, over the measurement interval; {@code nodes.json}, over the whole run).
 *
 * <p>{@code roles}: {@link #JAVA_ROLES} that the run measured, then {@code postgres} (every replica's server) and
 * {@link #ALL_JAVA} (the Java roles summed). {@code executedCalls} are the calls the nodes ran (committed, user-aborted
 * or read-only, each at exactly one node) and {@code appliedWriteSets} the write-sets they applied from other replicas,
 * both over the whole run, warm-up included: their ratio is the run's foreign write-sets per call, which does not
 * depend on the interval. The thread figures are the nodes' own measurements of their worker and apply threads (and the
 * PostgreSQL backends behind them), weighted by count over the procedures and nodes; null where none was measured.
 */
public record GargamelCosts(
        int replicas,
        double tpmC,
        long calls,
        double seconds,
        Map<String, RoleCost> roles,
        long executedCalls,
        long appliedWriteSets,
        Double workerCpuMsPerCall,
        Double applyThreadCpuMsPerWriteSet,
        Double postgresBackendCpuMsPerWriteSet,
        Path result) {
    /** The Java processes' roles in result.json, in the order reports list them. */
    public static final List<String> JAVA_ROLES = List.of("client", "scheduler", "nodes", "frontend");

    public static final String POSTGRES = "postgres";
    public static final String ALL_JAVA = "allJava";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads the run of {@code replicas} replicas whose {@code result.json} and {@code nodes.json} are in {@code run}. */
    public static GargamelCosts read(int replicas, Path run) throws IOException {
        Path resultFile = run.resolve("result.json");
        RunResult result = RunResult.read(resultFile);
        RunCpu cpu = result.cpu();
        if (cpu == null) {
            throw new IllegalStateException(
                    resultFile + " has no cpu figures (they are read from /proc: Linux only, and not in chaos runs)");
        }
        return of(replicas, result, JSON.readTree(run.resolve("nodes.json").toFile()), resultFile);
    }

    /** From a run's result and its nodes' statistics (the array of nodes.json). */
    static GargamelCosts of(int replicas, RunResult result, JsonNode nodes, Path resultFile) {
        RunCpu cpu = result.cpu();
        Map<String, RoleCost> roles = new LinkedHashMap<>();
        RoleCost allJava = new RoleCost(0, 0, 0);
        for (String role : JAVA_ROLES) {
            Double total = cpu.msPerCall().get(role);
            if (total == null) {
                continue; // not part of this run (the front end), or not measured
            }
            Double jit = cpu.jitMsPerCall() == null ? null : cpu.jitMsPerCall().get(role);
            RoleCost cost = jit == null
                    ? new RoleCost(total, 0, total)
                    : new RoleCost(total, jit, cpu.msPerCallLessJit().get(role));
            roles.put(role, cost);
            allJava = allJava.plus(cost);
        }
        Double postgres = cpu.msPerCall().get(POSTGRES);
        if (postgres != null) {
            roles.put(POSTGRES, RoleCost.withoutJit(postgres));
        }
        roles.put(ALL_JAVA, allJava);
        long executed = 0;
        long applied = 0;
        for (JsonNode node : nodes) {
            executed += node.path("committed").asLong(0)
                    + node.path("userAborts").asLong(0)
                    + node.path("readOnly").asLong(0);
            applied += node.path("applied").asLong(0);
        }
        return new GargamelCosts(
                replicas,
                result.tpmC(),
                cpu.calls(),
                cpu.seconds(),
                roles,
                executed,
                applied,
                weightedMean(nodes, "executeNodeCpuMs", "executed"),
                weightedMean(nodes, "applyNodeCpuMs", "appliedCount"),
                weightedMean(nodes, "applyPostgresCpuMs", "appliedCount"),
                resultFile);
    }

    /** Foreign write-sets applied per call executed: about (replicas - 1) × the share of update calls. */
    public double writeSetsPerCall() {
        return executedCalls == 0 ? 0 : (double) appliedWriteSets / executedCalls;
    }

    public RoleCost role(String name) {
        RoleCost cost = roles.get(name);
        if (cost == null) {
            throw new IllegalStateException("the run of " + replicas + " replica(s) did not measure role '" + name
                    + "' (measured: " + roles.keySet() + ")");
        }
        return cost;
    }

    /**
     * The mean of {@code meanField} over every procedure of every node, weighted by {@code countField}; null where
     * none counted any or a node that counted some has no number there (a figure it did not measure).
     */
    private static Double weightedMean(JsonNode nodes, String meanField, String countField) {
        double weighted = 0;
        long count = 0;
        for (JsonNode node : nodes) {
            for (JsonNode procedure : node.path("procedures")) {
                long n = procedure.path(countField).asLong(0);
                if (n == 0) {
                    continue;
                }
                if (!procedure.path(meanField).isNumber()) {
                    return null;
                }
                weighted += n * procedure.path(meanField).asDouble();
                count += n;
            }
        }
        return count == 0 ? null : RoleCost.round(weighted / count);
    }
}
