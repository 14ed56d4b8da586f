package org.gargamel.simulator;

/** Runs simulations (thesis ch. 5); see {@link Simulation} for what is simulated and how. */
public final class Simulator {
    private Simulator() {}

    /** One simulated run of {@code settings} with {@code costs}. Deterministic: the same inputs give the same run. */
    public static SimulatedRun run(SimulationSettings settings, CostModel costs) {
        return new Simulation(settings, costs).run().rounded();
    }
}
