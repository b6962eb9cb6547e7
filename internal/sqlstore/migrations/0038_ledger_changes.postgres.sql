-- What `ledger check --since-last` does not read again: see 0038_ledger_changes.sqlite.sql. The
-- triggers that fill it are written by the check (sqlstore.RaiseLedgerMark), each calling
-- ledger_change with the table's name and the kind of change.
CREATE TABLE ledger_changes (
	id     bigserial PRIMARY KEY,
	tbl    text NOT NULL CHECK (tbl IN ('games', 'transfers')),
	row_id bigint NOT NULL,
	op     text NOT NULL CHECK (op IN ('insert', 'update', 'delete'))
);
CREATE TRIGGER ledger_changes_append_only BEFORE UPDATE OR DELETE ON ledger_changes
	FOR EACH ROW EXECUTE FUNCTION refuse('the ledger''s changes are never changed nor deleted');

CREATE FUNCTION ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO ledger_changes (tbl, row_id, op) VALUES (TG_TABLE_NAME, NEW.id, 'insert');
	ELSE
		INSERT INTO ledger_changes (tbl, row_id, op) VALUES (TG_TABLE_NAME, OLD.id, lower(TG_OP));
	END IF;
	RETURN NULL;
END $$;
