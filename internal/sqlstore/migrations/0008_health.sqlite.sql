-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- One row that the health check writes (sqlite.DB.CheckWrite), through the writer like every
-- write, so that /healthz tells whether the store can write now (issue 9: a full disk, a
-- read-only file).
CREATE TABLE health (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	checked_at INTEGER NOT NULL -- unix seconds
);
