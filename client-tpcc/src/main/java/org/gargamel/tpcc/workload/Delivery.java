package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;

/** Delivery input generation, clause 2.7.1: home warehouse, carrier 1..10, the delivery date. */
public final class Delivery {
    private Delivery() {}

    public static ProcedureCall generate(TerminalContext terminal) {
        return ProcedureCall.of(
                TransactionType.DELIVERY.procedure(),
                terminal.homeWarehouse(),
                terminal.random().uniform(1, 10),
                terminal.now());
    }
}
