-- The outbox's calls not yet acknowledged, for the sweep of held calls, the metrics and the back
-- office, without reading every call ever acknowledged; and a round's calls, for the release of a
-- credit when its game finishes and for the reconciliation.
CREATE INDEX wallet_calls_open ON wallet_calls(status, created_at) WHERE status <> 'acked';
CREATE INDEX wallet_calls_round ON wallet_calls(round_id);

-- The game ids handed out ahead of their sales (wallet mode names its round to the wallet before
-- the sale), reserved in blocks: a server started again never hands out one of them again, even
-- one whose sale was never made.
CREATE TABLE reserved_game_ids (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	through INTEGER NOT NULL -- every id up to this one may have been handed out
);
INSERT INTO reserved_game_ids VALUES (1, 0);
