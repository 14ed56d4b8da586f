package org.gargamel.tpcc.result;

/** What was run, as it appears in result.json: mode, isolation, scale and load. */
public record RunDescription(String mode, String isolation, int replicas, int warehouses, int terminals, Double rate,
        long seed, String startedAt) {
}
