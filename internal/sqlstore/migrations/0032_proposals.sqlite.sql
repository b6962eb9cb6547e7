-- Four eyes (docs/spec/OPERATOR.md, issue 23): a change proposed by one operator, decided by
-- another. An open proposal past seven days has expired: its status is read so, not rewritten.
CREATE TABLE proposals (
	id          INTEGER PRIMARY KEY,
	action      TEXT NOT NULL CHECK (action IN ('emission_withdraw')),
	emission_id TEXT NOT NULL REFERENCES emissions(id),
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
	CHECK (decider_id IS NULL OR decider_id <> proposer_id)
);
CREATE INDEX proposals_by_status ON proposals (status, id);
CREATE TRIGGER proposals_decided_once BEFORE UPDATE ON proposals WHEN OLD.status <> 'open'
BEGIN SELECT RAISE(ABORT, 'a proposal is decided once'); END;
CREATE TRIGGER proposals_kept BEFORE DELETE ON proposals
BEGIN SELECT RAISE(ABORT, 'a proposal is never deleted'); END;
