-- The journal's queue holds a write's entries in one row (sqlstore/queue.go): entries is their
-- value, which PostgreSQL compresses once it passes 2 kB. The columns of one entry stay, for the
-- rows queued before (a server stopped before its sequencer ran); a row has one form or the other.
ALTER TABLE journal_queue ADD COLUMN entries bytea;
ALTER TABLE journal_queue ALTER COLUMN kind DROP NOT NULL, ALTER COLUMN account DROP NOT NULL, ALTER COLUMN pending DROP NOT NULL;
ALTER TABLE journal_queue ADD CONSTRAINT journal_queue_one_form CHECK ((entries IS NULL) = (pending IS NOT NULL));
-- lz4 compresses a batch's entries about as well as PostgreSQL's own pglz, for a fraction of its
-- time, where the server is built with it (Debian's is); elsewhere pglz does.
DO $$
BEGIN
	ALTER TABLE journal_queue ALTER COLUMN entries SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	NULL;
END $$;
