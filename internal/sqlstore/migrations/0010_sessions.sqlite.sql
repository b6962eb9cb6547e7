-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- One table for the sessions of players and operators (issue 11): one implementation serves both
-- (internal/session), and a write made for a player checks its session in it. A session is known
-- by the SHA-256 of its token, as before. Its owner is a player or an operator, by kind; `ledger
-- check` proves every owner exists, which no foreign key can say of two tables.
CREATE TABLE sessions_all (
	token_hash BLOB PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('player', 'operator')),
	owner_id   INTEGER NOT NULL,
	created_at INTEGER NOT NULL, -- unix seconds
	last_seen  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO sessions_all (token_hash, kind, owner_id, created_at, last_seen)
	SELECT token_hash, 'player', player_id, created_at, last_seen FROM sessions;
INSERT INTO sessions_all (token_hash, kind, owner_id, created_at, last_seen)
	SELECT token_hash, 'operator', operator_id, created_at, last_seen FROM operator_sessions;
DROP TABLE sessions;
DROP TABLE operator_sessions;
ALTER TABLE sessions_all RENAME TO sessions;
-- The sweep of ended sessions finds them through their times (migration 0006).
CREATE INDEX sessions_by_last_seen ON sessions(kind, last_seen);
CREATE INDEX sessions_by_created ON sessions(kind, created_at);
