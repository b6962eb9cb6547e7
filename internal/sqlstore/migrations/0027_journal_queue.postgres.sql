-- The journal's queue: see 0027_journal_queue.sqlite.sql, here in PostgreSQL's types. The queue's ids
-- are drawn in the order the writes queue their entries; they may commit in another order, and
-- the sequencer takes the entries in the order of the ids it sees committed.
CREATE TABLE journal_queue (
	id       bigserial PRIMARY KEY,
	kind     text NOT NULL,
	account  bigint NOT NULL,
	game     bigint,
	transfer bigint,
	pending  bytea NOT NULL
);

ALTER TABLE journal DISABLE TRIGGER journal_append_only;
ALTER TABLE journal ADD COLUMN game bigint;
UPDATE journal SET game = g.id FROM games g WHERE g.journal_seq = journal.seq;
ALTER TABLE journal ENABLE TRIGGER journal_append_only;
CREATE UNIQUE INDEX journal_by_game ON journal (game) WHERE game IS NOT NULL;
ALTER TABLE games DROP COLUMN journal_seq;
