DROP TABLE IF EXISTS warehouse, district, history CASCADE;
CREATE TABLE warehouse (w_id integer PRIMARY KEY, w_ytd numeric(12,2) NOT NULL, w_payments integer NOT NULL,
                        w_bonus integer);
CREATE TABLE district (w_id integer, d_id integer, d_ytd numeric(12,2) NOT NULL, PRIMARY KEY (w_id, d_id));
CREATE TABLE history (h_w_id integer NOT NULL, h_d_id integer NOT NULL, h_amount numeric(6,2) NOT NULL);
INSERT INTO warehouse VALUES (1, 0, 0, NULL), (2, 0, 0, NULL);
INSERT INTO district SELECT w, d, 0 FROM generate_series(1, 2) w, generate_series(1, 4) d;
-- Adds to its warehouse and district; holds the warehouse row for a moment, so that two at once overlap.
CREATE OR REPLACE FUNCTION payment(p_w integer, p_d integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE y numeric;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + p_amount, w_payments = w_payments + 1 WHERE w_id = p_w RETURNING w_ytd INTO y;
  PERFORM pg_sleep(0.05);
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE w_id = p_w AND d_id = p_d;
  INSERT INTO history VALUES (p_w, p_d, p_amount);
  RETURN y;
END $$;
-- Declared add: in the rules, but overwrites.
CREATE OR REPLACE FUNCTION overwrite_payment(p_w integer, p_d integer, p_amount numeric) RETURNS numeric
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE warehouse SET w_ytd = p_amount WHERE w_id = p_w;
  RETURN p_amount;
END $$;
-- Declared add: in the rules, but its cell starts NULL.
CREATE OR REPLACE FUNCTION bonus(p_w integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  UPDATE warehouse SET w_bonus = coalesce(w_bonus, 0) + 1 WHERE w_id = p_w;
  RETURN 1;
END $$;
