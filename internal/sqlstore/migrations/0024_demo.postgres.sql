-- Demo play (docs/spec/API.md 1.2): a visitor's demo sessions and their games, with play money only. They
-- are tables of their own, never joined with players, sessions, games or transfers, so that no
-- figure of an emission, a report or the ledger can count them. A session's games go with it
-- (ON DELETE CASCADE): a logout, an expiry or the sweep forgets the whole of it.
CREATE TABLE demo_sessions (
	token_hash bytea PRIMARY KEY,
	balance    bigint NOT NULL CHECK (balance >= 0), -- cents of play money
	games      integer NOT NULL DEFAULT 0,
	created_at bigint NOT NULL, -- unix seconds
	last_seen  bigint NOT NULL
);
CREATE INDEX demo_sessions_by_last_seen ON demo_sessions (last_seen);
CREATE INDEX demo_sessions_by_created ON demo_sessions (created_at);

CREATE TABLE demo_games (
	id            bigserial PRIMARY KEY,
	session_hash  bytea NOT NULL REFERENCES demo_sessions (token_hash) ON DELETE CASCADE,
	key           text NOT NULL,
	request_hash  bytea NOT NULL,
	stake         bigint NOT NULL,
	mode          text NOT NULL,
	prize         bigint NOT NULL,
	color         smallint NOT NULL CHECK (color BETWEEN -1 AND 5), -- -1 until chosen
	clicks        bytea NOT NULL,
	status        text NOT NULL,
	balance_after bigint NOT NULL,
	line          bytea NOT NULL, -- the unit, as its audit line (docs/spec/RULES.md §8)
	created_at    bigint NOT NULL, -- unix seconds
	updated_at    bigint NOT NULL
);
CREATE UNIQUE INDEX demo_games_by_key ON demo_games (session_hash, key);
CREATE INDEX demo_games_by_session ON demo_games (session_hash, id);
