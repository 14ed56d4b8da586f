package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;

/** Stock-Level input generation, clause 2.8.1: the terminal's own district, threshold 10..20. */
public final class StockLevel {
    private StockLevel() {}

    public static ProcedureCall generate(TerminalContext terminal) {
        return ProcedureCall.of(
                TransactionType.STOCK_LEVEL.procedure(),
                terminal.homeWarehouse(),
                terminal.homeDistrict(),
                terminal.random().uniform(10, 20));
    }
}
