package org.gargamel.tpcc.workload;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;

/** New-Order input generation, clause 2.4.1. */
public final class NewOrder {
    /** An item id that the load never uses: 1% of New-Orders carry it on their last line (2.4.1.4). */
    public static final int UNUSED_ITEM_ID = 100_001;

    private NewOrder() {}

    public static ProcedureCall generate(TerminalContext terminal) {
        var random = terminal.random();
        int district = random.uniform(1, TerminalContext.DISTRICTS_PER_WAREHOUSE);
        int customer = random.customerId();
        int lines = random.uniform(5, 15);
        boolean rollback = random.uniform(1, 100) == 1;
        List<Integer> items = new ArrayList<>(lines);
        List<Integer> supplyWarehouses = new ArrayList<>(lines);
        List<Integer> quantities = new ArrayList<>(lines);
        for (int line = 1; line <= lines; line++) {
            items.add(rollback && line == lines ? UNUSED_ITEM_ID : random.itemId());
            boolean remote = terminal.warehouses() > 1 && random.uniform(1, 100) == 1;
            supplyWarehouses.add(remote ? terminal.remoteWarehouse() : terminal.homeWarehouse());
            quantities.add(random.uniform(1, 10));
        }
        return ProcedureCall.of(
                TransactionType.NEW_ORDER.procedure(),
                terminal.homeWarehouse(),
                district,
                customer,
                items,
                supplyWarehouses,
                quantities,
                terminal.now());
    }
}
