-- SQLite only: PostgreSQL keeps these times as timestamptz (8 bytes) since 0001_schema.
--
-- The times of the rows that grow with the sales, the games' and the transfers', become
-- integers of unix nanoseconds in UTC (issue 24): 8 bytes where the text of 0025's rule took 30,
-- about 50 bytes a sale with its transfers, and no text to parse on each read. The other
-- tables keep the rule's text: they grow with the people, not with the sales.
--
-- Both tables are made again, each copied once (ALTER TABLE would write every row twice, and
-- the transfers' trigger refuses an update):
-- 1. the watermark's triggers of `ledger check` go: they name these tables, and a change of the
--    schema makes the next check a full one anyway, which writes them again;
-- 2. the new tables are filled from the old, each time converted to the same instant
--    (fixed-width text since 0015; a shorter fraction is read too, and text no date function
--    reads makes the step fail on NOT NULL, with nothing changed);
-- 3. the old tables go, the transfers first (they refer to the games), and the new take their
--    names: the transfers' reference to games_new follows the rename;
-- 4. the indexes and triggers are made again, as they were.
DROP TRIGGER IF EXISTS ledger_games_insert;
DROP TRIGGER IF EXISTS ledger_games_update;
DROP TRIGGER IF EXISTS ledger_games_delete;
DROP TRIGGER IF EXISTS ledger_transfers_insert;

CREATE TABLE games_new (
	id             INTEGER PRIMARY KEY,
	player_id      INTEGER NOT NULL REFERENCES players(id),
	emission_id    TEXT NOT NULL,
	block          INTEGER NOT NULL,
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
	UNIQUE (emission_id, block, unit), -- a unit is sold at most once
	FOREIGN KEY (emission_id, block) REFERENCES blocks(emission_id, block)
);
INSERT INTO games_new (id, player_id, emission_id, block, unit, stake, mode, prize, clicks, status, balance_after,
		created_at, updated_at, color, stake_transfer)
	SELECT id, player_id, emission_id, block, unit, stake, mode, prize, clicks, status, balance_after,
		unixepoch(created_at) * 1000000000 + CASE WHEN substr(created_at, 20, 1) = '.'
			THEN CAST(substr(substr(created_at, 21, length(rtrim(created_at, 'Z')) - 20) || '000000000', 1, 9) AS INTEGER) ELSE 0 END,
		updated_at, color, stake_transfer
	FROM games ORDER BY id;

CREATE TABLE transfers_new (
	id           INTEGER PRIMARY KEY,
	from_account INTEGER NOT NULL REFERENCES accounts(id),
	to_account   INTEGER NOT NULL REFERENCES accounts(id),
	amount       INTEGER NOT NULL CHECK (amount > 0),
	kind         TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'stake', 'prize')),
	game_id      INTEGER REFERENCES games_new(id),
	created_at   INTEGER NOT NULL CHECK (typeof(created_at) = 'integer'), -- unix nanoseconds
	reason       TEXT CHECK (reason IS NULL OR (kind = 'withdrawal' AND reason IN ('exclusion', 'closure', 'register'))),
	CHECK (from_account <> to_account)
);
INSERT INTO transfers_new (id, from_account, to_account, amount, kind, game_id, created_at, reason)
	SELECT id, from_account, to_account, amount, kind, game_id,
		unixepoch(created_at) * 1000000000 + CASE WHEN substr(created_at, 20, 1) = '.'
			THEN CAST(substr(substr(created_at, 21, length(rtrim(created_at, 'Z')) - 20) || '000000000', 1, 9) AS INTEGER) ELSE 0 END,
		reason
	FROM transfers ORDER BY id;

DROP TABLE transfers;
DROP TABLE games;
ALTER TABLE games_new RENAME TO games;
ALTER TABLE transfers_new RENAME TO transfers;

CREATE INDEX games_by_player ON games(player_id, id);
CREATE INDEX games_unfinished ON games(updated_at) WHERE status <> 'finished';
CREATE INDEX transfers_money_out ON transfers(from_account) WHERE kind IN ('deposit', 'withdrawal');
CREATE INDEX transfers_money_in ON transfers(to_account) WHERE kind IN ('deposit', 'withdrawal');
CREATE TRIGGER transfers_append_only BEFORE UPDATE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are never changed'); END;
CREATE TRIGGER transfers_kept BEFORE DELETE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are never deleted'); END;
