-- A small application that is not TPC-C (rules in accounts-rules.yaml): accounts whose balances move, a read-only total
-- read in two statements, an audit that reads a balance twice, and calls keyed by the elements of an array.
DROP TABLE IF EXISTS account, label CASCADE;
CREATE TABLE account (id integer PRIMARY KEY, balance numeric(14,2) NOT NULL, audits integer NOT NULL);
INSERT INTO account SELECT i, 100, 0 FROM generate_series(1, 40) i;
CREATE TABLE label (name text PRIMARY KEY, uses integer NOT NULL);
INSERT INTO label VALUES ('red', 0), ('green', 0);

CREATE OR REPLACE FUNCTION transfer(p_from integer, p_to integer, p_amount numeric) RETURNS numeric
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE account SET balance = balance - p_amount WHERE id = p_from;
  UPDATE account SET balance = balance + p_amount WHERE id = p_to;
  RETURN p_amount;
END $$;

CREATE OR REPLACE FUNCTION deposit(p_id integer, p_amount numeric) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE b numeric;
BEGIN
  UPDATE account SET balance = balance + p_amount WHERE id = p_id RETURNING balance INTO b;
  RETURN b;
END $$;

-- The total of every account, read in two statements (a VOLATILE function: at READ COMMITTED each statement would take
-- a snapshot of its own). Transfers move money between the halves, so two snapshots can give a total that never was.
CREATE OR REPLACE FUNCTION total() RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE low numeric; high numeric;
BEGIN
  SELECT sum(balance) INTO low FROM account WHERE id <= 20;
  PERFORM pg_sleep(0.02);
  SELECT sum(balance) INTO high FROM account WHERE id > 20;
  RETURN low + high;
END $$;

-- Reads one balance twice and counts the audit in another column of the row; returns both reads. A test holding
-- advisory lock p_id (exclusively) decides when the second read comes.
CREATE OR REPLACE FUNCTION audit(p_id integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE first numeric; second numeric;
BEGIN
  SELECT balance INTO first FROM account WHERE id = p_id;
  PERFORM pg_advisory_xact_lock_shared(p_id);
  PERFORM pg_sleep(0.01);
  SELECT balance INTO second FROM account WHERE id = p_id;
  UPDATE account SET audits = audits + 1 WHERE id = p_id;
  RETURN first || ' ' || second;
END $$;

CREATE OR REPLACE FUNCTION deposit_each(p_ids integer[], p_amounts numeric[]) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  IF array_position(p_ids, NULL) IS NOT NULL OR array_position(p_amounts, NULL) IS NOT NULL THEN
    RAISE EXCEPTION 'deposit_each: ids and amounts must not hold NULL' USING ERRCODE = '22023';
  END IF;
  UPDATE account SET balance = balance + d.amount FROM unnest(p_ids, p_amounts) AS d(id, amount) WHERE account.id = d.id;
  RETURN cardinality(p_ids);
END $$;

CREATE OR REPLACE FUNCTION use_labels(p_names text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  UPDATE label SET uses = uses + 1 WHERE name = ANY (p_names);
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

-- One balance, read-only: what a session reads right after its own deposit (SessionReadYourWritesTest).
CREATE OR REPLACE FUNCTION balance(p_id integer) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT a.balance FROM account a WHERE a.id = p_id);
END $$;
