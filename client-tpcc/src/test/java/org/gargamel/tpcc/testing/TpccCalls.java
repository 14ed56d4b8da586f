package org.gargamel.tpcc.testing;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.common.call.ProcedureCall;

/**
 * TPC-C call builders and a random mix with frequent conflicts, shared by the classifier's and the scheduler's tests
 * through this module's test jar.
 */
public final class TpccCalls {
    public static final LocalDateTime NOW = LocalDateTime.of(2026, 1, 1, 10, 0);

    private TpccCalls() {}

    /** New-Order at (w, d) with one line per item, all supplied by w. */
    public static ProcedureCall newOrder(int w, int d, Integer... items) {
        List<Integer> supply = new ArrayList<>();
        for (int i = 0; i < items.length; i++) {
            supply.add(w);
        }
        return newOrder(w, d, supply, List.of(items));
    }

    /** New-Order at (w, d), item i supplied by {@code supplyWarehouses[i]}, one of each. */
    public static ProcedureCall newOrder(int w, int d, List<Integer> supplyWarehouses, List<Integer> items) {
        List<Integer> quantities = new ArrayList<>();
        items.forEach(item -> quantities.add(1));
        return ProcedureCall.of("new_order", w, d, 1, items, supplyWarehouses, quantities, NOW);
    }

    public static ProcedureCall paymentById(int w, int d, int cw, int cd, int c) {
        return ProcedureCall.of("payment", w, d, cw, cd, c, null, new BigDecimal("10.00"), NOW);
    }

    public static ProcedureCall paymentByName(int w, int d, int cw, int cd, String last) {
        return ProcedureCall.of("payment", w, d, cw, cd, null, last, new BigDecimal("10.00"), NOW);
    }

    public static ProcedureCall delivery(int w) {
        return ProcedureCall.of("delivery", w, 1, NOW);
    }

    public static ProcedureCall orderStatus(int w, int d, int c) {
        return ProcedureCall.of("order_status", w, d, c, null);
    }

    /** A random call over few warehouses, districts, customers and items, so that conflicts are frequent. */
    public static ProcedureCall random(SplittableRandom random, int warehouses) {
        int w = random.nextInt(1, warehouses + 1);
        int d = random.nextInt(1, 4);
        int kind = random.nextInt(100);
        if (kind < 45) {
            int lines = random.nextInt(1, 4);
            List<Integer> items = new ArrayList<>();
            List<Integer> supply = new ArrayList<>();
            for (int i = 0; i < lines; i++) {
                items.add(random.nextInt(1, 30));
                supply.add(random.nextInt(10) == 0 ? random.nextInt(1, warehouses + 1) : w);
            }
            return newOrder(w, d, supply, items);
        } else if (kind < 88) {
            int cw = random.nextInt(4) == 0 ? random.nextInt(1, warehouses + 1) : w;
            int cd = random.nextInt(1, 4);
            return random.nextBoolean()
                    ? paymentByName(w, d, cw, cd, "BARBARABLE")
                    : paymentById(w, d, cw, cd, random.nextInt(1, 6));
        } else if (kind < 92) {
            return orderStatus(w, d, random.nextInt(1, 6));
        } else if (kind < 96) {
            return delivery(w);
        }
        return ProcedureCall.of("stock_level", w, d, 15);
    }
}
