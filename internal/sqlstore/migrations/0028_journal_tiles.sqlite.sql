-- The journal's tree as tiles (journal/tiles.go): a row holds 256 hashes of one level, where
-- journal_hashes held a row a hash; the levels between are hashed again from them when read.
-- The tile at the tree's right edge is stored again, wider, as the tree grows: the trigger lets
-- a tile be extended, never changed otherwise.
--
-- The tiles are made again from the entries, which are the journal (the tree is only their
-- hashes): hashed goes back to 0, and the journal's loop rebuilds the tree on its next steps.
-- It signs no checkpoint until the tree is past the latest, and none that does not extend it
-- (journal.Log.Sign).
CREATE TABLE journal_tiles (
	level  INTEGER NOT NULL,
	n      INTEGER NOT NULL,
	hashes BLOB NOT NULL,
	PRIMARY KEY (level, n)
);
CREATE TRIGGER journal_tiles_only_extended BEFORE UPDATE ON journal_tiles
	WHEN NEW.level IS NOT OLD.level OR NEW.n IS NOT OLD.n OR length(NEW.hashes) < length(OLD.hashes)
		OR substr(NEW.hashes, 1, length(OLD.hashes)) IS NOT OLD.hashes
BEGIN SELECT RAISE(ABORT, 'the journal''s tree is only extended, never changed'); END;
CREATE TRIGGER journal_tiles_kept BEFORE DELETE ON journal_tiles
BEGIN SELECT RAISE(ABORT, 'the journal''s tree is never deleted'); END;
DROP TABLE journal_hashes;
UPDATE journal_state SET hashed = 0;
