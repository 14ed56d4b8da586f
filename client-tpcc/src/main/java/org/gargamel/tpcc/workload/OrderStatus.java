package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;

/** Order-Status input generation, clause 2.6.1: home warehouse, random district, 60% by last name. */
public final class OrderStatus {
    private OrderStatus() {}

    public static ProcedureCall generate(TerminalContext terminal) {
        var random = terminal.random();
        int district = random.uniform(1, TerminalContext.DISTRICTS_PER_WAREHOUSE);
        boolean byLastName = random.uniform(1, 100) <= 60;
        Integer customerId = byLastName ? null : random.customerId();
        String customerLastName = byLastName ? random.customerLastName() : null;
        return ProcedureCall.of(
                TransactionType.ORDER_STATUS.procedure(),
                terminal.homeWarehouse(),
                district,
                customerId,
                customerLastName);
    }
}
