-- What `ledger check --since-last` does not read again: the games and transfers at or below the
-- watermark of the last check it recorded (issue 24). Triggers that the check itself writes, with
-- the watermark in their text (sqlstore.RaiseLedgerMark), record here each such row inserted late
-- (a wallet's round, whose id was reserved before its sale), and each such game changed or
-- deleted. The check reads what was recorded since it last looked. The schema's version is in its
-- mark: a trigger dropped, even put back, is a change of the schema, and asks for a full check.
CREATE TABLE ledger_changes (
	id     INTEGER PRIMARY KEY,
	tbl    TEXT NOT NULL CHECK (tbl IN ('games', 'transfers')),
	row_id INTEGER NOT NULL,
	op     TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete'))
);
CREATE TRIGGER ledger_changes_append_only BEFORE UPDATE ON ledger_changes
BEGIN SELECT RAISE(ABORT, 'the ledger''s changes are never changed'); END;
CREATE TRIGGER ledger_changes_kept BEFORE DELETE ON ledger_changes
BEGIN SELECT RAISE(ABORT, 'the ledger''s changes are never deleted'); END;
