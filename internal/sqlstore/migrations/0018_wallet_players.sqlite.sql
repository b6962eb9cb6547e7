-- Seamless wallet mode (issue 13, docs/spec/WALLET.md): the players the operator launches, known by the
-- operator's id, with the operator's session of their latest launch; the launch tokens, each good
-- once for 60 seconds (kept here, so a restart does not void them).
CREATE TABLE wallet_players (
	player_id        INTEGER PRIMARY KEY REFERENCES players(id),
	wallet_player    TEXT NOT NULL UNIQUE,
	operator_session TEXT NOT NULL
);
CREATE TABLE launch_tokens (
	token_hash BLOB PRIMARY KEY,
	player_id  INTEGER NOT NULL REFERENCES players(id),
	expires_at INTEGER NOT NULL, -- unix milliseconds
	used       INTEGER NOT NULL DEFAULT 0
);
