-- The five TPC-C transactions as PL/pgSQL functions (TPC-C 5.11, transaction profiles of clauses
-- 2.4 to 2.8), called as `SELECT * FROM new_order(...)`. Installed by TpccSchema on every replica;
-- CREATE OR REPLACE makes a re-install idempotent.
--
-- Every key and every timestamp is an argument: no random(), now(), current_timestamp or
-- clock_timestamp here. The classifier predicts a call's writes from its arguments, and a call must have
-- the same effect wherever and whenever it runs.
--
-- Errors (the SQLSTATE is what a client classifies; the message names the failing values):
--   GA001  New-Order names an item that does not exist: "Item number is not valid" (clause 2.4.2.3). The
--          expected 1% user rollback; the raise undoes the whole call. TpccSchema.INVALID_ITEM_SQLSTATE.
--   22023  malformed arguments (NULL key, arrays of different lengths, both or neither of c_id/c_last).
--   P0002  a warehouse, district, customer or stock row named by the arguments does not exist.
--
-- Parameter names are the specification's (w_id, c_id, c_last, ...) and so collide with column names.
-- The default `plpgsql.variable_conflict = error` stays on, so any unqualified ambiguous name fails
-- loudly; every column is qualified by a table alias and every parameter by its function's name.

CREATE OR REPLACE FUNCTION new_order(
    w_id integer, d_id integer, c_id integer,
    item_ids integer[], supply_w_ids integer[], quantities integer[], entry_d timestamp,
    OUT order_id integer, OUT total_amount numeric)
LANGUAGE plpgsql AS $$
DECLARE
    line_count   integer := cardinality(new_order.item_ids);
    all_local    integer;
    missing_item integer;
    missing_line bigint;
    warehouse_tax numeric;
    district_tax  numeric;
    discount      numeric;
    line          record;
    dist_info     char(24);
    line_amount   numeric(6,2);
    lines_total   numeric := 0;
