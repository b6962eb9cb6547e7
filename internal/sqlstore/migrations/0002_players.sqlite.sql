-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- Players, sessions, the double-entry ledger, games and idempotency keys (issue 3).

-- Every sum of money lives in an account; money only moves by transfers between two accounts.
-- The bank is where play money comes from (its balance goes negative as players deposit); the
-- prize fund receives stakes and pays prizes. A player's account can never go below zero.
CREATE TABLE accounts (
	id      INTEGER PRIMARY KEY,
	kind    TEXT NOT NULL CHECK (kind IN ('bank', 'prize_fund', 'player')),
	balance INTEGER NOT NULL DEFAULT 0,
	CHECK (kind <> 'player' OR balance >= 0)
);
INSERT INTO accounts (id, kind) VALUES (1, 'bank'), (2, 'prize_fund');

CREATE TABLE players (
	id            INTEGER PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL,
	account_id    INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
	created_at    TEXT NOT NULL,
	failed_logins INTEGER NOT NULL DEFAULT 0,
	locked_until  INTEGER NOT NULL DEFAULT 0 -- unix seconds
);

-- A session is known by the SHA-256 of its cookie token: the database never holds a usable token.
CREATE TABLE sessions (
	token_hash BLOB PRIMARY KEY,
	player_id  INTEGER NOT NULL REFERENCES players(id),
	created_at INTEGER NOT NULL, -- unix seconds
	last_seen  INTEGER NOT NULL
);

CREATE TABLE games (
	id            INTEGER PRIMARY KEY,
	player_id     INTEGER NOT NULL REFERENCES players(id),
	emission_id   TEXT NOT NULL,
	block         INTEGER NOT NULL,
	unit          INTEGER NOT NULL,
	stake         INTEGER NOT NULL CHECK (stake > 0),
	mode          TEXT NOT NULL CHECK (mode IN ('manual', 'auto')),
	prize         INTEGER NOT NULL CHECK (prize >= 0),
	color         INTEGER CHECK (color BETWEEN 0 AND 5),
	clicks        BLOB NOT NULL DEFAULT x'', -- the cells clicked, one byte each, in order
	status        TEXT NOT NULL CHECK (status IN ('choose_color', 'playing', 'finished')),
	balance_after INTEGER NOT NULL,
	created_at    TEXT NOT NULL,
	updated_at    INTEGER NOT NULL, -- unix seconds, to finish abandoned games
	UNIQUE (emission_id, block, unit), -- a unit is sold at most once
	FOREIGN KEY (emission_id, block) REFERENCES blocks(emission_id, block)
);
CREATE INDEX games_by_player ON games(player_id, id);
CREATE INDEX games_unfinished ON games(updated_at) WHERE status <> 'finished';

CREATE TABLE transfers (
	id           INTEGER PRIMARY KEY,
	from_account INTEGER NOT NULL REFERENCES accounts(id),
	to_account   INTEGER NOT NULL REFERENCES accounts(id),
	amount       INTEGER NOT NULL CHECK (amount > 0),
	kind         TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'stake', 'prize')),
	game_id      INTEGER REFERENCES games(id),
	created_at   TEXT NOT NULL,
	CHECK (from_account <> to_account)
);
-- No index on the transfers' accounts or games: every sale appends two transfers, and each index
-- would add pages to write at every commit; the ledger check reads them all in one scan instead.

-- The first answer to a money-moving request, kept to answer its retries (docs/spec/API.md).
CREATE TABLE idempotency (
	player_id    INTEGER NOT NULL REFERENCES players(id),
	key          TEXT NOT NULL,
	request_hash BLOB NOT NULL,
	status       INTEGER NOT NULL,
	response     BLOB NOT NULL,
	created_at   INTEGER NOT NULL, -- unix seconds
	PRIMARY KEY (player_id, key)
) WITHOUT ROWID;

-- The ledger is append-only.
CREATE TRIGGER transfers_append_only BEFORE UPDATE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are never changed'); END;
CREATE TRIGGER transfers_kept BEFORE DELETE ON transfers
BEGIN SELECT RAISE(ABORT, 'transfers are never deleted'); END;
