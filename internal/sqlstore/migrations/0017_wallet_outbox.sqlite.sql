-- The wallet's outbox (issue 13, docs/spec/WALLET.md): the credits and rollbacks owed to the operator's
-- wallet, kept until acknowledged; a call's body never changes once kept.
CREATE TABLE wallet_calls (
	id             INTEGER PRIMARY KEY,
	call           TEXT NOT NULL CHECK (call IN ('credit', 'rollback')),
	transaction_id TEXT NOT NULL UNIQUE,
	player         TEXT NOT NULL,
	round_id       TEXT NOT NULL,
	amount         INTEGER NOT NULL CHECK (amount >= 0),
	body           BLOB NOT NULL,
	status         TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('held', 'pending', 'acked', 'disputed')),
	attempts       INTEGER NOT NULL DEFAULT 0,
	next_at        INTEGER NOT NULL, -- unix milliseconds: due from then (while pending)
	last_error     TEXT NOT NULL DEFAULT '',
	created_at     INTEGER NOT NULL, -- unix milliseconds
	acked_at       INTEGER
);
CREATE INDEX wallet_calls_due ON wallet_calls(next_at) WHERE status = 'pending';
