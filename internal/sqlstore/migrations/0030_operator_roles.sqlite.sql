-- Operators' roles and API tokens (docs/spec/OPERATOR.md, issue 23).
--
-- roles is the set as OPERATOR.md writes it (lottery.Roles: "viewer,finance,…"). An operator
-- made before roles existed keeps every role: the default, which only this step relies on.
ALTER TABLE operators ADD COLUMN roles TEXT NOT NULL DEFAULT 'viewer,finance,emissions,compliance,approver,admin';

-- An API token is "sco_ID_SECRET": ID finds its row, and the SHA-256 of SECRET is compared with
-- secret_hash in constant time. The secret itself is shown once, when made, and kept nowhere.
-- A revoked token keeps its row, for the log's sake: revoked_at is set once, never cleared.
CREATE TABLE operator_tokens (
	id          INTEGER PRIMARY KEY,
	operator_id INTEGER NOT NULL REFERENCES operators(id),
	secret_hash BLOB NOT NULL CHECK (length(secret_hash) = 32),
	created_at  TEXT NOT NULL,
	revoked_at  TEXT
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens (operator_id);

CREATE TRIGGER operator_tokens_kept BEFORE DELETE ON operator_tokens
BEGIN SELECT RAISE(ABORT, 'an operator token is revoked, never deleted'); END;
CREATE TRIGGER operator_tokens_revoked_once BEFORE UPDATE ON operator_tokens
WHEN OLD.revoked_at IS NOT NULL OR NEW.id != OLD.id OR NEW.operator_id != OLD.operator_id OR NEW.secret_hash != OLD.secret_hash OR NEW.created_at != OLD.created_at
BEGIN SELECT RAISE(ABORT, 'an operator token only ever changes by being revoked, once'); END;
