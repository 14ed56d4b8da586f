-- A small application for the front end's tests (rules in shop-rules.yaml): procedures that return a scalar, one row
-- of several columns, many rows of several types, and one that raises its own error with a detail and a hint.
DROP TABLE IF EXISTS account CASCADE;
CREATE TABLE account (id integer PRIMARY KEY, owner text NOT NULL, balance numeric(14,2) NOT NULL);
INSERT INTO account SELECT i, 'owner ' || i, 100 FROM generate_series(1, 20) i;

CREATE OR REPLACE FUNCTION deposit(p_id integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE b numeric;
BEGIN
  UPDATE account SET balance = balance + p_amount WHERE id = p_id RETURNING balance INTO b;
  RETURN b;
END $$;

CREATE OR REPLACE FUNCTION withdraw(p_id integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE b numeric;
BEGIN
  SELECT balance INTO b FROM account WHERE id = p_id;
  IF b < p_amount THEN
    RAISE EXCEPTION 'insufficient funds in account %', p_id USING ERRCODE = 'GA002',
      DETAIL = 'balance ' || b || ', asked ' || p_amount, HINT = 'deposit first';
  END IF;
  UPDATE account SET balance = balance - p_amount WHERE id = p_id RETURNING balance INTO b;
  RETURN b;
END $$;

CREATE OR REPLACE FUNCTION deposit_each(p_ids integer[], p_amounts numeric[]) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  UPDATE account SET balance = balance + d.amount FROM unnest(p_ids, p_amounts) AS d(id, amount) WHERE account.id = d.id;
  RETURN cardinality(p_ids);
END $$;

CREATE OR REPLACE FUNCTION statement(p_id integer)
RETURNS TABLE(id integer, owner text, balance numeric) LANGUAGE sql STABLE AS $$
  SELECT id, owner, balance FROM account WHERE id = p_id
$$;

CREATE OR REPLACE FUNCTION listing(p_from integer, p_to integer, p_at timestamp)
RETURNS TABLE(id integer, owner text, balance numeric, rich boolean, big bigint, at timestamp, tags text[])
LANGUAGE sql STABLE AS $$
  SELECT id, owner, balance, balance > 100, id * 10000000000::bigint, p_at, ARRAY['a', 'b c', NULL]
  FROM account WHERE id BETWEEN p_from AND p_to ORDER BY id
$$;

-- Slow on purpose (cancel and query-timeout tests): sleeps, then returns the balance.
CREATE OR REPLACE FUNCTION slow_balance(p_id integer, p_seconds numeric) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_sleep(p_seconds);
  RETURN (SELECT balance FROM account WHERE id = p_id);
END $$;
