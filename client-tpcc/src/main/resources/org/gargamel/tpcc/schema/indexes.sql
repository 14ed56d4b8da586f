-- Secondary indexes, created by the loader after the data (building an index once is much cheaper than
-- maintaining it row by row during COPY). The primary keys of schema.sql serve the other look-ups:
-- new_order's PK gives Delivery its oldest order, order_line's PK gives Stock-Level its last 20 orders.

-- Payment and Order-Status by last name: the customers of a district with one c_last, sorted by c_first.
CREATE INDEX customer_last_name_idx ON customer (c_w_id, c_d_id, c_last, c_first);

-- Order-Status: a customer's most recent order.
CREATE INDEX orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id);
