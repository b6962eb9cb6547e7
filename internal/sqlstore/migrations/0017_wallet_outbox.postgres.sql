-- The wallet's outbox (issue 13, docs/spec/WALLET.md): the credits and rollbacks owed to the operator's
-- wallet, kept until acknowledged; a call's body never changes once kept.
CREATE TABLE wallet_calls (
	id             bigserial PRIMARY KEY,
	call           text NOT NULL CHECK (call IN ('credit', 'rollback')),
	transaction_id text NOT NULL UNIQUE,
	player         text NOT NULL,
	round_id       text NOT NULL,
	amount         bigint NOT NULL CHECK (amount >= 0),
	body           bytea NOT NULL,
	status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('held', 'pending', 'acked', 'disputed')),
	attempts       integer NOT NULL DEFAULT 0,
	next_at        timestamptz NOT NULL,
	last_error     text NOT NULL DEFAULT '',
	created_at     timestamptz NOT NULL,
	acked_at       timestamptz
);
CREATE INDEX wallet_calls_due ON wallet_calls (next_at) WHERE status = 'pending';
