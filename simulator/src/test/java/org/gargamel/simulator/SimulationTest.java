package org.gargamel.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The simulator against what can be worked out by hand: a machine's CPU bounds throughput; N replicas that each apply
 * every other replica's write-sets give at most N·e / (e + (N-1)·a) times one replica (issue 17); round-robin
 * certification aborts on a hot warehouse where Gargamel's chains never do; centralized does not scale; and the same
 * inputs give the same run.
 */
@Tag("unit")
class SimulationTest {
    private static final String[] PROCEDURES = {"new_order", "payment", "order_status", "delivery", "stock_level"};
    private static final String[] READ_ONLY = {"order_status", "stock_level"};

    /** Every call costs {@code execute} ms, every write-set {@code apply} ms; nothing else costs anything. */
    private static CostModel uniform(double execute, double apply) {
        Map<String, CostModel.ProcedureCost> procedures = new LinkedHashMap<>();
        for (String procedure : PROCEDURES) {
            boolean readOnly = java.util.Arrays.asList(READ_ONLY).contains(procedure);
            procedures.put(procedure, new CostModel.ProcedureCost(execute, readOnly ? 0 : apply));
        }
        return new CostModel(2, procedures, 0, 0, 0, 1, "uniform");
    }

    private static SimulationSettings settings(
            Mode mode, int replicas, int terminals, int warehouses, SimulationSettings.Machine machine) {
        return settings(mode, replicas, terminals, warehouses, machine, 1);
    }

    private static SimulationSettings settings(
            Mode mode, int replicas, int terminals, int warehouses, SimulationSettings.Machine machine, int appliers) {
        return new SimulationSettings(
                mode,
                replicas,
                4,
                terminals,
                warehouses,
                machine,
                0.1,
                0.5,
                4,
                7,
                TpccRules.Variant.TABLE61,
                1.0,
                appliers);
    }

    @Test
    void oneCoreExecutingOneMillisecondCallsRunsAboutAThousandASecond() {
        SimulatedRun run = Simulator.run(
                settings(Mode.GARGAMEL, 1, 40, 4, SimulationSettings.Machine.sharedHost(1)), uniform(1.0, 0.5));
        assertTrue(run.throughputTps() <= 1000 * 1.01, "a core cannot do more: " + run);
        assertTrue(run.throughputTps() > 950, "40 terminals keep it busy: " + run);
        assertTrue(run.cpuUtilisation() > 0.95, run.toString());
        assertEquals(0, run.conflictAborts());
        assertEquals(0, run.rejected());
    }

    /**
     * Four replicas of one core each, e = 1 ms, a = 0.5 ms: at most 4·1 / (1 + 3·0.5) = 1.6 times one replica's
     * 1,000 calls a second. Read-only calls are not applied, so the bound is a little higher: 8% of the calls cost only e.
     */
    @Test
    void fourReplicasGiveWhatExecuteAgainstApplyAllows() {
        CostModel costs = uniform(1.0, 0.5);
        SimulationSettings.Machine oneCoreEach = SimulationSettings.Machine.perReplica(1);
        SimulatedRun one = Simulator.run(settings(Mode.GARGAMEL, 1, 40, 32, oneCoreEach), costs);
        SimulatedRun four = Simulator.run(settings(Mode.GARGAMEL, 4, 160, 32, oneCoreEach), costs);
        double update = 0.92;
        double bound = 4 / (1 + 3 * 0.5 * update);
        double speedup = four.throughputTps() / one.throughputTps();
        assertTrue(speedup <= bound * 1.02, "speedup " + speedup + " beyond the bound " + bound);
        assertTrue(speedup >= bound * 0.9, "speedup " + speedup + " far below the bound " + bound + ": " + four);
    }

    @Test
    void roundRobinAbortsOnAHotWarehouseWhereGargamelsChainsDoNot() {
        CostModel costs = uniform(1.0, 0.3);
        SimulationSettings.Machine machine = SimulationSettings.Machine.perReplica(2);
        SimulatedRun roundRobin = Simulator.run(settings(Mode.ROUND_ROBIN, 4, 40, 1, machine), costs);
        SimulatedRun gargamel = Simulator.run(settings(Mode.GARGAMEL, 4, 40, 1, machine), costs);
        assertTrue(roundRobin.conflictAborts() > 100, "Payments of one warehouse collide: " + roundRobin);
        assertEquals(0, gargamel.conflictAborts(), gargamel.toString());
        assertTrue(gargamel.tpmC() > 0 && roundRobin.tpmC() > 0);
    }

    /** Centralized runs every update on one worker: more replicas add only read-only capacity. */
    @Test
    void centralizedDoesNotScaleWithReplicas() {
        CostModel costs = uniform(1.0, 0.3);
        SimulationSettings.Machine machine = SimulationSettings.Machine.perReplica(2);
        SimulatedRun two = Simulator.run(settings(Mode.CENTRALIZED, 2, 80, 8, machine), costs);
        SimulatedRun eight = Simulator.run(settings(Mode.CENTRALIZED, 8, 320, 32, machine), costs);
        // One worker, 1 ms an update, 92% of the calls updates: about 1,000 updates a second at most.
        assertTrue(eight.throughputTps() * 0.92 <= 1000 * 1.02, eight.toString());
        assertTrue(eight.throughputTps() < two.throughputTps() * 1.2, two + " against " + eight);
    }

    /**
     * Eight replicas of two cores, e = 1 ms, a = 0.9 ms: one apply loop per replica applies 7/8 of the write-sets (92%
     * of the calls are updates) at 0.9 ms each, so at most 1,000 / (0.92 · 7/8 · 0.9) = 1,380 calls a second, while the
     * cores could do about 2,200. Four appliers per replica (rows
     * apart, as C5) lift that bound; the replicas still converge on the same calls and nothing is counted as aborted.
     */
    @Test
    void parallelAppliersLiftTheSingleApplyLoopsBound() {
        CostModel costs = uniform(1.0, 0.9);
        SimulationSettings.Machine machine = SimulationSettings.Machine.perReplica(2);
        SimulatedRun one = Simulator.run(settings(Mode.GARGAMEL, 8, 320, 32, machine, 1), costs);
        SimulatedRun four = Simulator.run(settings(Mode.GARGAMEL, 8, 320, 32, machine, 4), costs);
        assertTrue(one.throughputTps() < 1380 * 1.02, "one applier bounds it: " + one);
        assertTrue(four.throughputTps() > one.throughputTps() * 1.3, one + " against " + four);
        assertEquals(0, four.conflictAborts());
        assertEquals(0, four.rejected());
    }

    @Test
    void theSameInputsGiveTheSameRun() {
        SimulationSettings settings = settings(Mode.GARGAMEL, 3, 30, 1, SimulationSettings.Machine.sharedHost(2));
        CostModel costs = Calibration.builtIn().sharedHostAt(3);
        assertEquals(Simulator.run(settings, costs), Simulator.run(settings, costs));
    }
}
