-- The journal's queue (sqlstore/journal.go). On PostgreSQL a journaled write no longer takes its
-- entries' seqs from journal_state: it queues them here, pending (journal.Pending), with its
-- change, and the sequencer moves them to the journal in the order they were queued, sealed at
-- their seqs (journal.Seal). SQLite's one writer seals its entries itself, as before: the table
-- is here for one schema, and stays empty.
--
-- account is the entry's account (0: none), sealed into its reference; game and transfer are
-- what it names, for ledger check to know the rows whose entry is queued still.
CREATE TABLE journal_queue (
	id       INTEGER PRIMARY KEY,
	kind     TEXT NOT NULL,
	account  INTEGER NOT NULL,
	game     INTEGER,
	transfer INTEGER,
	pending  BLOB NOT NULL
);

-- A sale entry's game, for its proof: games.journal_seq could not be written with the game,
-- whose seq is not known then.
DROP TRIGGER journal_append_only;
ALTER TABLE journal ADD COLUMN game INTEGER;
UPDATE journal SET game = (SELECT g.id FROM games g WHERE g.journal_seq = journal.seq)
	WHERE seq IN (SELECT journal_seq FROM games WHERE journal_seq IS NOT NULL);
CREATE TRIGGER journal_append_only BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is never changed'); END;
CREATE UNIQUE INDEX journal_by_game ON journal (game) WHERE game IS NOT NULL;
ALTER TABLE games DROP COLUMN journal_seq;
