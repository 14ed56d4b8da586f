package org.gargamel.simulator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The costs measured by one or more runs at different replica counts ({@link CostModel} each), and the costs at any
 * count from them. On one shared host the per-call costs grow with the replicas (more messages per write-set, more
 * contention: measured, the client's CPU per call doubles from 1 to 3 replicas), so a prediction at N replicas on that
 * host takes each cost linearly between the two calibrated counts around N (or beyond, along the last two). A prediction
 * of replicas on machines of their own takes the costs of the largest calibrated count, held: no shared host's
 * contention grows there.
 */
public final class Calibration {
    /** Runs measured on the development machine (docs/results.md, Simulator): the built-in calibration, at 1 and 3 replicas. */
    static final String[] BUILT_IN = {
        "/org/gargamel/simulator/calibration/r1/", "/org/gargamel/simulator/calibration/r3/"
    };

    private final List<CostModel> points;

    private Calibration(List<CostModel> points) {
        this.points = points;
    }

    /** From runs at distinct replica counts; at least one of them with 2 or more (to measure applies). */
    public static Calibration of(List<CostModel> runs) {
        List<CostModel> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingInt(CostModel::replicas));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).replicas() == sorted.get(i - 1).replicas()) {
                throw new IllegalArgumentException("two calibration runs at "
                        + sorted.get(i).replicas() + " replica(s): "
                        + sorted.get(i - 1).source() + " and " + sorted.get(i).source());
            }
        }
        if (sorted.isEmpty() || sorted.get(sorted.size() - 1).replicas() < 2) {
            throw new IllegalArgumentException(
                    "the calibration needs a run with 2 or more replicas (one replica applies nothing): "
                            + sorted.stream().map(CostModel::source).toList());
        }
        return new Calibration(List.copyOf(sorted));
    }

    /** The runs' output directories ({@code tpcc run --out DIR}). */
    public static Calibration fromRuns(List<Path> directories) throws IOException {
        List<CostModel> runs = new ArrayList<>();
        for (Path directory : directories) {
            runs.add(CostModel.fromRun(directory));
        }
        return of(runs);
    }

    /** The shipped calibration. */
    public static Calibration builtIn() {
        List<CostModel> runs = new ArrayList<>();
        for (String directory : BUILT_IN) {
            runs.add(CostModel.fromResources(directory));
        }
        return of(runs);
    }

    public List<CostModel> points() {
        return points;
    }

    public String source() {
        return points.stream()
                .map(p -> p.source() + " (" + p.replicas() + " replica(s))")
                .collect(Collectors.joining(", "));
    }

    /** The cores the host delivered at most in the calibration runs (saturated): a shared-host prediction's CPU. */
    public double hostBusyCores() {
        return points.stream().mapToDouble(CostModel::hostBusyCores).max().orElse(0);
    }

    /** The costs for replicas on machines of their own: the largest calibrated count's. */
    public CostModel perReplicaMachines() {
        return points.get(points.size() - 1);
    }

    /** The costs at {@code replicas} on the calibration runs' shared host. */
    public CostModel sharedHostAt(int replicas) {
        if (points.size() == 1) {
            return points.get(0);
        }
        CostModel low = points.get(0);
        CostModel high = points.get(1);
        for (int i = 1; i < points.size(); i++) {
            low = points.get(i - 1);
            high = points.get(i);
            if (replicas <= high.replicas()) {
                break;
            }
        }
        CostModel withApplies = high; // the higher count has 2 or more replicas whenever the lower has 1
        double x = replicas;
        Map<String, CostModel.ProcedureCost> procedures = new LinkedHashMap<>();
        for (Map.Entry<String, CostModel.ProcedureCost> entry :
                high.procedures().entrySet()) {
            CostModel.ProcedureCost lowCost = low.procedures().getOrDefault(entry.getKey(), entry.getValue());
            CostModel.ProcedureCost highCost = entry.getValue();
            double apply = low.replicas() >= 2
                    ? line(low.replicas(), lowCost.applyCpuMs(), high.replicas(), highCost.applyCpuMs(), x)
                    : withApplies.procedures().get(entry.getKey()).applyCpuMs();
            procedures.put(
                    entry.getKey(),
                    new CostModel.ProcedureCost(
                            line(low.replicas(), lowCost.executeCpuMs(), high.replicas(), highCost.executeCpuMs(), x),
                            apply));
        }
        return new CostModel(
                replicas,
                procedures,
                line(low.replicas(), low.clientCpuMs(), high.replicas(), high.clientCpuMs(), x),
                line(low.replicas(), low.schedulerCpuMs(), high.replicas(), high.schedulerCpuMs(), x),
                line(low.replicas(), low.replicaOverheadCpuMs(), high.replicas(), high.replicaOverheadCpuMs(), x),
                hostBusyCores(),
                "interpolated at " + replicas + " replica(s) from " + source());
    }

    /** The value at {@code x} on the line through (x1, y1) and (x2, y2); never negative. */
    private static double line(double x1, double y1, double x2, double y2, double x) {
        return Math.max(0, y1 + (y2 - y1) * (x - x1) / (x2 - x1));
    }
}
