-- docs/spec/WALLET.md 1.1 (issue 19): each launch keeps its nonce, used once forever (the unique index is
-- what refuses a second launch with it, on any server, after any restart; the launches of 1.0
-- have none, and NULLs never collide), and its own operator's session, which the session it
-- opens sends to the wallet: a later launch of the player no longer changes what an earlier
-- session sends (wallet_players.operator_session stays only for the sessions opened before
-- this migration). session_hash is that session, noted when the token is spent.
ALTER TABLE launch_tokens ADD COLUMN nonce TEXT;
ALTER TABLE launch_tokens ADD COLUMN operator_session TEXT;
ALTER TABLE launch_tokens ADD COLUMN session_hash BLOB;
CREATE UNIQUE INDEX launch_tokens_nonce ON launch_tokens (nonce);
CREATE UNIQUE INDEX launch_tokens_session ON launch_tokens (session_hash);
