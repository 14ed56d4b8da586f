package org.gargamel.launcher.costs;

/**
 * One role's CPU in milliseconds per call over a run's measurement interval: all of it ({@code msPerCall}, as
 * result.json's {@code cpu.msPerCall}), what its JIT compiler threads spent ({@code jitMsPerCall}, 0 for PostgreSQL),
 * and the difference ({@code msPerCallLessJit}): the steady state, which issue 40's targets are about.
 *
 * <p>Invariant: {@code msPerCallLessJit = msPerCall - jitMsPerCall}, to the rounding of result.json (1 µs).
 */
public record RoleCost(double msPerCall, double jitMsPerCall, double msPerCallLessJit) {
    /** A role without a JIT (PostgreSQL). */
    public static RoleCost withoutJit(double msPerCall) {
        return new RoleCost(msPerCall, 0, msPerCall);
    }

    /** This role's and {@code other}'s together. */
    public RoleCost plus(RoleCost other) {
        return new RoleCost(
                round(msPerCall + other.msPerCall),
                round(jitMsPerCall + other.jitMsPerCall),
                round(msPerCallLessJit + other.msPerCallLessJit));
    }

    static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
