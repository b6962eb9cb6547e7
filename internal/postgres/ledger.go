package postgres

import (
	"context"
	"fmt"

	"starcolor/internal/ledger"

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
	for _, ch := range append(ledger.Checks[:len(ledger.Checks):len(ledger.Checks)], []ledger.Check{
		{What: "hours of sales (sales_hourly) whose totals differ from their games", SQL: `WITH kept AS (SELECT hour, price, units, stakes, prizes, winners FROM sales_hourly),
			      games_by_hour AS (SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, stake AS price,
			        count(*)::bigint AS units, sum(stake)::bigint AS stakes, sum(prize)::bigint AS prizes, count(*) FILTER (WHERE prize > 0)::bigint AS winners
			        FROM games GROUP BY 1, 2)
			 SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM games_by_hour) x) +
			        (SELECT count(*) FROM (SELECT * FROM games_by_hour EXCEPT SELECT * FROM kept) y)`},
		// The hot tables have no foreign keys (migration 0001): every reference is checked here.
		{What: "rows referring to rows that do not exist (games, transfers, keys)", SQL: `SELECT (SELECT count(*) FROM games g WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = g.player_id)
			           OR NOT EXISTS (SELECT 1 FROM blocks b WHERE b.emission_id = g.emission_id AND b.block = g.block)) +
			        (SELECT count(*) FROM transfers t WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.from_account)
			           OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.to_account)
			           OR (t.game_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = t.game_id))) +
			        (SELECT count(*) FROM idempotency i WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.id = i.player_id))`},
		{What: "sessions of players or operators that do not exist", SQL: `SELECT count(*) FROM sessions s WHERE (s.kind = 'player' AND NOT EXISTS (SELECT 1 FROM players p WHERE p.id = s.owner_id))
			    OR (s.kind = 'operator' AND NOT EXISTS (SELECT 1 FROM operators o WHERE o.id = s.owner_id))`},
	}...) {
		var n int64
		if err := tx.QueryRow(ctx, ch.SQL).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", ch.What, err)
		}
		if n != 0 {
			problem("%s: %d", ch.What, n)
		}
	}
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(stake), 0)::bigint, coalesce(sum(prize), 0)::bigint FROM games`).Scan(&c.Games, &c.Stakes, &c.Prizes); err != nil {
		return err
	}
	return tx.QueryRow(ctx, `SELECT count(*) FROM transfers`).Scan(&c.Transfers)
}
