package org.gargamel.launcher.costs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;

/**
 * What {@code bench costs} runs, checked, nothing started: one TPC-C run through Gargamel per replica count
 * ({@code gargamelRuns}, in the order given, each the run {@code tpcc run} would make of the same options but with
 * server JIT settings for the scheduler and node JVMs), and the native run (a direct run, put on the publisher when it
 * runs), unless {@code --no-native}. {@code command}: the command line with every value, for costs.json.
 *
 * <p>Invariant: every run has the same warehouses, terminals, warm-up, duration and seeds; the Gargamel runs have
 * distinct replica counts.
 */
public record CostsPlan(String command, List<RunRequest> gargamelRuns, Optional<RunRequest> nativeRun, Path out) {
    public CostsPlan {
        gargamelRuns = List.copyOf(gargamelRuns);
        if (gargamelRuns.isEmpty()) {
            throw new IllegalArgumentException("bench costs needs at least one replica count");
        }
        RunRequest first = gargamelRuns.get(0);
        for (RunRequest run : gargamelRuns) {
            if (!(run.target() instanceof RunTarget.Gargamel)) {
                throw new IllegalArgumentException("not a run through Gargamel: " + run.target());
            }
            requireSameWorkload(first, run);
        }
        if (gargamelRuns.stream().map(RunRequest::replicas).distinct().count() != gargamelRuns.size()) {
            throw new IllegalArgumentException("a replica count is given twice");
        }
        nativeRun.ifPresent(run -> requireSameWorkload(first, run));
    }

    /** The workload's settings, for costs.json. */
    Map<String, Object> settings() {
        RunRequest first = gargamelRuns.get(0);
        Map<String, Object> settings = new java.util.LinkedHashMap<>();
        settings.put("replicas", gargamelRuns.stream().map(RunRequest::replicas).toList());
        settings.put("warehouses", first.warehouses());
        settings.put("terminals", first.terminals());
        settings.put("warmupSeconds", first.warmup().toMillis() / 1000.0);
        settings.put("durationSeconds", first.duration().toMillis() / 1000.0);
        settings.put("seed", first.seed());
        settings.put("loadSeed", first.loadSeed());
        settings.put("native", nativeRun.isPresent());
        return settings;
    }

    /** How long the terminals run in all: each run's warm-up and interval. */
    Duration terminalsTime() {
        RunRequest first = gargamelRuns.get(0);
        int runs = gargamelRuns.size() + (nativeRun.isPresent() ? 1 : 0);
        return first.warmup().plus(first.duration()).multipliedBy(runs);
    }

    private static void requireSameWorkload(RunRequest first, RunRequest run) {
        if (run.warehouses() != first.warehouses()
                || run.terminals() != first.terminals()
                || !run.warmup().equals(first.warmup())
                || !run.duration().equals(first.duration())
                || run.seed() != first.seed()
                || run.loadSeed() != first.loadSeed()) {
            throw new IllegalArgumentException(
                    "the bench's runs must share one workload; " + run + " differs from " + first);
        }
    }
}
