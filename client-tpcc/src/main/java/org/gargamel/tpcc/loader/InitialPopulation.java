package org.gargamel.tpcc.loader;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.function.LongConsumer;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.random.TpccRandom;

/**
 * The rows of the initial database population, clause 4.3.3.1, one method per loading task. Each task
 * draws from its own random stream (see {@link LoadSeeds}); every timestamp is {@link #LOAD_TIMESTAMP},
 * so the same seed gives byte-identical tables on every server.
 */
final class InitialPopulation {
    /**
     * The "current date and time" of the load (C_SINCE, H_DATE, O_ENTRY_D, OL_DELIVERY_D): a constant
     * rather than the clock, so that replicas loaded at different moments hold the same data.
     */
    static final LocalDateTime LOAD_TIMESTAMP = LocalDateTime.of(2025, 1, 1, 0, 0, 0);

    static final int ITEMS = 100_000;
    static final int DISTRICTS_PER_WAREHOUSE = 10;
    static final int CUSTOMERS_PER_DISTRICT = 3_000;
    static final int ORDERS_PER_DISTRICT = 3_000;
    /** Orders 1..2100 of each district are delivered; 2101..3000 are new orders (clause 4.3.3.1). */
    static final int FIRST_UNDELIVERED_ORDER = 2_101;

    private static final BigDecimal W_YTD = new BigDecimal("300000.00");
    private static final BigDecimal D_YTD = new BigDecimal("30000.00");
    private static final BigDecimal C_CREDIT_LIM = new BigDecimal("50000.00");
    private static final BigDecimal C_BALANCE = new BigDecimal("-10.00");
    private static final BigDecimal C_YTD_PAYMENT = new BigDecimal("10.00");
    private static final BigDecimal H_AMOUNT = new BigDecimal("10.00");
    private static final BigDecimal ZERO_AMOUNT = new BigDecimal("0.00");

    private final long seed;
    private final NURandConstants constants;

    InitialPopulation(long seed, NURandConstants constants) {
        this.seed = seed;
        this.constants = constants;
    }

    /** Rows per warehouse, order lines counted at their expected 10 per order (used for progress only). */
    static long expectedRowsPerWarehouse() {
        long districts = DISTRICTS_PER_WAREHOUSE;
        long customers = districts * CUSTOMERS_PER_DISTRICT;
        long orders = districts * ORDERS_PER_DISTRICT;
        long newOrders = districts * (ORDERS_PER_DISTRICT - FIRST_UNDELIVERED_ORDER + 1);
        return 1 + districts + ITEMS + customers * 2 + orders + newOrders + orders * 10;
    }

    private TpccRandom random(int warehouse, int stream) {
        return new TpccRandom(LoadSeeds.derive(seed, warehouse, stream), constants);
    }

    void items(Connection connection, LongConsumer progress) throws SQLException {
        TpccRandom random = random(0, LoadSeeds.ITEM);
        try (CopyStream copy = new CopyStream(
                connection, "item", List.of("i_id", "i_im_id", "i_name", "i_price", "i_data"), progress)) {
            for (int id = 1; id <= ITEMS; id++) {
                copy.add(id)
                        .add(random.uniform(1, 10_000))
                        .add(random.alphanumeric(14, 24))
                        .add(random.decimal(100, 10_000, 2))
                        .add(random.dataWithOriginal(26, 50));
                copy.endRow();
            }
            copy.finish();
        }
    }

