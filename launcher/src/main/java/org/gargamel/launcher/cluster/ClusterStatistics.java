package org.gargamel.launcher.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the nodes counted during a run, read from the statistics file each node writes when it stops: per node
 * the counters ({@code committed}, {@code userAborts}, {@code conflictAborts}, {@code retries}, {@code applied})
 * and per procedure the mean time to execute a call against the mean time to apply its write-set elsewhere, in wall
 * time and in CPU time (the node's thread and the PostgreSQL backend).
 */
public final class ClusterStatistics {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final List<JsonNode> nodes;

    public ClusterStatistics(List<JsonNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    public static ClusterStatistics read(List<Path> files) {
        List<JsonNode> nodes = new ArrayList<>();
        for (Path file : files) {
            try {
                if (Files.exists(file)) {
                    nodes.add(JSON.readTree(file.toFile()));
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot read node statistics " + file + ": " + e.getMessage(), e);
            }
        }
        return new ClusterStatistics(nodes);
    }

    public List<JsonNode> nodes() {
        return nodes;
    }

    public long conflictAborts() {
        return sum("conflictAborts");
    }

    public long retries() {
        return sum("retries");
    }

    public long sum(String counter) {
        long total = 0;
        for (JsonNode node : nodes) {
            total += node.path(counter).asLong(0);
        }
        return total;
    }

    public void write(Path file) throws IOException {
        ArrayNode array = JSON.createArrayNode();
        nodes.forEach(array::add);
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), array);
    }

    /** Per node counters, then per procedure execute against apply times (the thesis's Fig 7.7). */
    public String render() {
        if (nodes.isEmpty()) {
            return "nodes: no statistics (the nodes did not stop cleanly)\n";
        }
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "%n%-8s %10s %8s %9s %8s %9s%n",
                "node",
                "committed",
                "aborts",
                "conflicts",
                "retries",
                "applied"));
        for (JsonNode node : nodes) {
            text.append(String.format(
                    Locale.ROOT,
                    "%-8s %10d %8d %9d %8d %9d%n",
                    node.path("node").asText("?"),
                    node.path("committed").asLong(),
                    node.path("userAborts").asLong(),
                    node.path("conflictAborts").asLong(),
                    node.path("retries").asLong(),
                    node.path("applied").asLong()));
        }
        text.append(String.format(
                Locale.ROOT,
                "%-14s %12s %12s %8s %16s %16s %8s%n",
                "procedure",
                "execute ms",
                "apply ms",
                "ratio",
                "execute CPU ms",
                "apply CPU ms",
                "e/a CPU"));
        for (String procedure : procedures()) {
            Double execute = weightedMean(procedure, "executeMs", "executed");
            Double apply = weightedMean(procedure, "applyMs", "appliedCount");
            Double executeCpu = weightedMean(procedure, "executeCpuMs", "executed");
            Double applyCpu = weightedMean(procedure, "applyCpuMs", "appliedCount");
            text.append(String.format(
                    Locale.ROOT,
                    "%-14s %12.3f %12.3f %8s %16s %16s %8s%n",
                    procedure,
                    execute == null ? 0 : execute,
                    apply == null ? 0 : apply,
                    ratio(execute, apply),
                    executeCpu == null ? "-" : String.format(Locale.ROOT, "%.3f", executeCpu),
                    applyCpu == null ? "-" : String.format(Locale.ROOT, "%.3f", applyCpu),
                    ratio(executeCpu, applyCpu)));
        }
        text.append(
                "(CPU: the node's thread and the PostgreSQL backend per call or write-set; '-' where PostgreSQL's is"
                        + " not measured from here)\n");
        return text.toString();
    }

    private static String ratio(Double execute, Double apply) {
        return execute != null && apply != null && apply > 0
                ? String.format(Locale.ROOT, "%.1fx", execute / apply)
                : "-";
    }

    private List<String> procedures() {
        List<String> names = new ArrayList<>();
        for (JsonNode node : nodes) {
            for (Map.Entry<String, JsonNode> procedure : node.path("procedures").properties()) {
                String name = procedure.getKey();
                if (!names.contains(name)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * The mean of {@code meanField} over the nodes, weighted by {@code countField}; null when no node counted any, or
     * when a node that counted some has no number there (a CPU figure whose PostgreSQL side it did not measure).
     */
    private Double weightedMean(String procedure, String meanField, String countField) {
        double weighted = 0;
        long count = 0;
        for (JsonNode node : nodes) {
            JsonNode entry = node.path("procedures").path(procedure);
            long n = entry.path(countField).asLong(0);
            if (n == 0) {
                continue;
            }
            JsonNode mean = entry.path(meanField);
            if (!mean.isNumber()) {
                return null;
            }
            weighted += n * mean.asDouble();
            count += n;
        }
        return count == 0 ? null : weighted / count;
    }
}
