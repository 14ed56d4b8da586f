package org.gargamel.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node counted: calls committed and user-aborted here, certification aborts and local retries, write-sets
 * applied; and per procedure the time to execute a call here against the time to apply its write-set from another
 * replica (the thesis's Fig 7.7). Written as JSON when the node stops. Thread-safe.
 */
public final class NodeStatistics {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final String node;
    private long committed;
    private long userAborts;
    private long readOnly;
    private long conflictAborts;
    private long retries;
    private long applied;
    private long failed;
    private long droppedStale;
    private long answeredFromEarlierRuns;
    private long unsoundWrites;
    private final Map<String, long[]> procedures = new TreeMap<>(); // executed, executeNanos, applied, applyNanos

    public NodeStatistics(String node) {
        this.node = node;
    }

    public synchronized void executed(String procedure, boolean committedHere, long nanos) {
        if (committedHere) {
            committed++;
        } else {
            userAborts++;
        }
        long[] entry = procedures.computeIfAbsent(procedure, name -> new long[4]);
        entry[0]++;
        entry[1] += nanos;
    }

    public synchronized void readOnly(String procedure, long nanos) {
        readOnly++;
        long[] entry = procedures.computeIfAbsent(procedure, name -> new long[4]);
        entry[0]++;
        entry[1] += nanos;
    }

    public synchronized void applied(String procedure, long nanos) {
        applied++;
        long[] entry = procedures.computeIfAbsent(procedure, name -> new long[4]);
        entry[2]++;
        entry[3] += nanos;
    }

    /** A call that failed in an unexpected way before it could have had an effect (settled, REJECTED). */
    public synchronized void failedCall() {
        failed++;
    }

    public synchronized long failedCalls() {
        return failed;
    }

    /** A call of a superseded scheduler that had not started here: dropped (its client resubmits it). */
    public synchronized void droppedStaleCall() {
        droppedStale++;
    }

    public synchronized long droppedStaleCalls() {
        return droppedStale;
    }

    /** A resubmitted call answered with the outcome of its earlier run instead of running twice. */
    public synchronized void answeredFromEarlierRun() {
        answeredFromEarlierRuns++;
    }

    public synchronized long answeredFromEarlierRuns() {
        return answeredFromEarlierRuns;
    }

    /**
     * A call executed here wrote outside the keys its rule predicts (rulesCheck; docs/classifier.md): counted once per
     * call, whatever the reaction.
     */
    public synchronized void unsoundWrite() {
        unsoundWrites++;
    }

    public synchronized long unsoundWrites() {
        return unsoundWrites;
    }

    public synchronized void conflictAbort() {
        conflictAborts++;
    }

    public synchronized void retry() {
        retries++;
    }

    public synchronized long conflictAborts() {
        return conflictAborts;
    }

    public synchronized long retries() {
        return retries;
    }

    public synchronized long committed() {
        return committed;
    }

    public synchronized long applied() {
        return applied;
    }

    public synchronized Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("node", node);
        map.put("committed", committed);
        map.put("userAborts", userAborts);
        map.put("readOnly", readOnly);
        map.put("conflictAborts", conflictAborts);
        map.put("retries", retries);
        map.put("applied", applied);
        map.put("failed", failed);
        map.put("droppedStaleCalls", droppedStale);
        map.put("answeredFromEarlierRuns", answeredFromEarlierRuns);
        map.put("unsoundWrites", unsoundWrites);
        Map<String, Object> perProcedure = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> entry : procedures.entrySet()) {
            long[] v = entry.getValue();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("executed", v[0]);
            figures.put("executeMs", v[0] == 0 ? 0 : round(v[1] / 1e6 / v[0]));
            figures.put("appliedCount", v[2]);
            figures.put("applyMs", v[2] == 0 ? 0 : round(v[3] / 1e6 / v[2]));
            perProcedure.put(entry.getKey(), figures);
        }
        map.put("procedures", perProcedure);
        return map;
    }

    public void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), toMap());
    }

    public String render() {
        Map<String, Object> map = toMap();
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "%s: %d committed, %d user aborts, %d read-only, %d conflict aborts, %d retries, %d write-sets applied, "
                        + "%d failed, %d unsound writes%n",
                node,
                committed,
                userAborts,
                readOnly,
                conflictAborts,
                retries,
                applied,
                failed,
                unsoundWrites));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> perProcedure = (Map<String, Map<String, Object>>) map.get("procedures");
        for (Map.Entry<String, Map<String, Object>> entry : perProcedure.entrySet()) {
            text.append(String.format(
                    Locale.ROOT,
                    "  %-14s execute %s ms (%s calls), apply %s ms (%s write-sets)%n",
                    entry.getKey(),
                    entry.getValue().get("executeMs"),
                    entry.getValue().get("executed"),
                    entry.getValue().get("applyMs"),
                    entry.getValue().get("appliedCount")));
        }
        return text.toString();
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
