-- The journal's queue holds a write's entries in one row (sqlstore/queue.go): entries is their
-- value, which PostgreSQL compresses once it passes 2 kB. The columns of one entry stay, for the
-- rows queued before (a server stopped before its sequencer ran); a row has one form or the other.
ALTER TABLE journal_queue ADD COLUMN entries bytea;
ALTER TABLE journal_queue ALTER COLUMN kind DROP NOT NULL, ALTER COLUMN account DROP NOT NULL, ALTER COLUMN pending DROP NOT NULL;
ALTER TABLE journal_queue ADD CONSTRAINT journal_queue_one_form CHECK ((entries IS NULL) = (pending IS NOT NULL));
