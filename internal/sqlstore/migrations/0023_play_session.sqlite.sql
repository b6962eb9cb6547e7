-- The play session of the reality checks (issue 20, docs/spec/API.md 1.1): the time played and the net
-- result come from the server, so that every tab and every device of a player agree.
--
-- A player's sessions by owner: the play session begins at the earliest one still live, found
-- among the player's own few rows instead of every live session of every player.
CREATE INDEX sessions_by_owner ON sessions(kind, owner_id, created_at);
-- A player's games by time, with what the session's result sums: the games since the session
-- began are one range of this index, read without the table (a player may have 10^5 games).
-- One more index entry per sale is its cost.
CREATE INDEX games_by_player_time ON games(player_id, created_at, stake, prize);
-- The last reality check answered « Continuer »: its play session (the start, unix seconds) and
-- how far into it, in minutes. Another session's answer is no answer.
ALTER TABLE players ADD COLUMN reality_checked_session INTEGER;
ALTER TABLE players ADD COLUMN reality_checked_minutes INTEGER NOT NULL DEFAULT 0;
