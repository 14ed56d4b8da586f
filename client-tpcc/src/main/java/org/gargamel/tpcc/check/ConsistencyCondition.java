package org.gargamel.tpcc.check;

/**
 * The twelve consistency conditions of TPC-C 5.11 clause 3.3.2, each as one set-based query that returns
 * the violating units: a {@code sort_key} (integer array of the unit's key) and an {@code example} (the key
 * and the values compared, as text). An empty result means the condition holds.
 *
 * <p>Where the specification says "for any row" of a table, a row that has no counterpart at all (a
 * new_order row without its order, an order line without its order) is reported as a violation too.
 */
enum ConsistencyCondition {
    W_YTD_IS_SUM_OF_D_YTD(1, "W_YTD = sum(D_YTD) per warehouse", Unit.WAREHOUSES, """
            SELECT ARRAY[w.w_id] AS sort_key,
                   format('w_id=%s: w_ytd %s, sum(d_ytd) %s', w.w_id, w.w_ytd, coalesce(d.total, 0)) AS example
            FROM warehouse w
            LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS total FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
            WHERE w.w_ytd <> coalesce(d.total, 0)
            """),

    NEXT_ORDER_ID_IS_MAX_ORDER_ID(2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district", Unit.DISTRICTS, """
            SELECT ARRAY[d.d_w_id, d.d_id] AS sort_key,
                   format('d_w_id=%s, d_id=%s: d_next_o_id - 1 = %s, max(o_id) %s, max(no_o_id) %s',
                          d.d_w_id, d.d_id, d.d_next_o_id - 1, coalesce(o.max_id::text, 'none'),
                          coalesce(n.max_id::text, 'none')) AS example
            FROM district d
            LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS max_id FROM orders GROUP BY o_w_id, o_d_id) o
                   ON (o.o_w_id, o.o_d_id) = (d.d_w_id, d.d_id)
            LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS max_id FROM new_order GROUP BY no_w_id, no_d_id) n
                   ON (n.no_w_id, n.no_d_id) = (d.d_w_id, d.d_id)
            -- The new_order part does not apply to a district without new orders (clause 3.3.2.2).
            WHERE d.d_next_o_id - 1 <> coalesce(o.max_id, 0)
               OR (n.max_id IS NOT NULL AND n.max_id <> d.d_next_o_id - 1)
            """),

    NEW_ORDERS_ARE_CONTIGUOUS(
            3, "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER per district", Unit.DISTRICTS_WITH_NEW_ORDERS, """
            SELECT ARRAY[no_w_id, no_d_id] AS sort_key,
                   format('no_w_id=%s, no_d_id=%s: max(no_o_id) - min(no_o_id) + 1 = %s, new_order rows %s',
                          no_w_id, no_d_id, max(no_o_id) - min(no_o_id) + 1, count(*)) AS example
            FROM new_order
            GROUP BY no_w_id, no_d_id
            HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)
            """),

    ORDER_LINE_COUNT_PER_DISTRICT(4, "sum(O_OL_CNT) = rows in ORDER-LINE per district", Unit.DISTRICTS, """
            SELECT ARRAY[w_id, d_id] AS sort_key,
                   format('w_id=%s, d_id=%s: sum(o_ol_cnt) %s, order_line rows %s',
                          w_id, d_id, coalesce(o.total, 0), coalesce(l.lines, 0)) AS example
            FROM (SELECT o_w_id AS w_id, o_d_id AS d_id, sum(o_ol_cnt) AS total FROM orders GROUP BY o_w_id, o_d_id) o
            FULL JOIN (SELECT ol_w_id AS w_id, ol_d_id AS d_id, count(*) AS lines
                       FROM order_line GROUP BY ol_w_id, ol_d_id) l USING (w_id, d_id)
            WHERE coalesce(o.total, 0) <> coalesce(l.lines, 0)
            """),

    CARRIER_NULL_IFF_NEW_ORDER(5, "O_CARRIER_ID is null iff a NEW-ORDER row exists, per order", Unit.ORDERS, """
            SELECT ARRAY[o.o_w_id, o.o_d_id, o.o_id] AS sort_key,
                   format('o_w_id=%s, o_d_id=%s, o_id=%s: o_carrier_id %s, %s',
                          o.o_w_id, o.o_d_id, o.o_id, coalesce(o.o_carrier_id::text, 'null'),
                          CASE WHEN n.no_o_id IS NULL THEN 'no new_order row' ELSE 'new_order row exists' END)
                       AS example
            FROM orders o
            LEFT JOIN new_order n ON (n.no_w_id, n.no_d_id, n.no_o_id) = (o.o_w_id, o.o_d_id, o.o_id)
            WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
            UNION ALL
            SELECT ARRAY[n.no_w_id, n.no_d_id, n.no_o_id],
                   format('no_w_id=%s, no_d_id=%s, no_o_id=%s: new_order row without an order',
                          n.no_w_id, n.no_d_id, n.no_o_id)
            FROM new_order n
            WHERE NOT EXISTS (SELECT 1 FROM orders o
                              WHERE (o.o_w_id, o.o_d_id, o.o_id) = (n.no_w_id, n.no_d_id, n.no_o_id))
            """),

    ORDER_LINE_COUNT_PER_ORDER(6, "O_OL_CNT = rows in ORDER-LINE per order", Unit.ORDERS, """
            SELECT ARRAY[o.o_w_id, o.o_d_id, o.o_id] AS sort_key,
                   format('o_w_id=%s, o_d_id=%s, o_id=%s: o_ol_cnt %s, order_line rows %s',
                          o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, coalesce(l.lines, 0)) AS example
            FROM orders o
            LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS lines
                       FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
                   ON (l.ol_w_id, l.ol_d_id, l.ol_o_id) = (o.o_w_id, o.o_d_id, o.o_id)
            WHERE o.o_ol_cnt <> coalesce(l.lines, 0)
            """),

    DELIVERY_DATE_NULL_IFF_CARRIER_NULL(
            7, "OL_DELIVERY_D is null iff the order's O_CARRIER_ID is null, per order line", Unit.ORDER_LINES, """
            SELECT ARRAY[l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number] AS sort_key,
                   format('ol_w_id=%s, ol_d_id=%s, ol_o_id=%s, ol_number=%s: ol_delivery_d %s, %s',
                          l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number, coalesce(l.ol_delivery_d::text, 'null'),
                          CASE WHEN o.o_id IS NULL THEN 'no order'
                               ELSE 'o_carrier_id ' || coalesce(o.o_carrier_id::text, 'null') END) AS example
            FROM order_line l
            LEFT JOIN orders o ON (o.o_w_id, o.o_d_id, o.o_id) = (l.ol_w_id, l.ol_d_id, l.ol_o_id)
            WHERE o.o_id IS NULL OR (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)
            """),

    W_YTD_IS_SUM_OF_H_AMOUNT(8, "W_YTD = sum(H_AMOUNT) per warehouse", Unit.WAREHOUSES, """
            SELECT ARRAY[w.w_id] AS sort_key,
                   format('w_id=%s: w_ytd %s, sum(h_amount) %s', w.w_id, w.w_ytd, coalesce(h.total, 0)) AS example
            FROM warehouse w
            LEFT JOIN (SELECT h_w_id, sum(h_amount) AS total FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
            WHERE w.w_ytd <> coalesce(h.total, 0)
            """),

    D_YTD_IS_SUM_OF_H_AMOUNT(9, "D_YTD = sum(H_AMOUNT) per district", Unit.DISTRICTS, """
            SELECT ARRAY[d.d_w_id, d.d_id] AS sort_key,
                   format('d_w_id=%s, d_id=%s: d_ytd %s, sum(h_amount) %s',
                          d.d_w_id, d.d_id, d.d_ytd, coalesce(h.total, 0)) AS example
            FROM district d
            LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS total FROM history GROUP BY h_w_id, h_d_id) h
                   ON (h.h_w_id, h.h_d_id) = (d.d_w_id, d.d_id)
            WHERE d.d_ytd <> coalesce(h.total, 0)
            """),

    BALANCE_IS_DELIVERED_MINUS_PAID(
            10, "C_BALANCE = sum(OL_AMOUNT of delivered lines) - sum(H_AMOUNT) per customer", Unit.CUSTOMERS, """
            WITH delivered AS (
                SELECT o.o_w_id AS w_id, o.o_d_id AS d_id, o.o_c_id AS c_id, sum(l.ol_amount) AS total
                FROM orders o
                JOIN order_line l ON (l.ol_w_id, l.ol_d_id, l.ol_o_id) = (o.o_w_id, o.o_d_id, o.o_id)
                WHERE l.ol_delivery_d IS NOT NULL
                GROUP BY o.o_w_id, o.o_d_id, o.o_c_id),
            paid AS (
                SELECT h_c_w_id AS w_id, h_c_d_id AS d_id, h_c_id AS c_id, sum(h_amount) AS total
                FROM history
                GROUP BY h_c_w_id, h_c_d_id, h_c_id)
            SELECT ARRAY[c.c_w_id, c.c_d_id, c.c_id] AS sort_key,
                   format('c_w_id=%s, c_d_id=%s, c_id=%s: c_balance %s, sum(delivered ol_amount) %s - sum(h_amount) %s = %s',
                          c.c_w_id, c.c_d_id, c.c_id, c.c_balance, coalesce(dl.total, 0), coalesce(p.total, 0),
                          coalesce(dl.total, 0) - coalesce(p.total, 0)) AS example
            FROM customer c
            LEFT JOIN delivered dl ON (dl.w_id, dl.d_id, dl.c_id) = (c.c_w_id, c.c_d_id, c.c_id)
            LEFT JOIN paid p ON (p.w_id, p.d_id, p.c_id) = (c.c_w_id, c.c_d_id, c.c_id)
            WHERE c.c_balance <> coalesce(dl.total, 0) - coalesce(p.total, 0)
            """),

    UNDELIVERED_ORDERS_BEFORE_FIRST_DELIVERY(
            11,
            "count(ORDER) - count(NEW-ORDER) = 2100 per district, before its first Delivery",
            Unit.DISTRICTS_BEFORE_FIRST_DELIVERY,
            """
            SELECT ARRAY[d.d_w_id, d.d_id] AS sort_key,
                   format('d_w_id=%s, d_id=%s: count(orders) %s - count(new_order) %s = %s',
                          d.d_w_id, d.d_id, coalesce(o.orders, 0), coalesce(n.new_orders, 0),
                          coalesce(o.orders, 0) - coalesce(n.new_orders, 0)) AS example
            FROM district d
            """ + ConsistencyCondition.BEFORE_FIRST_DELIVERY_JOIN + """
            LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS orders FROM orders GROUP BY o_w_id, o_d_id) o
                   ON (o.o_w_id, o.o_d_id) = (d.d_w_id, d.d_id)
            LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS new_orders FROM new_order GROUP BY no_w_id, no_d_id) n
                   ON (n.no_w_id, n.no_d_id) = (d.d_w_id, d.d_id)
            WHERE coalesce(o.orders, 0) - coalesce(n.new_orders, 0) <> 2100
            """),

    BALANCE_PLUS_PAYMENTS_IS_DELIVERED(
            12, "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of delivered lines) per customer", Unit.CUSTOMERS, """
            WITH delivered AS (
                SELECT o.o_w_id AS w_id, o.o_d_id AS d_id, o.o_c_id AS c_id, sum(l.ol_amount) AS total
                FROM orders o
                JOIN order_line l ON (l.ol_w_id, l.ol_d_id, l.ol_o_id) = (o.o_w_id, o.o_d_id, o.o_id)
                WHERE l.ol_delivery_d IS NOT NULL
                GROUP BY o.o_w_id, o.o_d_id, o.o_c_id)
            SELECT ARRAY[c.c_w_id, c.c_d_id, c.c_id] AS sort_key,
                   format('c_w_id=%s, c_d_id=%s, c_id=%s: c_balance %s + c_ytd_payment %s = %s, sum(delivered ol_amount) %s',
                          c.c_w_id, c.c_d_id, c.c_id, c.c_balance, c.c_ytd_payment, c.c_balance + c.c_ytd_payment,
                          coalesce(dl.total, 0)) AS example
            FROM customer c
            LEFT JOIN delivered dl ON (dl.w_id, dl.d_id, dl.c_id) = (c.c_w_id, c.c_d_id, c.c_id)
            WHERE c.c_balance + c.c_ytd_payment <> coalesce(dl.total, 0)
            """);

    /**
     * Condition 11 holds only until a district's first Delivery (each Delivery removes a new_order row
     * and adds none). The initial population leaves orders 2101 to 3000 undelivered (clause 4.3.3.1), and
     * Delivery always takes a district's oldest undelivered order (clause 2.7.4.2), so a district has had
     * no Delivery exactly when its order 2101 is still in new_order. Districts without it are skipped.
     */
    static final String BEFORE_FIRST_DELIVERY_JOIN = """
            JOIN new_order first_undelivered
              ON (first_undelivered.no_w_id, first_undelivered.no_d_id, first_undelivered.no_o_id)
               = (d.d_w_id, d.d_id, 2101)
            """;

    /** What a condition counts as checked, so that a report says how much it covered. */
    enum Unit {
        WAREHOUSES("warehouses", "SELECT count(*) FROM warehouse"),
        DISTRICTS("districts", "SELECT count(*) FROM district"),
        DISTRICTS_WITH_NEW_ORDERS(
                "districts with new orders",
                "SELECT count(*) FROM (SELECT DISTINCT no_w_id, no_d_id FROM new_order) g"),
        ORDERS("orders", "SELECT count(*) FROM orders"),
        ORDER_LINES("order lines", "SELECT count(*) FROM order_line"),
        CUSTOMERS("customers", "SELECT count(*) FROM customer"),
        DISTRICTS_BEFORE_FIRST_DELIVERY(
                "districts before their first Delivery",
                "SELECT count(*) FROM district d " + BEFORE_FIRST_DELIVERY_JOIN);

        private final String label;
        private final String countSql;

        Unit(String label, String countSql) {
            this.label = label;
            this.countSql = countSql;
        }

        String label() {
            return label;
        }

        String countSql() {
            return countSql;
        }
    }

    private final int number;
    private final String description;
    private final Unit unit;
    private final String violationsSql;

    ConsistencyCondition(int number, String description, Unit unit, String violationsSql) {
        this.number = number;
        this.description = description;
        this.unit = unit;
        this.violationsSql = violationsSql;
    }

    int number() {
        return number;
    }

    String description() {
        return description;
    }

    Unit unit() {
        return unit;
    }

    /**
     * One query: the total number of violations on every row, and the first few violations in key order.
     * The violations are a MATERIALIZED CTE so that the LIMIT cannot steer the planner into a nested
     * loop over the whole join (seen on a 4-warehouse database after a run: minutes instead of a second).
     */
    String examplesSql(int limit) {
        return "WITH v AS MATERIALIZED (\n" + violationsSql
                + "\n) SELECT count(*) OVER () AS violations, example FROM v ORDER BY sort_key LIMIT " + limit;
    }
}
