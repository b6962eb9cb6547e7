-- Weekly limits and reality checks (issue 12, docs/spec/API.md 1.1; décret 2010-518 art. 16).
--
-- A player's limits, on their account, where a sale reads its balance: the amount in force
-- (NULL: never set) and a raise waiting for its 48 hours, with when it takes effect. The interval
-- of reality checks, a preference, is the player's (minutes; NULL: none).
ALTER TABLE accounts ADD COLUMN deposit_limit INTEGER;
ALTER TABLE accounts ADD COLUMN deposit_raise INTEGER;
ALTER TABLE accounts ADD COLUMN deposit_raise_at TEXT;
ALTER TABLE accounts ADD COLUMN stake_limit INTEGER;
ALTER TABLE accounts ADD COLUMN stake_raise INTEGER;
ALTER TABLE accounts ADD COLUMN stake_raise_at TEXT;
ALTER TABLE players ADD COLUMN reality_check INTEGER;

-- Every change of a limit, kept: who asked, when, the amount that held, the amount asked, and
-- when it takes effect.
CREATE TABLE limit_changes (
	id           INTEGER PRIMARY KEY,
	player_id    INTEGER NOT NULL REFERENCES players(id),
	kind         TEXT NOT NULL CHECK (kind IN ('deposit_weekly', 'stake_weekly')),
	old          INTEGER,
	new          INTEGER NOT NULL,
	requested_at TEXT NOT NULL,
	effective_at TEXT NOT NULL,
	by           TEXT NOT NULL
);
CREATE INDEX limit_changes_by_player ON limit_changes(player_id, id);

-- Times of games and transfers at a fixed width (nine digits of fraction), so that they sort as
-- text in the order of time: RFC 3339 with its fraction trimmed does not ("…:05Z" sorts after
-- "…:05.5Z").
UPDATE games SET created_at = CASE WHEN substr(created_at, 20, 1) = '.'
	THEN substr(created_at, 1, 20) || substr(substr(created_at, 21, length(created_at) - 21) || '000000000', 1, 9) || 'Z'
	ELSE substr(created_at, 1, 19) || '.000000000Z' END;
UPDATE transfers SET created_at = CASE WHEN substr(created_at, 20, 1) = '.'
	THEN substr(created_at, 1, 20) || substr(substr(created_at, 21, length(created_at) - 21) || '000000000', 1, 9) || 'Z'
	ELSE substr(created_at, 1, 19) || '.000000000Z' END;

-- The stakes of a player's week, kept as they play (lottery.Window): all their stakes, those of
-- their games up to staked_through_id (which have left the week), the time of the first stake
-- after it and of the latest (a player's games are in the order of time by id).
ALTER TABLE accounts ADD COLUMN staked_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN staked_expired INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN staked_through_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN staked_next TEXT;
ALTER TABLE accounts ADD COLUMN staked_last TEXT;
UPDATE accounts SET
	staked_total = (SELECT coalesce(sum(g.stake), 0) FROM games g JOIN players p ON p.id = g.player_id WHERE p.account_id = accounts.id),
	staked_next = (SELECT g.created_at FROM games g JOIN players p ON p.id = g.player_id WHERE p.account_id = accounts.id ORDER BY g.id LIMIT 1),
	staked_last = (SELECT max(g.created_at) FROM games g JOIN players p ON p.id = g.player_id WHERE p.account_id = accounts.id)
WHERE kind = 'player';
