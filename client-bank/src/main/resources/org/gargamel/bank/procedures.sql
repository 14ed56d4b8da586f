-- The bank's procedures, called as `SELECT * FROM deposit(...)`. CREATE OR REPLACE makes a re-install idempotent.
--
-- Keys come from the tables' defaults (bigserial, identity): a procedure never passes an id of its own for a new row,
-- so the rules can declare those inserts `fresh: true` and the live validation proves them unique (docs/bank.md).
-- Timestamps come from the columns' DEFAULT now(): the row image travels in the write-set, so every replica stores
-- the value the executing replica drew.
--
-- Errors (the SQLSTATE is what the client classifies):
--   BK001  insufficient funds: withdraw or transfer of more than the balance. The expected user abort.
--   BK002  no such account (or branch). At a replica that has not yet applied the account's creation this is the
--          read-your-writes gap (docs/bank.md); the client counts it apart from errors.
--   22023  malformed arguments (NULL, non-positive amount, a transfer to the same account).

CREATE OR REPLACE FUNCTION open_account(branch_id integer, owner text, initial numeric)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    new_id bigint;
BEGIN
    IF open_account.branch_id IS NULL OR open_account.owner IS NULL OR open_account.initial IS NULL
            OR open_account.initial < 0 THEN
        RAISE EXCEPTION 'open_account(%, %, %): arguments must not be NULL and initial must not be negative',
            open_account.branch_id, open_account.owner, open_account.initial USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM branch b WHERE b.id = open_account.branch_id) THEN
        RAISE EXCEPTION 'open_account: no branch %', open_account.branch_id USING ERRCODE = 'BK002';
    END IF;
    INSERT INTO account (branch_id, owner, balance)
    VALUES (open_account.branch_id, open_account.owner, open_account.initial)
    RETURNING id INTO new_id;
    INSERT INTO entry (account_id, amount, kind) VALUES (new_id, open_account.initial, 'open');
    RETURN new_id;
END $$;

CREATE OR REPLACE FUNCTION deposit(account_id bigint, amount numeric)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    new_balance numeric;
BEGIN
    IF deposit.account_id IS NULL OR deposit.amount IS NULL OR deposit.amount <= 0 THEN
        RAISE EXCEPTION 'deposit(%, %): the amount must be positive', deposit.account_id, deposit.amount
            USING ERRCODE = '22023';
    END IF;
    UPDATE account a SET balance = a.balance + deposit.amount WHERE a.id = deposit.account_id
    RETURNING a.balance INTO new_balance;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'deposit: no account %', deposit.account_id USING ERRCODE = 'BK002';
    END IF;
    INSERT INTO entry (account_id, amount, kind) VALUES (deposit.account_id, deposit.amount, 'deposit');
    RETURN new_balance;
END $$;

CREATE OR REPLACE FUNCTION withdraw(account_id bigint, amount numeric)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
    old_balance numeric;
BEGIN
    IF withdraw.account_id IS NULL OR withdraw.amount IS NULL OR withdraw.amount <= 0 THEN
        RAISE EXCEPTION 'withdraw(%, %): the amount must be positive', withdraw.account_id, withdraw.amount
            USING ERRCODE = '22023';
    END IF;
    SELECT a.balance INTO old_balance FROM account a WHERE a.id = withdraw.account_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'withdraw: no account %', withdraw.account_id USING ERRCODE = 'BK002';
    END IF;
    IF old_balance < withdraw.amount THEN
        RAISE EXCEPTION 'insufficient funds: account % holds %, withdrawal of %',
            withdraw.account_id, old_balance, withdraw.amount USING ERRCODE = 'BK001';
    END IF;
    UPDATE account a SET balance = old_balance - withdraw.amount WHERE a.id = withdraw.account_id;
    INSERT INTO entry (account_id, amount, kind) VALUES (withdraw.account_id, -withdraw.amount, 'withdraw');
    RETURN old_balance - withdraw.amount;
END $$;

CREATE OR REPLACE FUNCTION transfer(from_id bigint, to_id bigint, amount numeric)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    from_balance numeric;
    new_id bigint;
BEGIN
    IF transfer.from_id IS NULL OR transfer.to_id IS NULL OR transfer.amount IS NULL OR transfer.amount <= 0
            OR transfer.from_id = transfer.to_id THEN
        RAISE EXCEPTION 'transfer(%, %, %): two different accounts and a positive amount',
            transfer.from_id, transfer.to_id, transfer.amount USING ERRCODE = '22023';
    END IF;
    -- Both rows locked in id order, whatever the direction (the rules chain such calls anyway).
    PERFORM 1 FROM account a WHERE a.id IN (transfer.from_id, transfer.to_id) ORDER BY a.id FOR UPDATE;
    SELECT a.balance INTO from_balance FROM account a WHERE a.id = transfer.from_id;
    IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM account a WHERE a.id = transfer.to_id) THEN
        RAISE EXCEPTION 'transfer: no account % or %', transfer.from_id, transfer.to_id USING ERRCODE = 'BK002';
    END IF;
    IF from_balance < transfer.amount THEN
        RAISE EXCEPTION 'insufficient funds: account % holds %, transfer of %',
            transfer.from_id, from_balance, transfer.amount USING ERRCODE = 'BK001';
    END IF;
    UPDATE account a SET balance = a.balance - transfer.amount WHERE a.id = transfer.from_id;
    UPDATE account a SET balance = a.balance + transfer.amount WHERE a.id = transfer.to_id;
    INSERT INTO transfer (from_id, to_id, amount) VALUES (transfer.from_id, transfer.to_id, transfer.amount)
    RETURNING id INTO new_id;
    INSERT INTO entry (account_id, amount, kind, transfer_id)
    VALUES (transfer.from_id, -transfer.amount, 'transfer', new_id),
           (transfer.to_id, transfer.amount, 'transfer', new_id);
    RETURN new_id;
END $$;

-- Read-only, in three statements: the balance, then the entries that must add up to it. A call that read the two
-- at two different states (a deposit committed in between) returns balance <> entries_total: a torn read, which the
-- client counts. Gargamel runs read-only calls in one REPEATABLE READ snapshot, so it never happens.
CREATE OR REPLACE FUNCTION account_statement(
    account_id bigint, OUT balance numeric, OUT entries_total numeric, OUT entries bigint)
LANGUAGE plpgsql AS $$
BEGIN
    SELECT a.balance INTO balance FROM account a WHERE a.id = account_statement.account_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'account_statement: no account %', account_statement.account_id USING ERRCODE = 'BK002';
    END IF;
    SELECT coalesce(sum(e.amount), 0) INTO entries_total FROM entry e WHERE e.account_id = account_statement.account_id;
    SELECT count(*) INTO entries FROM entry e WHERE e.account_id = account_statement.account_id;
END $$;

-- Read-only audit of one branch in three statements: how many accounts, the sum of their balances, the sum of
-- their entries. balance_total <> entries_total is a torn read.
CREATE OR REPLACE FUNCTION branch_audit(
    branch_id integer, OUT accounts bigint, OUT balance_total numeric, OUT entries_total numeric)
LANGUAGE plpgsql AS $$
BEGIN
    SELECT count(*) INTO accounts FROM account a WHERE a.branch_id = branch_audit.branch_id;
    SELECT coalesce(sum(a.balance), 0) INTO balance_total FROM account a WHERE a.branch_id = branch_audit.branch_id;
    SELECT coalesce(sum(e.amount), 0) INTO entries_total
    FROM entry e JOIN account a ON a.id = e.account_id
    WHERE a.branch_id = branch_audit.branch_id;
END $$;
