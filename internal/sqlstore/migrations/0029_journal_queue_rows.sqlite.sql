-- The journal's queue holds a write's entries in one row (sqlstore/queue.go): entries is their
-- value. The columns of one entry stay, for the rows queued before; a row has one form or the
-- other. SQLite's writer seals its own entries: its queue is always empty, and is made again.
DROP TABLE journal_queue;
CREATE TABLE journal_queue (
	id       INTEGER PRIMARY KEY,
	kind     TEXT,
	account  INTEGER,
	game     INTEGER,
	transfer INTEGER,
	pending  BLOB,
	entries  BLOB,
	CHECK ((entries IS NULL) = (pending IS NOT NULL))
);
