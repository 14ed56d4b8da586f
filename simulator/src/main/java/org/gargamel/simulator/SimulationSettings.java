package org.gargamel.simulator;

import java.util.Objects;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;

/**
 * One simulated run: {@code mode} (Gargamel, round-robin with certification, centralized) at {@code replicas} replicas
 * of {@code workers} workers each, driven by {@code terminals} closed-loop TPC-C terminals (no think time, as {@code
 * tpcc run}) over {@code warehouses} warehouses, measured for {@code durationSeconds} of simulated time after {@code
 * warmupSeconds}.
 *
 * <p>{@code machine} says where the processes run: all on one host of a few cores, as on the machine the calibration
 * was measured on (so that a prediction can be compared with a measured run), or each replica on its own machine.
 * {@code hopMs} is one network message's latency. {@code applyScale} multiplies what a replica spends on another
 * replica's write-set (its apply and its overhead): 1 for the measured costs, less to ask what a cheaper apply would
 * give. {@code appliers}: how many write-sets a replica may apply at once (C5's row-level parallel apply: one may
 * start once its dependencies are visible and no earlier write-set on one of its rows is still applying); 1 is today's
 * apply loop. Round-robin keeps 1 (SI commits in log order).
 */
public record SimulationSettings(
        Mode mode,
        int replicas,
        int workers,
        int terminals,
        int warehouses,
        Machine machine,
        double hopMs,
        double warmupSeconds,
        double durationSeconds,
        long seed,
        TpccRules.Variant rules,
        double applyScale,
        int appliers) {

    /**
     * {@code shared}: every process on one host that delivers {@code cores} cores at most (the client and the
     * scheduler included; fractional where the host, saturated, leaves part of its cores idle); otherwise each replica
     * (its node and its PostgreSQL) on a machine of its own with {@code cores} cores, the scheduler on one more, the
     * clients outside.
     */
    public record Machine(boolean shared, double cores) {
        public Machine {
            if (!(cores > 0)) {
                throw new IllegalArgumentException("a machine needs some CPU, got " + cores + " cores");
            }
        }

        public static Machine sharedHost(double cores) {
            return new Machine(true, cores);
        }

        public static Machine perReplica(int cores) {
            return new Machine(false, cores);
        }

        @Override
        public String toString() {
            return shared
                    ? String.format(java.util.Locale.ROOT, "one host delivering %.2f core(s)", cores)
                    : String.format(java.util.Locale.ROOT, "%.0f core(s) per replica", cores);
        }
    }

    /** Loopback JGroups on the calibration machine: about 0.1 ms a message. */
    public static final double LOOPBACK_HOP_MS = 0.1;

    public SimulationSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(rules, "rules");
        if (replicas < 1 || replicas > 64) {
            throw new IllegalArgumentException("replicas must be in 1..64 (the scheduler's limit), got " + replicas);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        if (terminals < 1) {
            throw new IllegalArgumentException("terminals must be at least 1, got " + terminals);
        }
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be at least 1, got " + warehouses);
        }
        if (!(durationSeconds > 0) || warmupSeconds < 0) {
            throw new IllegalArgumentException("the duration must be positive and the warm-up not negative, got "
                    + durationSeconds + " and " + warmupSeconds);
        }
        if (appliers < 1) {
            throw new IllegalArgumentException("a replica needs at least 1 applier, got " + appliers);
        }
        if (!(applyScale >= 0)) {
            throw new IllegalArgumentException("the apply scale cannot be negative, got " + applyScale);
        }
        if (hopMs < 0) {
            throw new IllegalArgumentException("a message's latency cannot be negative, got " + hopMs);
        }
    }
}
