-- The journal (docs/spec/API.md 1.2): as 0026_journal.sqlite.sql, in PostgreSQL's types. Every
-- journaled transaction takes its seqs from journal_state's one row as its last statement, so
-- the row lock orders the commits of every server: one total order, with no gaps.
CREATE TABLE journal (
	seq   bigint PRIMARY KEY,
	entry bytea NOT NULL
);
CREATE TABLE journal_hashes (
	id   bigint PRIMARY KEY,
	hash bytea NOT NULL
);
CREATE TABLE journal_checkpoints (
	size      bigint PRIMARY KEY,
	note      text NOT NULL,
	signed_at timestamptz NOT NULL
);
CREATE TABLE journal_state (
	id             integer PRIMARY KEY CHECK (id = 1),
	size           bigint NOT NULL CHECK (size >= 0),
	hashed         bigint NOT NULL CHECK (hashed >= 0 AND hashed <= size),
	verifier       text NOT NULL,
	first_game     bigint NOT NULL,
	first_transfer bigint NOT NULL,
	first_account  bigint NOT NULL
);
INSERT INTO journal_state (id, size, hashed, verifier, first_game, first_transfer, first_account)
	SELECT 1, 0, 0, '', coalesce((SELECT max(id) FROM games), 0) + 1, coalesce((SELECT max(id) FROM transfers), 0) + 1,
		coalesce((SELECT max(id) FROM accounts), 0) + 1;
CREATE TABLE journal_accounts (
	seq     bigint PRIMARY KEY,
	account bigint NOT NULL
);
CREATE INDEX journal_accounts_by_account ON journal_accounts (account, seq);
-- No default: the column is added without rewriting the games.
ALTER TABLE games ADD COLUMN journal_seq bigint;

CREATE TRIGGER journal_append_only BEFORE UPDATE OR DELETE ON journal
	FOR EACH ROW EXECUTE FUNCTION refuse('the journal is never changed nor deleted');
CREATE TRIGGER journal_hashes_append_only BEFORE UPDATE OR DELETE ON journal_hashes
	FOR EACH ROW EXECUTE FUNCTION refuse('the journal''s tree is never changed nor deleted');
CREATE TRIGGER journal_checkpoints_append_only BEFORE UPDATE OR DELETE ON journal_checkpoints
	FOR EACH ROW EXECUTE FUNCTION refuse('the journal''s checkpoints are never changed nor deleted');
CREATE TRIGGER journal_accounts_append_only BEFORE UPDATE OR DELETE ON journal_accounts
	FOR EACH ROW EXECUTE FUNCTION refuse('the journal''s accounts are never changed nor deleted');
