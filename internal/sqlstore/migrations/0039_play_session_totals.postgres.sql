-- A play session's sums (the reality checks, docs/spec/API.md 1.1) are the player's totals, kept
-- in their account (migration 0037), less those their earliest live session found when it opened.
-- The games' index by player and time, which summed the games since, goes: an index entry a sale
-- and its bytes on disk (issue 24).
ALTER TABLE sessions ADD COLUMN games_at_open bigint NOT NULL DEFAULT 0,
	ADD COLUMN staked_at_open bigint NOT NULL DEFAULT 0,
	ADD COLUMN won_at_open bigint NOT NULL DEFAULT 0;

-- The sessions opened before this migration: the games sold before each opened, read through the
-- index before it goes.
UPDATE sessions s SET (games_at_open, staked_at_open, won_at_open) = (
	SELECT count(*), coalesce(sum(g.stake), 0), coalesce(sum(g.prize), 0) FROM games g
	WHERE g.player_id = s.owner_id AND g.created_at < to_timestamp(s.created_at))
	WHERE s.kind = 'player';
DROP INDEX games_by_player_time;
