-- An emission's life (docs/spec/OPERATOR.md, issue 23): suspended, resumed, withdrawn.
--
-- selling is what the sales read: a block sells only while it is 1. A suspension sets its
-- emission's blocks to 0 in the write that records it, so that on PostgreSQL it waits for the
-- batches that hold those rows, and every batch after it sees them closed. It alters no unit
-- and no commitment (blocks_commitment_immutable still guards those columns).
ALTER TABLE blocks ADD COLUMN selling BOOLEAN NOT NULL DEFAULT 1 CHECK (selling IN (0, 1));

-- Every change of an emission's status, in order: its status now is its latest row's (on_sale
-- when it has none). Append-only.
CREATE TABLE emission_history (
	id          INTEGER PRIMARY KEY,
	emission_id TEXT NOT NULL REFERENCES emissions(id),
	status      TEXT NOT NULL CHECK (status IN ('on_sale', 'suspended', 'withdrawn')),
	reason      TEXT NOT NULL DEFAULT '',
	by_name     TEXT NOT NULL, -- the operator's name, or "command line"
	created_at  TEXT NOT NULL
);
CREATE INDEX emission_history_by_emission ON emission_history (emission_id, id);
CREATE TRIGGER emission_history_append_only BEFORE UPDATE ON emission_history
BEGIN SELECT RAISE(ABORT, 'an emission''s history is never changed'); END;
CREATE TRIGGER emission_history_kept BEFORE DELETE ON emission_history
BEGIN SELECT RAISE(ABORT, 'an emission''s history is never deleted'); END;
