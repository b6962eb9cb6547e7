-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- The operators of the back office (issue 4): accounts apart from the players', their sessions,
-- and an append-only log of everything they do.

CREATE TABLE operators (
	id            INTEGER PRIMARY KEY,
	name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL, -- argon2id, PHC string format
	created_at    TEXT NOT NULL,
	failed_logins INTEGER NOT NULL DEFAULT 0,
	locked_until  INTEGER NOT NULL DEFAULT 0 -- unix seconds
);

-- Known by the SHA-256 of the cookie's token, as the players' sessions are.
CREATE TABLE operator_sessions (
	token_hash  BLOB PRIMARY KEY,
	operator_id INTEGER NOT NULL REFERENCES operators(id),
	created_at  INTEGER NOT NULL, -- unix seconds
	last_seen   INTEGER NOT NULL
);

-- Every operator action, failed logins included (operator_id is NULL for an unknown name).
CREATE TABLE operator_log (
	id          INTEGER PRIMARY KEY,
	operator_id INTEGER REFERENCES operators(id),
	name        TEXT NOT NULL,  -- the operator's name as typed or known
	action      TEXT NOT NULL,  -- login, login_failed, logout, emission_create, export, ...
	detail      TEXT NOT NULL DEFAULT '',
	remote      TEXT NOT NULL DEFAULT '', -- the client's address
	created_at  TEXT NOT NULL
);

CREATE TRIGGER operator_log_append_only BEFORE UPDATE ON operator_log
BEGIN SELECT RAISE(ABORT, 'the operator log is never changed'); END;
CREATE TRIGGER operator_log_kept BEFORE DELETE ON operator_log
BEGIN SELECT RAISE(ABORT, 'the operator log is never deleted'); END;