BEGIN
    IF new_order.w_id IS NULL OR new_order.d_id IS NULL OR new_order.c_id IS NULL
            OR new_order.entry_d IS NULL OR line_count IS NULL OR line_count = 0 THEN
        RAISE EXCEPTION 'new_order(w_id %, d_id %, c_id %): keys, entry_d and item_ids must not be NULL or empty',
            new_order.w_id, new_order.d_id, new_order.c_id USING ERRCODE = '22023';
    END IF;
    IF cardinality(new_order.supply_w_ids) IS DISTINCT FROM line_count
            OR cardinality(new_order.quantities) IS DISTINCT FROM line_count THEN
        RAISE EXCEPTION 'new_order(w_id %, d_id %, c_id %): item_ids, supply_w_ids and quantities must have the same length, were %, %, %',
            new_order.w_id, new_order.d_id, new_order.c_id, line_count,
            cardinality(new_order.supply_w_ids), cardinality(new_order.quantities) USING ERRCODE = '22023';
    END IF;
    IF array_position(new_order.supply_w_ids, NULL) IS NOT NULL OR array_position(new_order.quantities, NULL) IS NOT NULL
            OR EXISTS (SELECT 1 FROM unnest(new_order.quantities) AS q(quantity) WHERE q.quantity < 1) THEN
        RAISE EXCEPTION 'new_order(w_id %, d_id %, c_id %): supply warehouses must not be NULL and quantities must be positive, were % and %',
            new_order.w_id, new_order.d_id, new_order.c_id, new_order.supply_w_ids, new_order.quantities
            USING ERRCODE = '22023';
    END IF;

    -- Clause 2.4.2.3: an unused item id rolls the transaction back. Checked before any lock is taken, so a
    -- doomed call never blocks others; the raise would undo earlier writes anyway.
    SELECT u.item_id, u.line_number INTO missing_item, missing_line
    FROM unnest(new_order.item_ids) WITH ORDINALITY AS u(item_id, line_number)
    WHERE NOT EXISTS (SELECT 1 FROM item i WHERE i.i_id = u.item_id)
    ORDER BY u.line_number
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'Item number is not valid'
            USING ERRCODE = 'GA001',
                  DETAIL = format('new_order(w_id %s, d_id %s, c_id %s): item %s on line %s does not exist',
                                  new_order.w_id, new_order.d_id, new_order.c_id,
                                  coalesce(missing_item::text, 'NULL'), missing_line);
    END IF;

    SELECT w.w_tax INTO warehouse_tax FROM warehouse w WHERE w.w_id = new_order.w_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'new_order: warehouse % does not exist', new_order.w_id USING ERRCODE = 'P0002';
    END IF;

    UPDATE district d SET d_next_o_id = d.d_next_o_id + 1
    WHERE d.d_w_id = new_order.w_id AND d.d_id = new_order.d_id
    RETURNING d.d_tax, d.d_next_o_id - 1 INTO district_tax, order_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'new_order: district (w_id %, d_id %) does not exist', new_order.w_id, new_order.d_id
            USING ERRCODE = 'P0002';
    END IF;

    -- c_last and c_credit are read by the profile for the terminal's output; only the discount is used here.
    SELECT c.c_discount INTO discount
    FROM customer c
    WHERE c.c_w_id = new_order.w_id AND c.c_d_id = new_order.d_id AND c.c_id = new_order.c_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'new_order: customer (w_id %, d_id %, c_id %) does not exist',
            new_order.w_id, new_order.d_id, new_order.c_id USING ERRCODE = 'P0002';
    END IF;

    all_local := CASE WHEN new_order.w_id = ALL (new_order.supply_w_ids) THEN 1 ELSE 0 END;

    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (order_id, new_order.d_id, new_order.w_id, new_order.c_id, new_order.entry_d, NULL, line_count, all_local);

    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (order_id, new_order.d_id, new_order.w_id);

    -- Stock rows are updated in (supply warehouse, item) order so that two concurrent New-Orders always
    -- lock them in the same order and cannot deadlock; each line keeps its number from the call's order.
    -- Repeated items are updated once per line, in line order (the sort is on the line number last).
    FOR line IN
        SELECT u.line_number::integer AS line_number, u.item_id, u.supply_w_id, u.quantity, i.i_price
        FROM unnest(new_order.item_ids, new_order.supply_w_ids, new_order.quantities)
                 WITH ORDINALITY AS u(item_id, supply_w_id, quantity, line_number)
             JOIN item i ON i.i_id = u.item_id
        ORDER BY u.supply_w_id, u.item_id, u.line_number
    LOOP
        UPDATE stock s SET
            s_quantity   = CASE WHEN s.s_quantity >= line.quantity + 10 THEN s.s_quantity - line.quantity
                                ELSE s.s_quantity - line.quantity + 91 END,
            s_ytd        = s.s_ytd + line.quantity,
            s_order_cnt  = s.s_order_cnt + 1,
            s_remote_cnt = s.s_remote_cnt + CASE WHEN line.supply_w_id = new_order.w_id THEN 0 ELSE 1 END
        WHERE s.s_w_id = line.supply_w_id AND s.s_i_id = line.item_id
        RETURNING CASE new_order.d_id
                      WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02 WHEN 3 THEN s.s_dist_03
                      WHEN 4 THEN s.s_dist_04 WHEN 5 THEN s.s_dist_05 WHEN 6 THEN s.s_dist_06
                      WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08 WHEN 9 THEN s.s_dist_09
                      ELSE s.s_dist_10 END
        INTO dist_info;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'new_order: stock (w_id %, i_id %) of line % does not exist',
                line.supply_w_id, line.item_id, line.line_number USING ERRCODE = 'P0002';
        END IF;

        line_amount := line.quantity * line.i_price;
        lines_total := lines_total + line_amount;

        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (order_id, new_order.d_id, new_order.w_id, line.line_number, line.item_id, line.supply_w_id,
                NULL, line.quantity, line_amount, dist_info);
    END LOOP;

    -- Clause 2.4.2.2: sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
    total_amount := round(lines_total * (1 - discount) * (1 + warehouse_tax + district_tax), 2);
END;
$$;


