/**
 * Checking a TPC-C database after a run: the consistency conditions of clause 3.3.2 on each replica
 * ({@link org.gargamel.tpcc.check.ConsistencyChecker}) and whether the replicas hold the same data
 * ({@link org.gargamel.common.convergence.TableChecksums}); {@link org.gargamel.tpcc.check.CheckRunner} runs both
 * for {@code gargamel tpcc check}.
 *
 * <h2>Conditions</h2>
 * Each condition is one query over whole tables that returns its violating keys; the report keeps the
 * count and the first five in key order. All twelve are checked on every unit (the specification allows
 * sampling warehouses for 2 and 4 and customers for 12; checking everything costs a few seconds at four
 * warehouses).
 *
 * <p><b>Condition 11</b> ({@code count(orders) - count(new_order) = 2100} per district) holds only until the
 * district's first Delivery, which removes a new_order row and adds none. The checker applies it to a
 * district exactly when the district's order 2101 is still in new_order: the initial population leaves
 * orders 2101 to 3000 undelivered, and Delivery always takes the oldest undelivered order, so order 2101
 * is the first to leave and leaves with the district's first Delivery. The report says to how many
 * districts it applied. (A Delivery that skipped the oldest order would keep 2101 in new_order; it then
 * fails condition 11 and condition 3, which is right: such a Delivery is wrong.)
 *
 * <p><b>Conditions 10 and 12</b> are checked as written, with delivered meaning {@code ol_delivery_d IS NOT
 * NULL}. The initial population satisfies both: each customer has c_balance -10.00, c_ytd_payment 10.00 and
 * one history row of 10.00, and its delivered order lines (orders below 2101) have ol_amount 0.00, so
 * condition 10 reads -10.00 = 0.00 - 10.00 and condition 12 reads -10.00 + 10.00 = 0.00. Both are kept by
 * the transactions: Payment subtracts h_amount from c_balance, adds it to c_ytd_payment and inserts it into
 * history; Delivery adds the order's ol_amount sum to c_balance as it sets the lines' ol_delivery_d.
 *
 * <h2>Checksums</h2>
 * A table's checksum is an order-independent sum of per-row MD5s, computed in the server in one parallel
 * scan (see {@link org.gargamel.common.convergence.TableChecksums} for what counts as the same value: numerics
 * with their scale, which TPC-C's typed columns fix; timestamps to the microsecond; NULL distinct from
 * every value). Measured on four warehouses (1.2 million order lines, 400,000 stock rows, 430 MB) on a
 * shared two-core machine: about 7 s for the nine tables, and about 4 s for the twelve conditions.
 */
package org.gargamel.tpcc.check;
