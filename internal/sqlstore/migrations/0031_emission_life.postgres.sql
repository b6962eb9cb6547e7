-- An emission's life (docs/spec/OPERATOR.md, issue 23): see the SQLite step.
ALTER TABLE blocks ADD COLUMN selling boolean NOT NULL DEFAULT true;

CREATE TABLE emission_history (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	emission_id text NOT NULL REFERENCES emissions(id),
	status      text NOT NULL CHECK (status IN ('on_sale', 'suspended', 'withdrawn')),
	reason      text NOT NULL DEFAULT '',
	by_name     text NOT NULL,
	created_at  timestamptz NOT NULL
);
CREATE INDEX emission_history_by_emission ON emission_history (emission_id, id);
CREATE TRIGGER emission_history_append_only BEFORE UPDATE OR DELETE ON emission_history
	FOR EACH ROW EXECUTE FUNCTION refuse('an emission''s history is never changed nor deleted');
