-- Each block gets a number, and a game names its block by it (issue 24): an integer of a byte or
-- two where the emission's id (up to 64 characters) and the block's index were, in each game and
-- again in the unique index of the units sold. About 60 bytes a sale.
--
-- The blocks are made again with the number as their rowid, in the order they were made, and the
-- pair (emission_id, block) unique, which the units' and the trees' references need. A number is
-- never given twice (AUTOINCREMENT) and a block is never deleted, as on PostgreSQL (an identity,
-- a trigger): a game's number names one block for ever. The games
-- are made again as 0041 made them, the block's number in place of the pair:
-- 1. the watermark's triggers of `ledger check` go (0041 says why);
-- 2. the new tables are filled from the old; a game whose block does not exist fails the step on
--    NOT NULL, with nothing changed (`ledger check` reports such a game before);
-- 3. the old tables go and the new take their names: the games' reference to blocks_new, and
--    the transfers' to games, follow;
-- 4. the indexes and the triggers are made again, the number immutable with the rest.
DROP TRIGGER IF EXISTS ledger_games_insert;
DROP TRIGGER IF EXISTS ledger_games_update;
DROP TRIGGER IF EXISTS ledger_games_delete;

CREATE TABLE blocks_new (
	number       INTEGER PRIMARY KEY AUTOINCREMENT, -- what the games name the block by
	emission_id  TEXT NOT NULL REFERENCES emissions(id),
	block        INTEGER NOT NULL CHECK (block >= 0),
	units        INTEGER NOT NULL CHECK (units > 0),
	root         BLOB NOT NULL,
	sold         INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0 AND sold <= units),
	prizes_sold  INTEGER NOT NULL DEFAULT 0 CHECK (prizes_sold >= 0),
	winners_sold INTEGER NOT NULL DEFAULT 0 CHECK (winners_sold >= 0 AND winners_sold <= sold),
	selling      BOOLEAN NOT NULL DEFAULT 1 CHECK (selling IN (0, 1)),
	UNIQUE (emission_id, block)
);
INSERT INTO blocks_new (number, emission_id, block, units, root, sold, prizes_sold, winners_sold, selling)
	SELECT rowid, emission_id, block, units, root, sold, prizes_sold, winners_sold, selling FROM blocks ORDER BY rowid;

CREATE TABLE games_new (
	id             INTEGER PRIMARY KEY,
	player_id      INTEGER NOT NULL REFERENCES players(id),
	block_number   INTEGER NOT NULL REFERENCES blocks_new(number),
	unit           INTEGER NOT NULL,
	stake          INTEGER NOT NULL CHECK (stake > 0),
	mode           TEXT NOT NULL CHECK (mode IN ('manual', 'auto')),
	prize          INTEGER NOT NULL CHECK (prize >= 0),
	clicks         BLOB NOT NULL DEFAULT x'', -- the cells clicked, one byte each, in order
	status         TEXT NOT NULL CHECK (status IN ('choose_color', 'playing', 'finished')),
	balance_after  INTEGER NOT NULL,
	created_at     INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'), -- unix nanoseconds
	updated_at     INTEGER NOT NULL, -- unix seconds, to finish abandoned games
	color          INTEGER NOT NULL DEFAULT -1 CHECK (color BETWEEN -1 AND 5),
	stake_transfer INTEGER NOT NULL DEFAULT 0,
	UNIQUE (block_number, unit) -- a unit is sold at most once
);
INSERT INTO games_new (id, player_id, block_number, unit, stake, mode, prize, clicks, status, balance_after,
		created_at, updated_at, color, stake_transfer)
	SELECT g.id, g.player_id, b.number, g.unit, g.stake, g.mode, g.prize, g.clicks, g.status, g.balance_after,
		g.created_at, g.updated_at, g.color, g.stake_transfer
	FROM games g LEFT JOIN blocks_new b ON b.emission_id = g.emission_id AND b.block = g.block ORDER BY g.id;

DROP TABLE games;
DROP TABLE blocks;
ALTER TABLE blocks_new RENAME TO blocks;
ALTER TABLE games_new RENAME TO games;

CREATE TRIGGER blocks_commitment_immutable BEFORE UPDATE OF number, emission_id, block, units, root ON blocks
BEGIN SELECT RAISE(ABORT, 'a block commitment is immutable'); END;
CREATE TRIGGER blocks_kept BEFORE DELETE ON blocks
BEGIN SELECT RAISE(ABORT, 'a block is never deleted'); END;
CREATE INDEX games_by_player ON games(player_id, id);
CREATE INDEX games_unfinished ON games(updated_at) WHERE status <> 'finished';
