package org.gargamel.launcher.chaos;

import java.time.Duration;

/**
 * What a chaos run does to its cluster: every {@code interval} (counted from the end of the previous fault's recovery,
 * so that two faults never overlap and a majority of the nodes is always up), SIGKILL one node chosen at random with
 * {@code seed}, and start it again with the same command {@code downtime} later.
 */
public record FaultPlan(Duration interval, Duration downtime, long seed) {
    public FaultPlan {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval between faults must be positive, got " + interval);
        }
        if (downtime.isNegative()) {
            throw new IllegalArgumentException("the downtime must not be negative, got " + downtime);
        }
    }
}
