-- The outbox's calls not yet acknowledged, for the sweep of held calls, the metrics and the back
-- office, without reading every call ever acknowledged; and a round's calls, for the release of a
-- credit when its game finishes and for the reconciliation.
CREATE INDEX wallet_calls_open ON wallet_calls (status, created_at) WHERE status <> 'acked';
CREATE INDEX wallet_calls_round ON wallet_calls (round_id);
