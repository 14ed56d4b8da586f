package org.gargamel.tpcc.result;

import java.time.Duration;

/** What was run, as it appears in result.json: mode, isolation, scale, load and the unmeasured warm-up. */
public record RunDescription(
        String mode,
        String isolation,
        int replicas,
        int warehouses,
        int terminals,
        Double rate,
        Duration warmup,
        long seed,
        String startedAt) {}
