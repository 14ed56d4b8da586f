-- C5's adversarial workload for apply lag (gargamel apply-lag, docs/node.md, Parallel apply): many independent
-- inserts, which Gargamel runs in parallel at every replica, plus one hot row, whose updates form one chain.
-- No unique index besides the primary keys: a table with one is applied one write-set at a time.
CREATE TABLE event (
    id bigserial PRIMARY KEY,
    terminal integer NOT NULL,
    seq bigint NOT NULL,
    part integer NOT NULL,
    payload text NOT NULL
);

CREATE TABLE hot (
    id integer PRIMARY KEY,
    hits bigint NOT NULL
);

INSERT INTO hot (id, hits) VALUES (1, 0);

-- Events (terminal, seq, 1..n), one call; the keys come from the sequence (each replica draws from a residue
-- class of its own). Returns how many were inserted.
CREATE OR REPLACE FUNCTION record_events(terminal integer, seq bigint, n integer, payload text)
RETURNS bigint LANGUAGE sql AS $$
    WITH inserted AS (
        INSERT INTO event (terminal, seq, part, payload)
        SELECT record_events.terminal, record_events.seq, part, record_events.payload
        FROM generate_series(1, record_events.n) AS part
        RETURNING 1
    )
    SELECT count(*) FROM inserted
$$;

-- One more hit on the hot row.
CREATE OR REPLACE FUNCTION hit(hot_id integer)
RETURNS bigint LANGUAGE sql AS $$
    UPDATE hot SET hits = hits + 1 WHERE id = hit.hot_id RETURNING hits
$$;
