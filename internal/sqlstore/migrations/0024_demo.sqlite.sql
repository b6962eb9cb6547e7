-- Demo play (docs/spec/API.md 1.2): a visitor's demo sessions and their games, with play money only. They
-- are tables of their own, never joined with players, sessions, games or transfers, so that no
-- figure of an emission, a report or the ledger can count them. A session's games go with it: a
-- logout, an expiry or the sweep forgets the whole of it (the store deletes them itself, as the
-- writer's connection does not enforce foreign keys).
CREATE TABLE demo_sessions (
	token_hash BLOB PRIMARY KEY,
	balance    INTEGER NOT NULL CHECK (balance >= 0), -- cents of play money
	games      INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL, -- unix seconds
	last_seen  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX demo_sessions_by_last_seen ON demo_sessions (last_seen);
CREATE INDEX demo_sessions_by_created ON demo_sessions (created_at);

CREATE TABLE demo_games (
	id            INTEGER PRIMARY KEY,
	session_hash  BLOB NOT NULL REFERENCES demo_sessions (token_hash) ON DELETE CASCADE,
	key           TEXT NOT NULL,
	request_hash  BLOB NOT NULL,
	stake         INTEGER NOT NULL,
	mode          TEXT NOT NULL,
	prize         INTEGER NOT NULL,
	color         INTEGER NOT NULL CHECK (color BETWEEN -1 AND 5), -- -1 until chosen
	clicks        BLOB NOT NULL,
	status        TEXT NOT NULL,
	balance_after INTEGER NOT NULL,
	line          BLOB NOT NULL, -- the unit, as its audit line (docs/spec/RULES.md §8)
	created_at    INTEGER NOT NULL, -- unix seconds
	updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX demo_games_by_key ON demo_games (session_hash, key);
CREATE INDEX demo_games_by_session ON demo_games (session_hash, id);
