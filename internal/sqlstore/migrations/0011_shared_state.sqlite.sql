-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- What the servers of one game share, kept in the store rather than in a process (issue 11): the
-- rate of logins and sign-ups of each address, the back office's jobs, and the leases that let
-- one server of several do a piece of work.

-- The rate of each key (an address's logins and sign-ups), by the generic cell rate algorithm:
-- the theoretical arrival time of its next request (internal/throttle).
CREATE TABLE throttles (
	key TEXT PRIMARY KEY,
	tat INTEGER NOT NULL -- unix nanoseconds
) WITHOUT ROWID;

-- Emissions being created from the back office, with their progress.
CREATE TABLE jobs (
	id          INTEGER PRIMARY KEY,
	emission_id TEXT NOT NULL,
	price       INTEGER NOT NULL,
	blocks      INTEGER NOT NULL,
	operator    TEXT NOT NULL,
	started_at  INTEGER NOT NULL, -- unix milliseconds
	done        INTEGER NOT NULL, -- units built
	total       INTEGER NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	elapsed_ms  INTEGER NOT NULL,
	beat_at     INTEGER NOT NULL  -- unix milliseconds: the last sign of its server at work
);

-- A lease gives a piece of work (a sweep) to one holder until a time.
CREATE TABLE leases (
	name     TEXT PRIMARY KEY,
	holder   TEXT NOT NULL,
	until_ms INTEGER NOT NULL -- unix milliseconds
) WITHOUT ROWID;
