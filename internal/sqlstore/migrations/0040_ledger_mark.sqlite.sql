-- The mark of the last `ledger check` that found nothing wrong (issue 24): what it proved, for
-- the next check to start from (lottery.Watermark). It is kept in the database, not beside it,
-- so that every server and the command share one: each check rewrites the watermark's
-- triggers, which changes the schema that any other mark names. It is signed with a key derived
-- from the journal's (ledgermark): whoever rewrites this row can only make the next check a
-- full one.
CREATE TABLE ledger_mark (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	mark    BLOB NOT NULL,
	made_ms INTEGER NOT NULL
);
