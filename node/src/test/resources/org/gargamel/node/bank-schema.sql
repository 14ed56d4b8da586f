DROP TABLE IF EXISTS district, orders CASCADE;
CREATE TABLE district (w_id integer, d_id integer, next_o_id integer NOT NULL, ytd numeric(12,2) NOT NULL,
                       PRIMARY KEY (w_id, d_id));
CREATE TABLE orders (o_w_id integer, o_d_id integer, o_id integer, note text, PRIMARY KEY (o_w_id, o_d_id, o_id));
INSERT INTO district SELECT w, d, 1, 0 FROM generate_series(1, 2) w, generate_series(1, 10) d;
CREATE OR REPLACE FUNCTION new_order(p_w integer, p_d integer, p_note text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE o integer;
BEGIN
  IF p_note = 'invalid' THEN
    RAISE EXCEPTION 'invalid item in order for district %/%', p_w, p_d USING ERRCODE = 'GA001';
  END IF;
  UPDATE district SET next_o_id = next_o_id + 1 WHERE w_id = p_w AND d_id = p_d RETURNING next_o_id - 1 INTO o;
  PERFORM pg_sleep(0.05);
  INSERT INTO orders VALUES (p_w, p_d, o, p_note);
  RETURN o;
END $$;
CREATE OR REPLACE FUNCTION payment(p_w integer, p_d integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE y numeric;
BEGIN
  UPDATE district SET ytd = ytd + p_amount WHERE w_id = p_w AND d_id = p_d RETURNING ytd INTO y;
  PERFORM pg_sleep(0.05);
  RETURN y;
END $$;
CREATE OR REPLACE FUNCTION read_district(p_w integer, p_d integer) RETURNS TABLE (next_o_id integer, ytd numeric)
LANGUAGE sql AS $$ SELECT next_o_id, ytd FROM district WHERE w_id = p_w AND d_id = p_d $$;
CREATE OR REPLACE FUNCTION read_isolation(p_w integer) RETURNS text
LANGUAGE sql AS $$ SELECT current_setting('transaction_isolation') $$;
-- A setting of the worker's session (its connection's, which an ad-hoc read never sees).
CREATE OR REPLACE FUNCTION read_setting(p_name text) RETURNS text
LANGUAGE sql AS $$ SELECT current_setting(p_name) $$;
CREATE OR REPLACE FUNCTION quick_payment(p_w integer, p_d integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE y numeric;
BEGIN
  UPDATE district SET ytd = ytd + p_amount WHERE w_id = p_w AND d_id = p_d RETURNING ytd INTO y;
  RETURN y;
END $$;
CREATE OR REPLACE FUNCTION order_lines(p_w integer, p_d integer, p_quantities integer[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  IF p_quantities IS NULL OR array_position(p_quantities, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'order_lines(%, %): quantities must not be NULL', p_w, p_d USING ERRCODE = '22023';
  END IF;
  UPDATE district SET next_o_id = next_o_id + cardinality(p_quantities) WHERE w_id = p_w AND d_id = p_d;
  RETURN cardinality(p_quantities);
END $$;
DROP TABLE IF EXISTS audit CASCADE;
CREATE TABLE audit (id integer, CONSTRAINT audit_key PRIMARY KEY (id) DEFERRABLE INITIALLY DEFERRED);
CREATE OR REPLACE FUNCTION audit_twice(p_id integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit VALUES (p_id);
  INSERT INTO audit VALUES (p_id);  -- the deferred key fails only when checked: at COMMIT, or SET CONSTRAINTS
  RETURN p_id;
END $$;
-- In the database, not in the rules: a node must refuse to call it (it would write).
CREATE OR REPLACE FUNCTION outside_rules(p_id integer) RETURNS integer LANGUAGE sql AS $$
  INSERT INTO audit VALUES (p_id) RETURNING id
$$;
