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
import org.gargamel.common.stats.LatencyHistogram;

/**
 * What a node counted: calls committed and user-aborted here, certification aborts and local retries, write-sets
 * applied; and per procedure the time to execute a call here against the time to apply its write-set from another
 * replica (the thesis's Fig 7.7), in wall time and in CPU time (the node's thread and the PostgreSQL backend,
 * {@link CpuClock}). Written as JSON when the node stops. Thread-safe.
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
    /** Applied while another write-set was applying here (parallel apply). */
    private long appliedBesideAnother;
    /** Transactions that applied several write-sets together, and the write-sets they applied (apply groups). */
    private long applyGroups;

    private long appliedInGroups;
    /** Groups rolled back and applied one write-set at a time (a lock wait too long, a failure). */
    private long groupsGaveWay;

    /** Multi-site: calls run before the schedule log placed them, and what became of them (docs/multisite.md). */
    private long provisional;

    private long stalled;
    private long stallNanos;
    /** Each provisional call's wait for its agreement once its run ended (1 µs, the least, when it was in first). */
    private final LatencyHistogram agreementWait = new LatencyHistogram();

    private long cancelled;
    private long killed;
    /** Site-owned classes: spanning calls run behind a barrier, and how long they waited for it. */
    private long barriers;

    private long barrierNanos;
    private long failed;
    private long droppedStale;
    private long answeredFromEarlierRuns;
    private long unsoundWrites;
    private long logCommits;
    private long logCommitNanos;
    private final Map<String, ProcedureFigures> procedures = new TreeMap<>();

    /** Sums for one procedure: its executions here and the applies of its write-sets from elsewhere. */
    private static final class ProcedureFigures {
        final Sums execute = new Sums();
        final Sums apply = new Sums();
    }

    /** Calls (or write-sets), their wall time, and the CPU spent on them by the node's thread and by PostgreSQL. */
    private static final class Sums {
        long count;
        long wallNanos;
        long threadCpuNanos;
        /** Those measured on the PostgreSQL side too ({@link CpuClock}), and that side's CPU. */
        long backendMeasured;

        long backendCpuNanos;

        void add(CpuClock.Elapsed elapsed) {
            count++;
            wallNanos += elapsed.wallNanos();
            threadCpuNanos += elapsed.threadNanos();
            if (elapsed.backendMeasured()) {
                backendMeasured++;
                backendCpuNanos += elapsed.backendNanos();
            }
        }

        /**
         * The means in ms: {@code <prefix>Ms} (wall), {@code <prefix>NodeCpuMs}, {@code <prefix>PostgresCpuMs} (null
         * where never measured) and {@code <prefix>CpuMs} (both).
         */
        void putMeans(Map<String, Object> figures, String prefix) {
            figures.put(prefix + "Ms", mean(wallNanos, count));
            figures.put(prefix + "NodeCpuMs", mean(threadCpuNanos, count));
            figures.put(prefix + "PostgresCpuMs", backendMeasured == 0 ? null : mean(backendCpuNanos, backendMeasured));
            // Node and PostgreSQL together; only where both sides were measured for every one of them.
            figures.put(
                    prefix + "CpuMs",
                    count == 0 || backendMeasured != count ? null : mean(threadCpuNanos + backendCpuNanos, count));
        }

        private static double mean(long nanos, long n) {
            return n == 0 ? 0 : round(nanos / 1e6 / n);
        }
    }

    public NodeStatistics(String node) {
        this.node = node;
    }

    /** An update call executed here: its wall time and the CPU spent by its worker and by its backend. */
    public synchronized void executed(String procedure, boolean committedHere, CpuClock.Elapsed elapsed) {
        if (committedHere) {
            committed++;
        } else {
            userAborts++;
        }
        figures(procedure).execute.add(elapsed);
    }

    public synchronized void readOnly(String procedure, CpuClock.Elapsed elapsed) {
        readOnly++;
        figures(procedure).execute.add(elapsed);
    }

    /** Another replica's write-set applied here, from its dependencies being visible to its commit. */
    public synchronized void applied(String procedure, CpuClock.Elapsed elapsed) {
        applied++;
        figures(procedure).apply.add(elapsed);
    }

    /** A write-set whose apply overlapped another's (parallel apply, docs/node.md). */
    public synchronized void appliedBesideAnother() {
        appliedBesideAnother++;
    }

    /** Several write-sets applied in one transaction (docs/node.md, Apply groups). */
    public synchronized void appliedGroup(int writeSets) {
        applyGroups++;
        appliedInGroups += writeSets;
    }

    /** A group gave way: rolled back, its write-sets applied one by one. */
    public synchronized void groupGaveWay() {
        groupsGaveWay++;
    }

    /** A provisional call ran before its agreement came: its transaction stays open until then (a stall). */
    public synchronized void stalls() {
        stalled++;
    }

    /** A provisional call's agreement is in, {@code stalledNanos} after its run ended (0: it was in before). */
    public synchronized void provisionalRan(long stalledNanos) {
        provisional++;
        stallNanos += stalledNanos;
        agreementWait.recordNanos(stalledNanos);
    }

    /** A provisional call collided before it started: it waits for its agreed back-dependencies instead. */
    public synchronized void cancelled() {
        provisional++;
        cancelled++;
    }

    /** A provisional call collided after it ran: rolled back, run again after its agreed back-dependencies. */
    public synchronized void killed() {
        killed++;
    }

    /** How many spanning calls of site-owned classes ran behind a barrier. */
    public synchronized long barrierCount() {
        return barriers;
    }

    /** A spanning call of site-owned classes waited {@code nanos} behind its barrier before it ran. */
    public synchronized void behindBarrier(long nanos) {
        barriers++;
        barrierNanos += nanos;
    }

    public synchronized long provisionalCount() {
        return provisional;
    }

    public synchronized long stalledCount() {
        return stalled;
    }

    public synchronized long cancelledCount() {
        return cancelled;
    }

    public synchronized long killedCount() {
        return killed;
    }

    public synchronized long applyGroupCount() {
        return applyGroups;
    }

    public synchronized long groupsGaveWayCount() {
        return groupsGaveWay;
    }

    public synchronized long appliedBesideAnotherCount() {
        return appliedBesideAnother;
    }

    /**
     * A write-set of this node's committed in the write-set log {@code nanos} after it was appended: the consensus's
     * latency, which the simulator takes from here.
     */
    public synchronized void logCommitted(long nanos) {
        logCommits++;
        logCommitNanos += nanos;
    }

    private ProcedureFigures figures(String procedure) {
        return procedures.computeIfAbsent(procedure, name -> new ProcedureFigures());
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
        map.put("appliedBesideAnother", appliedBesideAnother);
        map.put("applyGroups", applyGroups);
        map.put("appliedInGroups", appliedInGroups);
        map.put("applyGroupsGaveWay", groupsGaveWay);
        map.put("provisionalCalls", provisional);
        map.put("stalled", stalled);
        map.put("stallMs", Sums.mean(stallNanos, stalled));
        // Every provisional call's wait for its agreement after its run (1 µs when it was in first), for percentiles.
        map.put("agreementWait", agreementWait.toMap());
        map.put("cancelled", cancelled);
        map.put("killed", killed);
        map.put("barriers", barriers);
        map.put("barrierMs", Sums.mean(barrierNanos, barriers));
        map.put("failed", failed);
        map.put("droppedStaleCalls", droppedStale);
        map.put("answeredFromEarlierRuns", answeredFromEarlierRuns);
        map.put("unsoundWrites", unsoundWrites);
        map.put("logCommitMs", Sums.mean(logCommitNanos, logCommits));
        Map<String, Object> perProcedure = new LinkedHashMap<>();
        for (Map.Entry<String, ProcedureFigures> entry : procedures.entrySet()) {
            ProcedureFigures v = entry.getValue();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("executed", v.execute.count);
            v.execute.putMeans(figures, "execute");
            figures.put("appliedCount", v.apply.count);
            v.apply.putMeans(figures, "apply");
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
                    "  %-14s execute %s ms (%s calls; CPU %s ms), apply %s ms (%s write-sets; CPU %s ms)%n",
                    entry.getKey(),
                    entry.getValue().get("executeMs"),
                    entry.getValue().get("executed"),
                    cpu(entry.getValue(), "execute"),
                    entry.getValue().get("applyMs"),
                    entry.getValue().get("appliedCount"),
                    cpu(entry.getValue(), "apply")));
        }
        return text.toString();
    }

    /** "node N + PostgreSQL M", or the node's alone where PostgreSQL's was not measured. */
    private static String cpu(Map<String, Object> figures, String prefix) {
        Object postgres = figures.get(prefix + "PostgresCpuMs");
        return "node " + figures.get(prefix + "NodeCpuMs") + (postgres == null ? "" : " + PostgreSQL " + postgres);
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
