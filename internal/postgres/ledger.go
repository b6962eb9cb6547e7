package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
)

// CheckLedger proves that the books balance: the accounts sum to zero, every balance equals its
// transfers, every game has exactly its stake and (when it won) its prize transfer, every
// block's sold count equals its games, which are its first units, each sold once, what the sales
// keep for the back office (the totals by block and by hour, each game's transfer ids) agrees
// with the games and transfers, and every row of the tables without foreign keys (games,
// transfers, keys, sessions) refers to rows that exist. It reads one snapshot of the database
// (a repeatable-read transaction), so that sales going on meanwhile do not disturb it.
func (d *DB) CheckLedger(ctx context.Context) (*lottery.LedgerCheck, error) {
	c := &lottery.LedgerCheck{}
	err := pgx.BeginTxFunc(ctx, d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return checkLedger(ctx, tx, c)
	})
	return c, asFault(err)
}

func checkLedger(ctx context.Context, tx pgx.Tx, c *lottery.LedgerCheck) error {
	problem := func(format string, args ...any) { c.Problems = append(c.Problems, fmt.Sprintf(format, args...)) }
	var total int64
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(balance), 0)::bigint, coalesce(sum(balance) FILTER (WHERE kind = 'player'), 0)::bigint,
		coalesce(sum(balance) FILTER (WHERE id = 1), 0)::bigint, coalesce(sum(balance) FILTER (WHERE id = 2), 0)::bigint FROM accounts`).
		Scan(&c.Accounts, &total, &c.Players, &c.Bank, &c.PrizeFund); err != nil {
		return err
	}
	if total != 0 {
		problem("the accounts sum to %d cents, not 0: money was created or lost", total)
	}
	rows, err := tx.Query(ctx, `WITH moved AS (
			SELECT to_account AS account, amount FROM transfers
			UNION ALL SELECT from_account, -amount FROM transfers)
		SELECT a.id, a.kind, a.balance, coalesce(m.total, 0)::bigint
		FROM accounts a LEFT JOIN (SELECT account, sum(amount) AS total FROM moved GROUP BY account) m ON m.account = a.id
		WHERE a.balance <> coalesce(m.total, 0) OR (a.kind = 'player' AND a.balance < 0)`)
	if err != nil {
		return err
	}
	var id, balance, moved int64
	var kind string
	if _, err := pgx.ForEachRow(rows, []any{&id, &kind, &balance, &moved}, func() error {
		if balance != moved {
			problem("account %d (%s) holds %d cents but its transfers add up to %d", id, kind, balance, moved)
		}
		if kind == "player" && balance < 0 {
			problem("player account %d is below zero: %d", id, balance)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, ch := range []struct{ what, sql string }{
		{"games without exactly one stake transfer of their stake from their player to the prize fund",
			`SELECT count(*) FROM games g JOIN players p ON p.id = g.player_id LEFT JOIN (
			   SELECT game_id, count(*) AS n, min(amount) AS amount, min(from_account) AS src, min(to_account) AS dst
			   FROM transfers WHERE kind = 'stake' GROUP BY game_id) t ON t.game_id = g.id
			 WHERE t.n IS NULL OR t.n <> 1 OR t.amount <> g.stake OR t.src <> p.account_id OR t.dst <> 2`},
		{"games without exactly their prize transfer from the prize fund to their player",
			`SELECT count(*) FROM games g JOIN players p ON p.id = g.player_id LEFT JOIN (
			   SELECT game_id, count(*) AS n, min(amount) AS amount, min(from_account) AS src, min(to_account) AS dst
			   FROM transfers WHERE kind = 'prize' GROUP BY game_id) t ON t.game_id = g.id
			 WHERE (g.prize = 0 AND t.n IS NOT NULL)
			    OR (g.prize > 0 AND (t.n IS NULL OR t.n <> 1 OR t.amount <> g.prize OR t.src <> 2 OR t.dst <> p.account_id))`},
		{"stake or prize transfers of no game, or more than their games",
			`SELECT (SELECT count(*) FROM transfers WHERE kind IN ('stake', 'prize')) -
			        (SELECT count(*) FROM games) - (SELECT count(*) FROM games WHERE prize > 0)`},
		{"deposits or withdrawals not between the bank and a player",
			`SELECT count(*) FROM transfers t WHERE t.kind IN ('deposit', 'withdrawal') AND NOT (
			  (t.kind = 'deposit' AND t.from_account = 1 AND t.to_account IN (SELECT account_id FROM players)) OR
			  (t.kind = 'withdrawal' AND t.to_account = 1 AND t.from_account IN (SELECT account_id FROM players)))`},
		{"blocks whose sold count differs from their games, or whose games are not their first units",
			`SELECT count(*) FROM blocks b LEFT JOIN (
			   SELECT emission_id, block, count(*) AS n, max(unit) + 1 AS top FROM games GROUP BY emission_id, block) g
			   ON g.emission_id = b.emission_id AND g.block = b.block
			 WHERE b.sold <> coalesce(g.n, 0) OR b.sold <> coalesce(g.top, 0)`},
		{"games whose stake_transfer is not their stake transfer, or whose prize transfer does not follow it",
			`SELECT count(*) FROM games g LEFT JOIN transfers s ON s.id = g.stake_transfer
			   LEFT JOIN transfers p ON p.id = g.stake_transfer + 1 AND g.prize > 0
			 WHERE s.id IS NULL OR s.kind <> 'stake' OR s.game_id <> g.id
			    OR (g.prize > 0 AND (p.id IS NULL OR p.kind <> 'prize' OR p.game_id <> g.id))`},
		{"blocks whose totals of prizes and winners sold differ from their games",
			`SELECT count(*) FROM blocks b LEFT JOIN (
			   SELECT emission_id, block, sum(prize) AS prizes, count(*) FILTER (WHERE prize > 0) AS winners FROM games GROUP BY emission_id, block) g
			   ON g.emission_id = b.emission_id AND g.block = b.block
			 WHERE b.prizes_sold <> coalesce(g.prizes, 0) OR b.winners_sold <> coalesce(g.winners, 0)`},
		{"hours of sales (sales_hourly) whose totals differ from their games",
			`WITH kept AS (SELECT hour, price, units, stakes, prizes, winners FROM sales_hourly),
			      games_by_hour AS (SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, stake AS price,
			        count(*)::bigint AS units, sum(stake)::bigint AS stakes, sum(prize)::bigint AS prizes, count(*) FILTER (WHERE prize > 0)::bigint AS winners
			        FROM games GROUP BY 1, 2)
			 SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM games_by_hour) x) +
			        (SELECT count(*) FROM (SELECT * FROM games_by_hour EXCEPT SELECT * FROM kept) y)`},
		// The hot tables have no foreign keys (migration 0001): every reference is checked here.
		{"rows referring to rows that do not exist (games, transfers, keys)",
			`SELECT (SELECT count(*) FROM games g WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = g.player_id)
			           OR NOT EXISTS (SELECT 1 FROM blocks b WHERE b.emission_id = g.emission_id AND b.block = g.block)) +
			        (SELECT count(*) FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.from_account)
			           OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.to_account)
			           OR (t.game_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = t.game_id))) +
			        (SELECT count(*) FROM idempotency i WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = i.player_id))`},
		{"sessions of players or operators that do not exist",
			`SELECT count(*) FROM sessions s WHERE (s.kind = 'player' AND NOT EXISTS (SELECT 1 FROM players p WHERE p.id = s.owner_id))
			    OR (s.kind = 'operator' AND NOT EXISTS (SELECT 1 FROM operators o WHERE o.id = s.owner_id))`},
	} {
		var n int64
		if err := tx.QueryRow(ctx, ch.sql).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", ch.what, err)
		}
		if n != 0 {
			problem("%s: %d", ch.what, n)
		}
	}
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(stake), 0)::bigint, coalesce(sum(prize), 0)::bigint FROM games`).Scan(&c.Games, &c.Stakes, &c.Prizes); err != nil {
		return err
	}
	return tx.QueryRow(ctx, `SELECT count(*) FROM transfers`).Scan(&c.Transfers)
}