-- The customer of a Payment or Order-Status given by last name: of the n customers of the district with
-- that last name sorted by first name, the one at position ceil(n/2) (clause 2.5.2.2, 2.6.2.2). Ties on
-- c_first are broken by c_id, and c_first is compared byte-wise (COLLATE "C"), so that every replica picks
-- the same customer whatever its locale. NULL when there is none.
CREATE OR REPLACE FUNCTION tpcc_customer_by_last_name(w_id integer, d_id integer, c_last varchar)
RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT ranked.c_id
    FROM (SELECT c.c_id,
                 row_number() OVER (ORDER BY c.c_first COLLATE "C", c.c_id) AS position,
                 count(*) OVER () AS matches
          FROM customer c
          WHERE c.c_w_id = $1 AND c.c_d_id = $2 AND c.c_last = $3) AS ranked
    WHERE ranked.position = (ranked.matches + 1) / 2
$$;


CREATE OR REPLACE FUNCTION payment(
    w_id integer, d_id integer, c_w_id integer, c_d_id integer, c_id integer, c_last varchar,
    amount numeric, h_date timestamp,
    OUT customer_id integer, OUT customer_balance numeric)
LANGUAGE plpgsql AS $$
DECLARE
    -- Rounded once, so that w_ytd, d_ytd, c_balance and h_amount move by exactly the same value
    -- (consistency conditions 3.3.2.8 to 3.3.2.10).
    paid          numeric(6,2) := payment.amount;
    warehouse_name varchar(10);
    district_name  varchar(10);
