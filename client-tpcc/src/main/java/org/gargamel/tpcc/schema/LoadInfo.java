package org.gargamel.tpcc.schema;

import org.gargamel.tpcc.random.NURandConstants;

/**
 * What the loader recorded in {@code tpcc_load_info}: the seed and warehouse count of the load, and the
 * NURand constants it used, from which a run draws its own (clause 2.1.6.1).
 */
public record LoadInfo(long seed, int warehouses, NURandConstants loadConstants) {}
