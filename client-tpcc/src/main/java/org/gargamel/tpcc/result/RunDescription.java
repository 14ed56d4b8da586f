package org.gargamel.tpcc.result;

import java.time.Duration;

/**
 * What was run, as it appears in result.json: mode, isolation, scale, load and the unmeasured warm-up; {@code client}
 * is how the terminals called through Gargamel ({@code library} or {@code pgwire}), and {@code tpccRules} the kit's
 * rules the cluster classified with ({@code table61} or {@code commutative}); both null without middleware.
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
        String client,
        String tpccRules) {
    /** A run without a named client or rules. */
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
        this(mode, isolation, replicas, warehouses, terminals, rate, warmup, seed, startedAt, null, null);
    }
}
