-- Each player's totals, kept in their account by the sales that make them, as the stake window's
-- total is: the back office shows a player with 10^6 games without reading them (issue 24).
-- `ledger check` proves them equal to the games.
ALTER TABLE accounts ADD COLUMN games_played INTEGER NOT NULL DEFAULT 0 CHECK (games_played >= 0);
ALTER TABLE accounts ADD COLUMN games_won INTEGER NOT NULL DEFAULT 0 CHECK (games_won >= 0);
ALTER TABLE accounts ADD COLUMN prizes_won INTEGER NOT NULL DEFAULT 0 CHECK (prizes_won >= 0);

-- The games sold before this migration, in one pass over the games.
UPDATE accounts SET games_played = t.n, games_won = t.w, prizes_won = t.p
	FROM (SELECT p.account_id, count(*) AS n, sum(g.prize > 0) AS w, sum(g.prize) AS p FROM games g JOIN players p ON p.id = g.player_id
	      GROUP BY p.account_id) t
	WHERE t.account_id = accounts.id;
