-- A small TPC-C-shaped database that satisfies every consistency condition of clause 3.3.2: one
-- warehouse, two districts, three customers per district, and per district the shape of the initial
-- population of clause 4.3.3.1 (orders 1 to 2100 delivered with ol_amount 0.00, one history row of 10.00
-- per customer, c_balance -10.00, c_ytd_payment 10.00) but only orders up to 2105, so orders 2101 to
-- 2105 are the new orders. Then one Payment (district 1) and one Delivery that only reached district 2,
-- so condition 11 applies to district 1 and not to district 2.

INSERT INTO warehouse VALUES (1, 'W1', 'street 1', 'street 2', 'city', 'ST', '123411111', 0.1000, 60.00);

INSERT INTO district
SELECT d, 1, 'D' || d, 'street 1', 'street 2', 'city', 'ST', '123411111', 0.0500, 30.00, 2106
FROM generate_series(1, 2) d;

INSERT INTO customer
SELECT c, d, 1, 'first' || c, 'OE', 'BARBARBAR', 'street 1', 'street 2', 'city', 'ST', '123411111',
       '0123456789012345', '2026-01-01 00:00:00', CASE WHEN c = 1 THEN 'BC' ELSE 'GC' END, 50000.00, 0.1000,
       -10.00, 10.00, 1, 0, 'customer data ' || c
FROM generate_series(1, 2) d, generate_series(1, 3) c;

INSERT INTO history
SELECT c, d, 1, d, 1, '2026-01-01 00:00:00', 10.00, 'initial'
FROM generate_series(1, 2) d, generate_series(1, 3) c;

INSERT INTO item
SELECT i, i, 'item ' || i, 1.00 + i, 'item data ' || i
FROM generate_series(1, 10) i;

INSERT INTO stock
SELECT i, 1, 50, 'd01', 'd02', 'd03', 'd04', 'd05', 'd06', 'd07', 'd08', 'd09', 'd10', 0, 0, 0, 'stock data ' || i
FROM generate_series(1, 10) i;

INSERT INTO orders
SELECT o, d, 1, (o - 1) % 3 + 1, timestamp '2026-01-01 00:00:00' + o * interval '1 second',
       CASE WHEN o < 2101 THEN 1 + o % 10 END, 1 + o % 3, 1
FROM generate_series(1, 2) d, generate_series(1, 2105) o;

INSERT INTO order_line
SELECT o.o_id, o.o_d_id, o.o_w_id, n, 1 + (o.o_id + n) % 10, 1,
       CASE WHEN o.o_id < 2101 THEN o.o_entry_d END, 5,
       CASE WHEN o.o_id < 2101 THEN 0.00 ELSE 1.25 * n END, 'dist info'
FROM orders o, generate_series(1, 3) n
WHERE n <= o.o_ol_cnt;

INSERT INTO new_order SELECT o_id, o_d_id, o_w_id FROM orders WHERE o_carrier_id IS NULL;

-- Payment: customer 2 of district 1 pays 100.00 at its home district.
UPDATE warehouse SET w_ytd = w_ytd + 100.00 WHERE w_id = 1;
UPDATE district SET d_ytd = d_ytd + 100.00 WHERE (d_w_id, d_id) = (1, 1);
UPDATE customer
SET c_balance = c_balance - 100.00, c_ytd_payment = c_ytd_payment + 100.00, c_payment_cnt = c_payment_cnt + 1
WHERE (c_w_id, c_d_id, c_id) = (1, 1, 2);
INSERT INTO history VALUES (2, 1, 1, 1, 1, '2026-01-02 00:00:00', 100.00, 'payment');

-- Delivery of district 2's oldest new order (2101, customer 1, lines 1.25 + 2.50).
DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) = (1, 2, 2101);
UPDATE orders SET o_carrier_id = 4 WHERE (o_w_id, o_d_id, o_id) = (1, 2, 2101);
UPDATE order_line SET ol_delivery_d = '2026-01-02 01:00:00' WHERE (ol_w_id, ol_d_id, ol_o_id) = (1, 2, 2101);
UPDATE customer
SET c_balance = c_balance + (SELECT sum(ol_amount) FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id) = (1, 2, 2101)),
    c_delivery_cnt = c_delivery_cnt + 1
WHERE (c_w_id, c_d_id, c_id) = (1, 2, (SELECT o_c_id FROM orders WHERE (o_w_id, o_d_id, o_id) = (1, 2, 2101)));
