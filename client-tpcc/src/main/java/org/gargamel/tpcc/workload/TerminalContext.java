package org.gargamel.tpcc.workload;

import java.time.Clock;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import org.gargamel.tpcc.random.TpccRandom;

/**
 * What a terminal knows when it builds a call: its random stream, its home warehouse and district
 * (Stock-Level always uses the terminal's district, clause 2.8.1.1), the number of warehouses, and the
 * clock that decides every timestamp argument.
 */
public record TerminalContext(TpccRandom random, int homeWarehouse, int homeDistrict, int warehouses, Clock clock) {
    public static final int DISTRICTS_PER_WAREHOUSE = 10;

    public TerminalContext {
        if (warehouses < 1 || homeWarehouse < 1 || homeWarehouse > warehouses) {
            throw new IllegalArgumentException("home warehouse " + homeWarehouse + " is not in 1.." + warehouses);
        }
        if (homeDistrict < 1 || homeDistrict > DISTRICTS_PER_WAREHOUSE) {
            throw new IllegalArgumentException("home district " + homeDistrict + " is not in 1..10");
        }
    }

    /** The current time, to the microsecond PostgreSQL keeps (one reading of the clock). */
    public LocalDateTime now() {
        return LocalDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
    }

    /** A warehouse other than the home one, uniformly (only meaningful with more than one warehouse). */
    public int remoteWarehouse() {
        int other = random.uniform(1, warehouses - 1);
        return other >= homeWarehouse ? other + 1 : other;
    }
}
