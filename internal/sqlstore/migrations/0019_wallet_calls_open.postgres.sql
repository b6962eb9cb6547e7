-- The outbox's calls not yet acknowledged, for the sender (the calls due, by time), the sweep of
-- held calls (a held call's next_at is when it was kept), the metrics and the back office, without
-- reading every call ever acknowledged; it takes the place of the index of the calls due alone.
-- And the held calls by round, for the release of a game's credit when it finishes. Each index
-- costs every sale a little: the outbox keeps none it does not use.
DROP INDEX wallet_calls_due;
CREATE INDEX wallet_calls_open ON wallet_calls (status, next_at) WHERE status <> 'acked';
CREATE INDEX wallet_calls_held_round ON wallet_calls (round_id) WHERE status = 'held';
