package org.gargamel.tpcc.result;

import java.time.Duration;

/**
 * What was run, as it appears in result.json: mode, isolation, scale, load and the unmeasured warm-up; {@code client}
 * is how the terminals called through Gargamel ({@code library} or {@code pgwire}), null without middleware.
 */
public record RunDescription(
        String mode,
        String isolation,
        int replicas,
        int warehouses,
        int terminals,
        Double rate,
        Duration warmup,
        long seed,
        String startedAt,
        String client) {
    /** A run without a named client. */
    public RunDescription(
            String mode,
            String isolation,
            int replicas,
            int warehouses,
            int terminals,
            Double rate,
            Duration warmup,
            long seed,
            String startedAt) {
        this(mode, isolation, replicas, warehouses, terminals, rate, warmup, seed, startedAt, null);
    }
}
