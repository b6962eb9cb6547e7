package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The back office's reads: sales over time, what the open blocks still hold, players and their
// transfers. They read committed data only and never wait for a batch of sales.

// SalesOver groups the games sold since a time by period and price, oldest period first. It
// reads the hourly totals the sales keep (sales_hourly), not the games.
func (d *DB) SalesOver(ctx context.Context, p lottery.Period, since time.Time) ([]lottery.Sales, error) {
	return d.SalesBetween(ctx, p, since, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
}

// SalesBetween groups the games sold in the hours from one time (its period included) until
// another (its hour excluded) by period and price, oldest period first.
func (d *DB) SalesBetween(ctx context.Context, p lottery.Period, from, until time.Time) ([]lottery.Sales, error) {
	unit := "hour"
	if p == lottery.Day {
		unit = "day"
	}
	rows, err := d.pool.Query(ctx, `SELECT date_trunc($1, hour AT TIME ZONE 'UTC') AS period, price, sum(units)::bigint, sum(stakes)::bigint,
		sum(prizes)::bigint, sum(winners)::bigint FROM sales_hourly WHERE hour >= $2 AND hour < $3 GROUP BY period, price ORDER BY period, price`,
		unit, p.Start(from), lottery.Hour.Start(until))
	return scanSales(rows, err, true)
}

// SalesTotals are the games ever sold, by price, lowest price first (from the hourly totals).
func (d *DB) SalesTotals(ctx context.Context) ([]lottery.Sales, error) {
	rows, err := d.pool.Query(ctx, `SELECT price, sum(units)::bigint, sum(stakes)::bigint, sum(prizes)::bigint, sum(winners)::bigint
		FROM sales_hourly GROUP BY price ORDER BY price`)
	return scanSales(rows, err, false)
}

func scanSales(rows pgx.Rows, err error, periods bool) ([]lottery.Sales, error) {
	if err != nil {
		return nil, asFault(err)
	}
	var out []lottery.Sales
	var s lottery.Sales
	dest := []any{&s.Price, &s.Units, &s.Stakes, &s.Prizes, &s.Winners}
	if periods {
		dest = append([]any{&s.Period}, dest...)
	}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		s.Period = s.Period.UTC()
		out = append(out, s)
		return nil
	})
	return out, asFault(err)
}

// OpenBlockSales lists the blocks that still have units to sell, with the prizes of their units
// already sold (the totals each batch of sales adds to its block).
func (d *DB) OpenBlockSales(ctx context.Context) ([]lottery.BlockSales, error) {
	rows, err := d.pool.Query(ctx, `SELECT b.emission_id, b.block, e.price, b.units, b.sold, b.prizes_sold, b.winners_sold
		FROM blocks b JOIN emissions e ON e.id = b.emission_id WHERE b.sold < b.units ORDER BY e.price, e.created_at, b.block`)
	if err != nil {
		return nil, asFault(err)
	}
	var out []lottery.BlockSales
	var b lottery.BlockSales
	var block, units, sold, winners int32
	_, err = pgx.ForEachRow(rows, []any{&b.Emission, &block, &b.Price, &units, &sold, &b.Prizes, &winners}, func() error {
		b.Block, b.Units, b.Sold, b.Winners = int(block), int(units), int(sold), int(winners)
		out = append(out, b)
		return nil
	})
	return out, asFault(err)
}

// FindPlayers lists up to limit players whose name starts with start (compared as names are:
// identity.UsernameKey), in name order.
func (d *DB) FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(identity.UsernameKey(start))
	rows, err := d.pool.Query(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.name_key LIKE $1 ESCAPE '\' ORDER BY p.username COLLATE "C" LIMIT $2`, esc+"%", limit)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Player
	for rows.Next() {
		p, err := scanPlayer(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, asFault(rows.Err())
}

// PlayerTotals sums a player's games (through the games' player index).
func (d *DB) PlayerTotals(ctx context.Context, playerID int64) (lottery.PlayerTotals, error) {
	var t lottery.PlayerTotals
	err := d.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE prize > 0), coalesce(sum(stake), 0)::bigint, coalesce(sum(prize), 0)::bigint
		FROM games WHERE player_id = $1`, playerID).Scan(&t.Games, &t.Winners, &t.Stakes, &t.Prizes)
	return t, asFault(err)
}

// playerTransfers finds a player's latest transfers before a transfer id without reading the
// ledger, as the SQLite store does (its playerTransfers says how): through the ids their latest
// games keep, and the partial indexes of deposits and withdrawals. $1 is the player, $2 their
// account, $3 how many, $4 the transfer id they come before.
const playerTransfers = `WITH g AS (SELECT stake_transfer, prize FROM games WHERE player_id = $1 AND stake_transfer < $4 ORDER BY id DESC LIMIT $3),
	ids AS (SELECT stake_transfer AS id FROM g
		UNION ALL SELECT stake_transfer + 1 FROM g WHERE prize > 0
		UNION ALL (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND from_account = $2 AND id < $4 ORDER BY id DESC LIMIT $3)
		UNION ALL (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND to_account = $2 AND id < $4 ORDER BY id DESC LIMIT $3))
	SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), coalesce(reason, ''), created_at FROM transfers
	WHERE id IN (SELECT id FROM ids) AND id < $4 AND (from_account = $2 OR to_account = $2) ORDER BY id DESC LIMIT $3`

// PlayerTransfers lists a player's transfers into or out of their account before a transfer id
// (0: from the latest), newest first: a page of them.
func (d *DB) PlayerTransfers(ctx context.Context, p lottery.Player, limit int, before int64) ([]lottery.Transfer, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.pool.Query(ctx, playerTransfers, p.ID, p.AccountID, limit, before)
	if err != nil {
		return nil, asFault(err)
	}
	var out []lottery.Transfer
	var t lottery.Transfer
	_, err = pgx.ForEachRow(rows, []any{&t.ID, &t.From, &t.To, &t.Amount, &t.Kind, &t.GameID, &t.Reason, &t.CreatedAt}, func() error {
		t.CreatedAt = t.CreatedAt.UTC()
		out = append(out, t)
		return nil
	})
	return out, asFault(err)
}
