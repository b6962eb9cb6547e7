-- The largest prize sold in each hour at each price, kept with the hour's totals: the back
-- office's first page says a big win of the day from them, without reading the day's games
-- (which have no index by prize). `ledger check` proves it equal to the games, as the totals.
ALTER TABLE sales_hourly ADD COLUMN top_prize bigint NOT NULL DEFAULT 0 CHECK (top_prize >= 0);

-- The hours sold before this migration, in one pass over the games.
UPDATE sales_hourly SET top_prize = m.top
	FROM (SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, stake, max(prize) AS top
	      FROM games GROUP BY 1, 2) m
	WHERE m.hour = sales_hourly.hour AND m.stake = sales_hourly.price;
