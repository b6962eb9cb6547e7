-- The journal (docs/spec/API.md 1.2): every event that moves money or changes what a player may
-- do, one entry each, appended in the transaction of the change it records (sqlstore/journal.go).
-- An entry is kept as its exact bytes (journal.Encode), by its seq: a rowid table, so the seq is
-- the row's key and costs nothing beside it.
CREATE TABLE journal (
	seq   INTEGER PRIMARY KEY,
	entry BLOB NOT NULL
);
-- The tree's stored hashes (golang.org/x/mod/sumdb/tlog), by their index (tlog.StoredHashIndex):
-- about two per entry, written after the entries by the journal's loop (journal.Log).
CREATE TABLE journal_hashes (
	id   INTEGER PRIMARY KEY,
	hash BLOB NOT NULL
);
-- The signed tree heads (C2SP tlog-checkpoint notes), by the tree size they sign.
CREATE TABLE journal_checkpoints (
	size      INTEGER PRIMARY KEY,
	note      TEXT NOT NULL,
	signed_at TEXT NOT NULL
);
-- Where the journal stands, one row:
--   - size: the entries appended, so the next one's seq (the counter the appends take);
--   - hashed: the entries the stored hashes cover;
--   - verifier: the note verifier key of the checkpoints, '' until the first;
--   - first_game, first_transfer, first_account: the first game, transfer and account the journal
--     covers (an account's limits, exclusion and closure). A database migrated with history keeps
--     its past outside the journal: the ids after the largest so far.
CREATE TABLE journal_state (
	id             INTEGER PRIMARY KEY CHECK (id = 1),
	size           INTEGER NOT NULL CHECK (size >= 0),
	hashed         INTEGER NOT NULL CHECK (hashed >= 0 AND hashed <= size),
	verifier       TEXT NOT NULL,
	first_game     INTEGER NOT NULL,
	first_transfer INTEGER NOT NULL,
	first_account  INTEGER NOT NULL
);
INSERT INTO journal_state (id, size, hashed, verifier, first_game, first_transfer, first_account)
	SELECT 1, 0, 0, '', coalesce((SELECT max(id) FROM games), 0) + 1, coalesce((SELECT max(id) FROM transfers), 0) + 1,
		coalesce((SELECT max(id) FROM accounts), 0) + 1;
-- The account of each entry of a player's restrictions (limits, exclusion, closure), by its seq.
-- An entry names its account only by HMAC(account key, account ‖ seq): ledger check reads here
-- whose rows to compare it with, and checks the account against the reference, so that a map
-- rewritten is caught too. A sale never writes here.
CREATE TABLE journal_accounts (
	seq     INTEGER PRIMARY KEY,
	account INTEGER NOT NULL
);
CREATE INDEX journal_accounts_by_account ON journal_accounts (account, seq);
-- The seq of each game's sale entry, for its proof (NULL: sold before the journal began).
ALTER TABLE games ADD COLUMN journal_seq INTEGER;

CREATE TRIGGER journal_append_only BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is never changed'); END;
CREATE TRIGGER journal_kept BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is never deleted'); END;
CREATE TRIGGER journal_hashes_append_only BEFORE UPDATE ON journal_hashes
BEGIN SELECT RAISE(ABORT, 'the journal''s tree is never changed'); END;
CREATE TRIGGER journal_hashes_kept BEFORE DELETE ON journal_hashes
BEGIN SELECT RAISE(ABORT, 'the journal''s tree is never deleted'); END;
CREATE TRIGGER journal_checkpoints_append_only BEFORE UPDATE ON journal_checkpoints
BEGIN SELECT RAISE(ABORT, 'the journal''s checkpoints are never changed'); END;
CREATE TRIGGER journal_checkpoints_kept BEFORE DELETE ON journal_checkpoints
BEGIN SELECT RAISE(ABORT, 'the journal''s checkpoints are never deleted'); END;
CREATE TRIGGER journal_accounts_append_only BEFORE UPDATE ON journal_accounts
BEGIN SELECT RAISE(ABORT, 'the journal''s accounts are never changed'); END;
CREATE TRIGGER journal_accounts_kept BEFORE DELETE ON journal_accounts
BEGIN SELECT RAISE(ABORT, 'the journal''s accounts are never deleted'); END;
