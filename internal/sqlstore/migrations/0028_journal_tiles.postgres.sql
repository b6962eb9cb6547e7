-- The journal's tree as tiles: as 0028_journal_tiles.sqlite.sql, in PostgreSQL's types.
CREATE TABLE journal_tiles (
	level  integer NOT NULL,
	n      bigint NOT NULL,
	hashes bytea NOT NULL,
	PRIMARY KEY (level, n)
);
CREATE FUNCTION journal_tile_extended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.level <> OLD.level OR NEW.n <> OLD.n OR length(NEW.hashes) < length(OLD.hashes)
		OR substring(NEW.hashes FROM 1 FOR length(OLD.hashes)) <> OLD.hashes THEN
		RAISE EXCEPTION 'the journal''s tree is only extended, never changed';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER journal_tiles_only_extended BEFORE UPDATE ON journal_tiles
	FOR EACH ROW EXECUTE FUNCTION journal_tile_extended();
CREATE TRIGGER journal_tiles_kept BEFORE DELETE ON journal_tiles
	FOR EACH ROW EXECUTE FUNCTION refuse('the journal''s tree is never deleted');
DROP TABLE journal_hashes;
UPDATE journal_state SET hashed = 0;