BEGIN
    IF payment.w_id IS NULL OR payment.d_id IS NULL OR payment.c_w_id IS NULL OR payment.c_d_id IS NULL
            OR payment.h_date IS NULL OR paid IS NULL OR paid <= 0 THEN
        RAISE EXCEPTION 'payment(w_id %, d_id %, c_w_id %, c_d_id %): keys and h_date must not be NULL and amount must be positive, amount was %',
            payment.w_id, payment.d_id, payment.c_w_id, payment.c_d_id, coalesce(payment.amount::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF (payment.c_id IS NULL) = (payment.c_last IS NULL) THEN
        RAISE EXCEPTION 'payment(w_id %, d_id %): exactly one of c_id and c_last must be given, were % and %',
            payment.w_id, payment.d_id, coalesce(payment.c_id::text, 'NULL'), coalesce(payment.c_last, 'NULL')
            USING ERRCODE = '22023';
    END IF;

    -- The warehouse and district rows are the hottest of the schema: every Payment of a warehouse adds to them, and
    -- every New-Order of a district updates its row too. Their names are read here without a lock; the two
    -- increments come last (district, then warehouse: one order for every Payment and every applied write-set), so
    -- each row lock is held from that statement to the commit, not for the whole call.
    SELECT w.w_name INTO warehouse_name FROM warehouse w WHERE w.w_id = payment.w_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: warehouse % does not exist', payment.w_id USING ERRCODE = 'P0002';
    END IF;

    SELECT d.d_name INTO district_name FROM district d WHERE d.d_w_id = payment.w_id AND d.d_id = payment.d_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: district (w_id %, d_id %) does not exist', payment.w_id, payment.d_id
            USING ERRCODE = 'P0002';
    END IF;

    IF payment.c_id IS NOT NULL THEN
        customer_id := payment.c_id;
    ELSE
        customer_id := tpcc_customer_by_last_name(payment.c_w_id, payment.c_d_id, payment.c_last);
        IF customer_id IS NULL THEN
            RAISE EXCEPTION 'payment: no customer with last name % in district (w_id %, d_id %)',
                payment.c_last, payment.c_w_id, payment.c_d_id USING ERRCODE = 'P0002';
        END IF;
    END IF;

    -- A bad-credit customer's c_data gets the payment prepended, and is cut back to 500 characters.
    UPDATE customer c SET
        c_balance     = c.c_balance - paid,
        c_ytd_payment = c.c_ytd_payment + paid,
        c_payment_cnt = c.c_payment_cnt + 1,
        c_data        = CASE WHEN c.c_credit = 'BC'
                             THEN left(concat_ws(' ', c.c_id, c.c_d_id, c.c_w_id, payment.d_id, payment.w_id, paid)
                                       || ' | ' || c.c_data, 500)
                             ELSE c.c_data END
    WHERE c.c_w_id = payment.c_w_id AND c.c_d_id = payment.c_d_id AND c.c_id = customer_id
    RETURNING c.c_balance INTO customer_balance;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: customer (w_id %, d_id %, c_id %) does not exist',
            payment.c_w_id, payment.c_d_id, customer_id USING ERRCODE = 'P0002';
    END IF;

    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (customer_id, payment.c_d_id, payment.c_w_id, payment.d_id, payment.w_id, payment.h_date, paid,
            warehouse_name || '    ' || district_name);

    UPDATE district d SET d_ytd = d.d_ytd + paid WHERE d.d_w_id = payment.w_id AND d.d_id = payment.d_id;
    UPDATE warehouse w SET w_ytd = w.w_ytd + paid WHERE w.w_id = payment.w_id;
END;
$$;


CREATE OR REPLACE FUNCTION delivery(
    w_id integer, carrier_id integer, delivery_d timestamp,
    OUT delivered_orders integer)
LANGUAGE plpgsql AS $$
DECLARE
    district_no integer;
    oldest      integer;
    customer_no integer;
    lines_total numeric;
BEGIN
    IF delivery.w_id IS NULL OR delivery.carrier_id IS NULL OR delivery.delivery_d IS NULL THEN
        RAISE EXCEPTION 'delivery(w_id %, carrier_id %): arguments must not be NULL',
            coalesce(delivery.w_id::text, 'NULL'), coalesce(delivery.carrier_id::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM warehouse w WHERE w.w_id = delivery.w_id) THEN
        RAISE EXCEPTION 'delivery: warehouse % does not exist', delivery.w_id USING ERRCODE = 'P0002';
    END IF;

    delivered_orders := 0;
    -- Clause 2.7.4.2: the ten districts in order, the oldest undelivered order of each; a district without
    -- one is skipped.
    FOR district_no IN 1..10 LOOP
        -- FOR UPDATE under LIMIT: a concurrent Delivery that took the same row makes this one wait, then
        -- move on to the next order rather than find nothing.
        SELECT n.no_o_id INTO oldest
        FROM new_order n
        WHERE n.no_w_id = delivery.w_id AND n.no_d_id = district_no
        ORDER BY n.no_o_id
        LIMIT 1
        FOR UPDATE;
        CONTINUE WHEN NOT FOUND;

        DELETE FROM new_order n
        WHERE n.no_w_id = delivery.w_id AND n.no_d_id = district_no AND n.no_o_id = oldest;

        UPDATE orders o SET o_carrier_id = delivery.carrier_id
        WHERE o.o_w_id = delivery.w_id AND o.o_d_id = district_no AND o.o_id = oldest
        RETURNING o.o_c_id INTO customer_no;

        WITH delivered AS (
            UPDATE order_line ol SET ol_delivery_d = delivery.delivery_d
            WHERE ol.ol_w_id = delivery.w_id AND ol.ol_d_id = district_no AND ol.ol_o_id = oldest
            RETURNING ol.ol_amount)
        SELECT coalesce(sum(delivered.ol_amount), 0) INTO lines_total FROM delivered;

        UPDATE customer c SET
            c_balance      = c.c_balance + lines_total,
            c_delivery_cnt = c.c_delivery_cnt + 1
        WHERE c.c_w_id = delivery.w_id AND c.c_d_id = district_no AND c.c_id = customer_no;

        delivered_orders := delivered_orders + 1;
    END LOOP;
END;
$$;


-- Read-only. STABLE: every statement reads the call's one snapshot, so the customer, the order and its
-- lines are consistent with one another even in READ COMMITTED.
CREATE OR REPLACE FUNCTION order_status(w_id integer, d_id integer, c_id integer, c_last varchar)
RETURNS TABLE (
    customer_id      integer,
    customer_first   varchar,
    customer_middle  char(2),
    customer_last    varchar,
    customer_balance numeric,
    order_id         integer,
    order_entry_d    timestamp,
    order_carrier_id integer,
    line_number      integer,
    item_id          integer,
    supply_w_id      integer,
    quantity         integer,
    amount           numeric,
    delivery_d       timestamp)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    found_customer integer;
    last_order     integer;
BEGIN
    IF order_status.w_id IS NULL OR order_status.d_id IS NULL THEN
        RAISE EXCEPTION 'order_status(w_id %, d_id %): keys must not be NULL',
            coalesce(order_status.w_id::text, 'NULL'), coalesce(order_status.d_id::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF (order_status.c_id IS NULL) = (order_status.c_last IS NULL) THEN
        RAISE EXCEPTION 'order_status(w_id %, d_id %): exactly one of c_id and c_last must be given, were % and %',
            order_status.w_id, order_status.d_id, coalesce(order_status.c_id::text, 'NULL'),
            coalesce(order_status.c_last, 'NULL') USING ERRCODE = '22023';
    END IF;

    found_customer := coalesce(order_status.c_id,
                               tpcc_customer_by_last_name(order_status.w_id, order_status.d_id, order_status.c_last));
    IF found_customer IS NULL THEN
        RAISE EXCEPTION 'order_status: no customer with last name % in district (w_id %, d_id %)',
            order_status.c_last, order_status.w_id, order_status.d_id USING ERRCODE = 'P0002';
    END IF;

    SELECT max(o.o_id) INTO last_order
    FROM orders o
    WHERE o.o_w_id = order_status.w_id AND o.o_d_id = order_status.d_id AND o.o_c_id = found_customer;

    -- One row per order line; a customer without orders gives one row with the order columns NULL.
    RETURN QUERY
    SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance,
           o.o_id, o.o_entry_d, o.o_carrier_id,
           ol.ol_number, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount, ol.ol_delivery_d
    FROM customer c
         LEFT JOIN orders o
                ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_id = last_order
         LEFT JOIN order_line ol
                ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
    WHERE c.c_w_id = order_status.w_id AND c.c_d_id = order_status.d_id AND c.c_id = found_customer
    ORDER BY ol.ol_number;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'order_status: customer (w_id %, d_id %, c_id %) does not exist',
            order_status.w_id, order_status.d_id, found_customer USING ERRCODE = 'P0002';
    END IF;
END;
$$;


-- Read-only; STABLE for one snapshot (see order_status). Clause 2.8.2.2: the distinct items of the
-- district's last 20 orders whose stock at the home warehouse is below the threshold.
CREATE OR REPLACE FUNCTION stock_level(w_id integer, d_id integer, threshold integer,
    OUT low_stock integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    next_order integer;
BEGIN
    IF stock_level.w_id IS NULL OR stock_level.d_id IS NULL OR stock_level.threshold IS NULL THEN
        RAISE EXCEPTION 'stock_level(w_id %, d_id %, threshold %): arguments must not be NULL',
            coalesce(stock_level.w_id::text, 'NULL'), coalesce(stock_level.d_id::text, 'NULL'),
            coalesce(stock_level.threshold::text, 'NULL') USING ERRCODE = '22023';
    END IF;

    SELECT d.d_next_o_id INTO next_order
    FROM district d
    WHERE d.d_w_id = stock_level.w_id AND d.d_id = stock_level.d_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'stock_level: district (w_id %, d_id %) does not exist', stock_level.w_id, stock_level.d_id
            USING ERRCODE = 'P0002';
    END IF;

    SELECT count(DISTINCT s.s_i_id) INTO low_stock
    FROM order_line ol
         JOIN stock s ON s.s_w_id = stock_level.w_id AND s.s_i_id = ol.ol_i_id
    WHERE ol.ol_w_id = stock_level.w_id AND ol.ol_d_id = stock_level.d_id
      AND ol.ol_o_id >= next_order - 20 AND ol.ol_o_id < next_order
      AND s.s_quantity < stock_level.threshold;
END;
$$;
