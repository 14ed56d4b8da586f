package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;

/** Payment input generation, clause 2.5.1: 85% home district, 15% remote; 60% customer by last name. */
public final class Payment {
    private Payment() {}

    public static ProcedureCall generate(TerminalContext terminal) {
        var random = terminal.random();
        int warehouse = terminal.homeWarehouse();
        int district = random.uniform(1, TerminalContext.DISTRICTS_PER_WAREHOUSE);
        int customerWarehouse = warehouse;
        int customerDistrict = district;
        if (terminal.warehouses() > 1 && random.uniform(1, 100) > 85) {
            customerWarehouse = terminal.remoteWarehouse();
            customerDistrict = random.uniform(1, TerminalContext.DISTRICTS_PER_WAREHOUSE);
        }
        boolean byLastName = random.uniform(1, 100) <= 60;
        Integer customerId = byLastName ? null : random.customerId();
        String customerLastName = byLastName ? random.customerLastName() : null;
        return ProcedureCall.of(
                TransactionType.PAYMENT.procedure(),
                warehouse,
                district,
                customerWarehouse,
                customerDistrict,
                customerId,
                customerLastName,
                random.decimal(100, 500_000, 2),
                terminal.now());
    }
}
