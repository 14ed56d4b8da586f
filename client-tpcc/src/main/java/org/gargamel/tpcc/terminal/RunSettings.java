package org.gargamel.tpcc.terminal;

import java.time.Clock;
import java.time.Duration;
import org.gargamel.tpcc.random.NURandConstants;

/**
 * How terminals drive a run. {@code rate} null means closed loop (each terminal waits for its call's
 * result before the next); a rate means an open loop of that many calls per second in total, served by
 * {@code terminals} connections. The terminals run for {@code warmup} first, unmeasured (the ramp-up of clause
 * 5.5: connections, caches and the JIT settle), then for the measurement interval {@code duration}.
 */
public record RunSettings(
        int warehouses,
        int terminals,
        Duration warmup,
        Duration duration,
        Double rate,
        boolean keyingAndThinkTimes,
        long seed,
        NURandConstants runConstants,
        Clock clock) {
    public RunSettings {
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be at least 1, was " + warehouses);
        }
        if (terminals < 1) {
            throw new IllegalArgumentException("terminals must be at least 1, was " + terminals);
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warm-up must not be negative, was " + warmup);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        if (rate != null && !(rate > 0)) {
            throw new IllegalArgumentException("rate must be positive, was " + rate);
        }
    }
}
