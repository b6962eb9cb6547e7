-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- Failed logins counted by name and client address together (issue 9). Guesses from one address
-- lock that name from that address only, so that nobody can lock a player or an operator out
-- from elsewhere; a name that does not exist is counted like one that does, so that the answers
-- do not tell which names exist. An attempt is counted before its password is checked, in one
-- write that also decides the lock (sqlite.Tx.ReserveLogin), so that guesses sent at once are
-- counted as they arrive; a success deletes its own row.
CREATE TABLE login_failures (
	subject      TEXT NOT NULL,    -- 'player:' or 'operator:', then the name as typed, lower-cased
	address      TEXT NOT NULL,    -- the client's address (an IPv6 client's /64)
	failures     INTEGER NOT NULL, -- attempts in a row that did not log in
	locked_until INTEGER NOT NULL, -- unix seconds
	last_at      INTEGER NOT NULL, -- unix seconds, the last attempt
	PRIMARY KEY (subject, address)
) WITHOUT ROWID;
-- Rows quiet for an hour are swept out once a minute, found through this index.
CREATE INDEX login_failures_by_last ON login_failures(last_at);

-- The counts kept on the accounts, which anyone could drive up, are gone.
ALTER TABLE players DROP COLUMN failed_logins;
ALTER TABLE players DROP COLUMN locked_until;
ALTER TABLE operators DROP COLUMN failed_logins;
ALTER TABLE operators DROP COLUMN locked_until;
