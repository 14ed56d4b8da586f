package org.gargamel.tpcc.loader;

/**
 * The seed of each independent random stream of a load, derived from the load's seed, the warehouse and
 * the stream. Every (warehouse, table) draws from its own stream, so the data does not depend on which
 * thread loads what, or when.
 */
final class LoadSeeds {
    // Stream ids are part of the data's definition: changing one changes every load with that seed.
    static final int CONSTANTS = 1;
    static final int ITEM = 2;
    static final int WAREHOUSE = 3;
    static final int STOCK = 4;
    static final int CUSTOMER = 5;
    static final int HISTORY = 6;
    static final int ORDERS = 7;
    /** Drawn by both the orders and the order-line streams, so that o_ol_cnt matches the lines. */
    static final int ORDER_LINE_COUNT = 8;

    static final int ORDER_LINE = 9;

    private LoadSeeds() {}

    static long derive(long seed, int warehouse, int stream) {
        long z = mix(seed);
        z = mix(z + 0x9E3779B97F4A7C15L * (warehouse + 1L));
        return mix(z + 0xBF58476D1CE4E5B9L * stream);
    }

    /** The SplitMix64 finaliser: a bijection that spreads nearby inputs over all 64 bits. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