    /** The warehouse row and its ten districts. */
    void warehouseAndDistricts(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.WAREHOUSE);
        try (CopyStream copy = new CopyStream(
                connection,
                "warehouse",
                List.of("w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"),
                progress)) {
            copy.add(warehouse).add(random.alphanumeric(6, 10));
            address(copy, random);
            copy.add(random.decimal(0, 2_000, 4)).add(W_YTD);
            copy.endRow();
            copy.finish();
        }
        try (CopyStream copy = new CopyStream(
                connection,
                "district",
                List.of(
                        "d_id",
                        "d_w_id",
                        "d_name",
                        "d_street_1",
                        "d_street_2",
                        "d_city",
                        "d_state",
                        "d_zip",
                        "d_tax",
                        "d_ytd",
                        "d_next_o_id"),
                progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                copy.add(district).add(warehouse).add(random.alphanumeric(6, 10));
                address(copy, random);
                copy.add(random.decimal(0, 2_000, 4)).add(D_YTD).add(ORDERS_PER_DISTRICT + 1);
                copy.endRow();
            }
            copy.finish();
        }
    }

    void stock(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.STOCK);
        try (CopyStream copy = new CopyStream(
                connection,
                "stock",
                List.of(
                        "s_i_id",
                        "s_w_id",
                        "s_quantity",
                        "s_dist_01",
                        "s_dist_02",
                        "s_dist_03",
                        "s_dist_04",
                        "s_dist_05",
                        "s_dist_06",
                        "s_dist_07",
                        "s_dist_08",
                        "s_dist_09",
                        "s_dist_10",
                        "s_ytd",
                        "s_order_cnt",
                        "s_remote_cnt",
                        "s_data"),
                progress)) {
            for (int item = 1; item <= ITEMS; item++) {
                copy.add(item).add(warehouse).add(random.uniform(10, 100));
                for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                    copy.add(random.alphanumeric(24, 24));
                }
                copy.add(0).add(0).add(0).add(random.dataWithOriginal(26, 50));
                copy.endRow();
            }
            copy.finish();
        }
    }

    void customers(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.CUSTOMER);
        try (CopyStream copy = new CopyStream(
                connection,
                "customer",
                List.of(
                        "c_id",
                        "c_d_id",
                        "c_w_id",
                        "c_first",
                        "c_middle",
                        "c_last",
                        "c_street_1",
                        "c_street_2",
                        "c_city",
                        "c_state",
                        "c_zip",
                        "c_phone",
                        "c_since",
                        "c_credit",
                        "c_credit_lim",
                        "c_discount",
                        "c_balance",
                        "c_ytd_payment",
                        "c_payment_cnt",
                        "c_delivery_cnt",
                        "c_data"),
                progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                for (int customer = 1; customer <= CUSTOMERS_PER_DISTRICT; customer++) {
                    copy.add(customer)
                            .add(district)
                            .add(warehouse)
                            .add(random.alphanumeric(8, 16))
                            .add("OE");
                    // The first 1,000 last names run through 0..999; the rest are NURand(255, 0, 999).
                    copy.add(customer <= 1_000 ? TpccRandom.lastName(customer - 1) : random.customerLastName());
                    address(copy, random);
                    copy.add(random.numeric(16, 16))
                            .add(LOAD_TIMESTAMP)
                            .add(random.uniform(1, 10) == 1 ? "BC" : "GC")
                            .add(C_CREDIT_LIM)
                            .add(random.decimal(0, 5_000, 4))
                            .add(C_BALANCE)
                            .add(C_YTD_PAYMENT)
                            .add(1)
                            .add(0)
                            .add(random.alphanumeric(300, 500));
                    copy.endRow();
                }
            }
            copy.finish();
        }
    }

    /** One history row per customer: its first payment of 10.00, which makes c_balance -10.00. */
    void history(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.HISTORY);
        try (CopyStream copy = new CopyStream(
                connection,
                "history",
                List.of("h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"),
                progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                for (int customer = 1; customer <= CUSTOMERS_PER_DISTRICT; customer++) {
                    copy.add(customer)
                            .add(district)
                            .add(warehouse)
                            .add(district)
                            .add(warehouse)
                            .add(LOAD_TIMESTAMP)
                            .add(H_AMOUNT)
                            .add(random.alphanumeric(12, 24));
                    copy.endRow();
                }
            }
            copy.finish();
        }
    }

    /** The orders, then the new_order rows of the undelivered ones. */
    void orders(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.ORDERS);
        TpccRandom lineCounts = random(warehouse, LoadSeeds.ORDER_LINE_COUNT);
        try (CopyStream copy = new CopyStream(
                connection,
                "orders",
                List.of("o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"),
                progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                int[] customers = permutation(random, CUSTOMERS_PER_DISTRICT);
                for (int order = 1; order <= ORDERS_PER_DISTRICT; order++) {
                    copy.add(order)
                            .add(district)
                            .add(warehouse)
                            .add(customers[order - 1])
                            .add(LOAD_TIMESTAMP);
                    if (order < FIRST_UNDELIVERED_ORDER) {
                        copy.add(random.uniform(1, 10));
                    } else {
                        copy.addNull();
                    }
                    copy.add(lineCount(lineCounts)).add(1);
                    copy.endRow();
                }
            }
            copy.finish();
        }
        try (CopyStream copy =
                new CopyStream(connection, "new_order", List.of("no_o_id", "no_d_id", "no_w_id"), progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                for (int order = FIRST_UNDELIVERED_ORDER; order <= ORDERS_PER_DISTRICT; order++) {
                    copy.add(order).add(district).add(warehouse);
                    copy.endRow();
                }
            }
            copy.finish();
        }
    }

    void orderLines(Connection connection, int warehouse, LongConsumer progress) throws SQLException {
        TpccRandom random = random(warehouse, LoadSeeds.ORDER_LINE);
        TpccRandom lineCounts = random(warehouse, LoadSeeds.ORDER_LINE_COUNT);
        try (CopyStream copy = new CopyStream(
                connection,
                "order_line",
                List.of(
                        "ol_o_id",
                        "ol_d_id",
                        "ol_w_id",
                        "ol_number",
                        "ol_i_id",
                        "ol_supply_w_id",
                        "ol_delivery_d",
                        "ol_quantity",
                        "ol_amount",
                        "ol_dist_info"),
                progress)) {
            for (int district = 1; district <= DISTRICTS_PER_WAREHOUSE; district++) {
                for (int order = 1; order <= ORDERS_PER_DISTRICT; order++) {
                    int lines = lineCount(lineCounts);
                    boolean delivered = order < FIRST_UNDELIVERED_ORDER;
                    for (int number = 1; number <= lines; number++) {
                        copy.add(order)
                                .add(district)
                                .add(warehouse)
                                .add(number)
                                .add(random.uniform(1, ITEMS))
                                .add(warehouse);
                        if (delivered) {
                            copy.add(LOAD_TIMESTAMP);
                        } else {
                            copy.addNull();
                        }
                        copy.add(5)
                                .add(delivered ? ZERO_AMOUNT : random.decimal(1, 999_999, 2))
                                .add(random.alphanumeric(24, 24));
                        copy.endRow();
                    }
                }
            }
            copy.finish();
        }
    }

    /** O_OL_CNT: drawn in (district, order) order by both the orders and the order-line tasks. */
    private static int lineCount(TpccRandom lineCounts) {
        return lineCounts.uniform(5, 15);
    }

    /** street_1, street_2, city, state, zip (clause 4.3.2.7 for the zip). */
    private static void address(CopyStream copy, TpccRandom random) {
        copy.add(random.alphanumeric(10, 20))
                .add(random.alphanumeric(10, 20))
                .add(random.alphanumeric(10, 20))
                .add(random.alphanumeric(2, 2))
                .add(random.zip());
    }

    /** A uniformly random permutation of 1..n (Fisher-Yates). */
    private static int[] permutation(TpccRandom random, int n) {
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = i + 1;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.uniform(0, i);
            int swap = values[i];
            values[i] = values[j];
            values[j] = swap;
        }
        return values;
    }
}
