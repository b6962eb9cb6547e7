-- Weekly limits and reality checks (issue 12, docs/spec/API.md 1.1; décret 2010-518 art. 16).
--
-- A player's limits, on their account, where a sale reads its balance: the amount in force
-- (NULL: never set) and a raise waiting for its 48 hours, with when it takes effect. The interval
-- of reality checks, a preference, is the player's (minutes; NULL: none).
ALTER TABLE accounts ADD COLUMN deposit_limit bigint, ADD COLUMN deposit_raise bigint, ADD COLUMN deposit_raise_at timestamptz,
	ADD COLUMN stake_limit bigint, ADD COLUMN stake_raise bigint, ADD COLUMN stake_raise_at timestamptz;
ALTER TABLE players ADD COLUMN reality_check integer;

-- Every change of a limit, kept: who asked, when, the amount that held, the amount asked, and
-- when it takes effect.
CREATE TABLE limit_changes (
	id           bigserial PRIMARY KEY,
	player_id    bigint NOT NULL REFERENCES players(id),
	kind         text NOT NULL CHECK (kind IN ('deposit_weekly', 'stake_weekly')),
	old          bigint,
	new          bigint NOT NULL,
	requested_at timestamptz NOT NULL,
	effective_at timestamptz NOT NULL,
	by           text NOT NULL
);
CREATE INDEX limit_changes_by_player ON limit_changes (player_id, id);

-- The stakes of a player's week, kept as they play (lottery.Window): all their stakes, those of
-- their games up to staked_through_id (which have left the week), the time of the first stake
-- after it and of the latest (a player's games are in the order of time by id).
ALTER TABLE accounts ADD COLUMN staked_total bigint NOT NULL DEFAULT 0, ADD COLUMN staked_expired bigint NOT NULL DEFAULT 0,
	ADD COLUMN staked_through_id bigint NOT NULL DEFAULT 0, ADD COLUMN staked_next timestamptz, ADD COLUMN staked_last timestamptz;
UPDATE accounts a SET staked_total = g.total, staked_next = g.first, staked_last = g.last
	FROM (SELECT p.account_id, sum(g.stake) AS total, (array_agg(g.created_at ORDER BY g.id))[1] AS first, max(g.created_at) AS last
		FROM games g JOIN players p ON p.id = g.player_id GROUP BY 1) g
	WHERE g.account_id = a.id;
