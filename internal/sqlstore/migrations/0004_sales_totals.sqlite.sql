-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- What the back office shows of sales, kept up to date by each batch of sales (sales.go) instead
-- of summed over every game at each view of the page, which grows with the games sold (a scan of
-- the whole games table, and a million rows read for each open block). A batch adds one row's
-- worth of work: the block's update it makes anyway, and one hour's line. `ledger check` proves
-- both equal to the games.

-- The prizes of the units sold from a block, and how many of them won.
ALTER TABLE blocks ADD COLUMN prizes_sold INTEGER NOT NULL DEFAULT 0 CHECK (prizes_sold >= 0);
ALTER TABLE blocks ADD COLUMN winners_sold INTEGER NOT NULL DEFAULT 0 CHECK (winners_sold >= 0 AND winners_sold <= sold);

-- The games sold in each hour (UTC) at each price.
CREATE TABLE sales_hourly (
	hour    TEXT NOT NULL,    -- 2006-01-02T15, the first characters of the games' created_at
	price   INTEGER NOT NULL, -- cents: the games' stake
	units   INTEGER NOT NULL, -- games sold
	stakes  INTEGER NOT NULL, -- cents
	prizes  INTEGER NOT NULL, -- cents
	winners INTEGER NOT NULL, -- games with a prize
	PRIMARY KEY (hour, price)
) WITHOUT ROWID;

-- The games sold before this migration.
INSERT INTO sales_hourly (hour, price, units, stakes, prizes, winners)
	SELECT substr(created_at, 1, 13), stake, count(*), sum(stake), sum(prize), sum(prize > 0)
	FROM games GROUP BY 1, 2;
UPDATE blocks SET (prizes_sold, winners_sold) = (
	SELECT coalesce(sum(g.prize), 0), coalesce(sum(g.prize > 0), 0)
	FROM games g WHERE g.emission_id = blocks.emission_id AND g.block = blocks.block);
