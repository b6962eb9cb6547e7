-- The mark of the last `ledger check` that found nothing wrong: see 0040_ledger_mark.sqlite.sql.
CREATE TABLE ledger_mark (
	id      integer PRIMARY KEY CHECK (id = 1),
	mark    bytea NOT NULL,
	made_ms bigint NOT NULL
);
