-- A sale's entry is kept as its leaf hash, no longer as its bytes (issue 24): the bytes are
-- rebuilt exactly from the game's rows (sqlstore/journalrebuild.go), as ledger check always
-- rebuilt them to compare. About 300 bytes a sale less, two thirds of the journal.
--
-- A row holds one form or the other:
--   - entry, its exact bytes: every entry before this migration, and every entry but a sale's;
--   - leaf, the entry's leaf hash (journal.Leaf) with the game it sells: a sale's from now on.
-- The leaf is written in the sale's transaction, as the bytes were: the tree and ledger check
-- hold the rows to what was sold then. A game rewritten since no longer rebuilds to its leaf.
--
-- SQLite cannot drop a NOT NULL: the table is made again, its rows copied, the index and the
-- triggers made again.
DROP TRIGGER journal_append_only;
DROP TRIGGER journal_kept;
DROP INDEX journal_by_game;
CREATE TABLE journal_new (
	seq   INTEGER PRIMARY KEY,
	entry BLOB,
	leaf  BLOB,
	game  INTEGER,
	CHECK ((entry IS NULL) <> (leaf IS NULL)),
	CHECK (leaf IS NULL OR (length(leaf) = 32 AND game IS NOT NULL))
);
INSERT INTO journal_new (seq, entry, game) SELECT seq, entry, game FROM journal ORDER BY seq;
DROP TABLE journal;
ALTER TABLE journal_new RENAME TO journal;
CREATE UNIQUE INDEX journal_by_game ON journal (game) WHERE game IS NOT NULL;
CREATE TRIGGER journal_append_only BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is never changed'); END;
CREATE TRIGGER journal_kept BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is never deleted'); END;
