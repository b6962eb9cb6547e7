-- SQLite's first schema: the emissions. Its steps up to 0011 (SQLite only) make the rest of what
-- 0001_schema.postgres.sql makes at once.
--
-- Emissions and their blocks (docs/spec/RULES.md §6, §8). Units are stored by pages of emission.PageUnits
-- units in a compact binary form; an audit line is rebuilt from them byte for byte.
CREATE TABLE emissions (
	id          TEXT PRIMARY KEY,
	price       INTEGER NOT NULL CHECK (price > 0),  -- cents
	definition  TEXT NOT NULL,                       -- game definition version
	game_table  TEXT NOT NULL,                       -- the prize table used, as JSON
	seed_sha256 TEXT NOT NULL,                       -- lets an escrowed seed be recognised
	created_at  TEXT NOT NULL
);

-- A block's row is small and hot (every sale updates sold); its page roots (about 125 KB) live
-- apart, in block_trees, so that a sale never rewrites them.
CREATE TABLE blocks (
	emission_id TEXT NOT NULL REFERENCES emissions(id),
	block       INTEGER NOT NULL CHECK (block >= 0),
	units       INTEGER NOT NULL CHECK (units > 0),
	root        BLOB NOT NULL,
	sold        INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0 AND sold <= units),
	PRIMARY KEY (emission_id, block)
);

CREATE TABLE block_trees (
	emission_id TEXT NOT NULL,
	block       INTEGER NOT NULL,
	page_hashes BLOB NOT NULL, -- the subtree root of each page, 32 bytes each, in order
	PRIMARY KEY (emission_id, block),
	FOREIGN KEY (emission_id, block) REFERENCES blocks(emission_id, block)
);

CREATE TABLE unit_pages (
	emission_id TEXT NOT NULL,
	block       INTEGER NOT NULL,
	page        INTEGER NOT NULL,
	data        BLOB NOT NULL,
	PRIMARY KEY (emission_id, block, page),
	FOREIGN KEY (emission_id, block) REFERENCES blocks(emission_id, block)
);

-- An emission is immutable once created: its units, roots and tables never change.
CREATE TRIGGER unit_pages_immutable BEFORE UPDATE ON unit_pages
BEGIN SELECT RAISE(ABORT, 'units of an emission are immutable'); END;
CREATE TRIGGER unit_pages_kept BEFORE DELETE ON unit_pages
BEGIN SELECT RAISE(ABORT, 'units of an emission are never deleted'); END;
CREATE TRIGGER emissions_immutable BEFORE UPDATE ON emissions
BEGIN SELECT RAISE(ABORT, 'an emission is immutable'); END;
CREATE TRIGGER blocks_commitment_immutable BEFORE UPDATE OF emission_id, block, units, root ON blocks
BEGIN SELECT RAISE(ABORT, 'a block commitment is immutable'); END;
CREATE TRIGGER block_trees_immutable BEFORE UPDATE ON block_trees
BEGIN SELECT RAISE(ABORT, 'a block commitment is immutable'); END;
