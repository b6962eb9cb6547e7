-- Operators' roles and API tokens (docs/spec/OPERATOR.md, issue 23): see the SQLite step.
ALTER TABLE operators ADD COLUMN roles text NOT NULL DEFAULT 'viewer,finance,emissions,compliance,approver,admin';

CREATE TABLE operator_tokens (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	operator_id bigint NOT NULL REFERENCES operators(id),
	secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
	created_at  timestamptz NOT NULL,
	revoked_at  timestamptz
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens (operator_id);

CREATE FUNCTION operator_tokens_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		RAISE EXCEPTION 'an operator token is revoked, never deleted';
	END IF;
	IF OLD.revoked_at IS NOT NULL OR NEW.id <> OLD.id OR NEW.operator_id <> OLD.operator_id
		OR NEW.secret_hash <> OLD.secret_hash OR NEW.created_at <> OLD.created_at THEN
		RAISE EXCEPTION 'an operator token only ever changes by being revoked, once';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER operator_tokens_guard BEFORE UPDATE OR DELETE ON operator_tokens
	FOR EACH ROW EXECUTE FUNCTION operator_tokens_guard();
