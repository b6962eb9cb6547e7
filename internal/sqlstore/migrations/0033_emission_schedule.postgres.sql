-- An emission's whole life (docs/spec/OPERATOR.md, issue 23): see the SQLite step.
ALTER TABLE emissions ADD COLUMN on_sale_at timestamptz;

ALTER TABLE emission_history DROP CONSTRAINT emission_history_status_check,
	ADD CONSTRAINT emission_history_status_check CHECK (status IN ('scheduled', 'on_sale', 'suspended', 'withdrawn'));

ALTER TABLE proposals DROP CONSTRAINT proposals_action_check,
	DROP CONSTRAINT proposals_emission_id_fkey,
	ALTER COLUMN emission_id SET DEFAULT '',
	ADD COLUMN price bigint,
	ADD COLUMN blocks integer,
	ADD COLUMN on_sale_at timestamptz,
	ADD COLUMN operator_id bigint REFERENCES operators(id),
	ADD COLUMN roles text,
	ADD CONSTRAINT proposals_action_check CHECK (action IN ('emission_create', 'emission_withdraw', 'operator_roles')),
	ADD CHECK (action = 'operator_roles' OR emission_id <> ''),
	ADD CHECK ((action = 'emission_create') = (price IS NOT NULL AND blocks IS NOT NULL)),
	ADD CHECK ((action = 'operator_roles') = (operator_id IS NOT NULL AND roles IS NOT NULL));
CREATE INDEX proposals_by_emission ON proposals (emission_id, id);

CREATE OR REPLACE FUNCTION proposals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		RAISE EXCEPTION 'a proposal is never deleted';
	END IF;
	IF OLD.status <> 'open' AND NOT (OLD.action = 'emission_create' AND OLD.status = 'approved' AND NEW.status = 'failed'
		AND NEW.decider_id IS NOT DISTINCT FROM OLD.decider_id AND NEW.decided_at IS NOT DISTINCT FROM OLD.decided_at
		AND NEW.emission_id = OLD.emission_id) THEN
		RAISE EXCEPTION 'a proposal is decided once';
	END IF;
	RETURN NEW;
END $$;
