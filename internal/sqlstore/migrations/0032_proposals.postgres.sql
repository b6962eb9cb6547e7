-- Four eyes (docs/spec/OPERATOR.md, issue 23): see the SQLite step.
CREATE TABLE proposals (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	action      text NOT NULL CHECK (action IN ('emission_withdraw')),
	emission_id text NOT NULL REFERENCES emissions(id),
	reason      text NOT NULL,
	proposer_id bigint NOT NULL REFERENCES operators(id),
	proposed_by text NOT NULL,
	proposed_at timestamptz NOT NULL,
	status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected', 'failed')),
	decider_id  bigint REFERENCES operators(id),
	decided_by  text,
	decided_at  timestamptz,
	note        text NOT NULL DEFAULT '',
	CHECK ((status = 'open') = (decided_at IS NULL)),
	CHECK (decider_id IS NULL OR decider_id <> proposer_id)
);
CREATE INDEX proposals_by_status ON proposals (status, id);

CREATE FUNCTION proposals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		RAISE EXCEPTION 'a proposal is never deleted';
	END IF;
	IF OLD.status <> 'open' THEN
		RAISE EXCEPTION 'a proposal is decided once';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER proposals_guard BEFORE UPDATE OR DELETE ON proposals
	FOR EACH ROW EXECUTE FUNCTION proposals_guard();
