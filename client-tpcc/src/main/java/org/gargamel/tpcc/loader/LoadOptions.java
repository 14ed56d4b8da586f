package org.gargamel.tpcc.loader;

/**
 * What to load: the number of warehouses (the TPC-C scale), the seed every generated value derives from,
 * and how many loader threads (each with its own connection) may run at once.
 */
public record LoadOptions(int warehouses, long seed, int threads) {
    public LoadOptions {
        if (warehouses < 1) {
            throw new IllegalArgumentException("--warehouses must be at least 1, was " + warehouses);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("the number of loader threads must be at least 1, was " + threads);
        }
    }

    /** Threads default: one per core, at least two (the database works while the loader generates). */
    public static int defaultThreads() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }
}
