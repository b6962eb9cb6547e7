-- An emission's whole life (docs/spec/OPERATOR.md, issue 23): proposed, generating, scheduled.
--
-- on_sale_at is when an emission opens (NULL for those made before: at their creation). A
-- scheduled one's blocks are made not selling, with a 'scheduled' row in its history, in the
-- write that makes it; the server that opens it at on_sale_at writes its 'on_sale' row and
-- sets its blocks selling.
ALTER TABLE emissions ADD COLUMN on_sale_at TEXT;

-- The history, as in 0031, with 'scheduled' among its statuses: SQLite changes a CHECK by
-- rebuilding its table.
CREATE TABLE emission_history_new (
	id          INTEGER PRIMARY KEY,
	emission_id TEXT NOT NULL REFERENCES emissions(id),
	status      TEXT NOT NULL CHECK (status IN ('scheduled', 'on_sale', 'suspended', 'withdrawn')),
	reason      TEXT NOT NULL DEFAULT '',
	by_name     TEXT NOT NULL, -- the operator's name, "command line", or "schedule"
	created_at  TEXT NOT NULL
);
INSERT INTO emission_history_new SELECT id, emission_id, status, reason, by_name, created_at FROM emission_history;
DROP TABLE emission_history;
ALTER TABLE emission_history_new RENAME TO emission_history;
CREATE INDEX emission_history_by_emission ON emission_history (emission_id, id);
CREATE TRIGGER emission_history_append_only BEFORE UPDATE ON emission_history
BEGIN SELECT RAISE(ABORT, 'an emission''s history is never changed'); END;
CREATE TRIGGER emission_history_kept BEFORE DELETE ON emission_history
BEGIN SELECT RAISE(ABORT, 'an emission''s history is never deleted'); END;

-- Proposals of every kind. A creation names the emission it is to make (not there yet: no
-- foreign key), with its price, blocks and on_sale_at; a change of roles names its operator
-- and the roles to be theirs. An approved creation is failed later if its units cannot be made:
-- the one change a decided proposal takes.
CREATE TABLE proposals_new (
	id          INTEGER PRIMARY KEY,
	action      TEXT NOT NULL CHECK (action IN ('emission_create', 'emission_withdraw', 'operator_roles')),
	emission_id TEXT NOT NULL DEFAULT '',
	price       INTEGER,
	blocks      INTEGER,
	on_sale_at  TEXT,
	operator_id INTEGER REFERENCES operators(id),
	roles       TEXT,
	reason      TEXT NOT NULL,
	proposer_id INTEGER NOT NULL REFERENCES operators(id),
	proposed_by TEXT NOT NULL,
	proposed_at TEXT NOT NULL,
	status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected', 'failed')),
	decider_id  INTEGER REFERENCES operators(id),
	decided_by  TEXT,
	decided_at  TEXT,
	note        TEXT NOT NULL DEFAULT '',
	CHECK ((status = 'open') = (decided_at IS NULL)),
	CHECK (decider_id IS NULL OR decider_id <> proposer_id),
	CHECK (action = 'operator_roles' OR emission_id <> ''),
	CHECK ((action = 'emission_create') = (price IS NOT NULL AND blocks IS NOT NULL)),
	CHECK ((action = 'operator_roles') = (operator_id IS NOT NULL AND roles IS NOT NULL))
);
INSERT INTO proposals_new (id, action, emission_id, reason, proposer_id, proposed_by, proposed_at, status, decider_id, decided_by, decided_at, note)
	SELECT id, action, emission_id, reason, proposer_id, proposed_by, proposed_at, status, decider_id, decided_by, decided_at, note FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_new RENAME TO proposals;
CREATE INDEX proposals_by_status ON proposals (status, id);
CREATE INDEX proposals_by_emission ON proposals (emission_id, id);
CREATE TRIGGER proposals_decided_once BEFORE UPDATE ON proposals
WHEN OLD.status <> 'open' AND NOT (OLD.action = 'emission_create' AND OLD.status = 'approved' AND NEW.status = 'failed'
	AND NEW.decider_id IS OLD.decider_id AND NEW.decided_at IS OLD.decided_at AND NEW.emission_id = OLD.emission_id)
BEGIN SELECT RAISE(ABORT, 'a proposal is decided once'); END;
CREATE TRIGGER proposals_kept BEFORE DELETE ON proposals
BEGIN SELECT RAISE(ABORT, 'a proposal is never deleted'); END;
