-- A play session's sums (the reality checks, docs/spec/API.md 1.1) are the player's totals, kept
-- in their account (migration 0037), less those their earliest live session found when it opened.
-- The games' index by player and time, which summed the games since, goes: 51 bytes a game on
-- disk, and an index entry a sale (issue 24).
ALTER TABLE sessions ADD COLUMN games_at_open INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN staked_at_open INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN won_at_open INTEGER NOT NULL DEFAULT 0;

-- The sessions opened before this migration: the games sold before each opened, read through the
-- index before it goes.
UPDATE sessions SET (games_at_open, staked_at_open, won_at_open) = (
	SELECT count(*), coalesce(sum(g.stake), 0), coalesce(sum(g.prize), 0) FROM games g
	WHERE g.player_id = sessions.owner_id AND g.created_at < strftime('%Y-%m-%dT%H:%M:%S.000000000Z', sessions.created_at, 'unixepoch'))
	WHERE kind = 'player';
DROP INDEX games_by_player_time;
