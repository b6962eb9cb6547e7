package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"starcolor/internal/lottery"
)

// The back office's reads: sales over time, what the open blocks still hold, players and their
// transfers. They read committed data only and never wait for the writer.

// prefix is how many characters of a stored RFC 3339 UTC time name the period.
func prefix(p lottery.Period) int {
	if p == lottery.Day {
		return len("2006-01-02")
	}
	return len("2006-01-02T15")
}

// SalesOver groups the games sold since a time by period and price, oldest period first. It
// reads the hourly totals the sales keep (sales_hourly), not the games.
func (d *DB) SalesOver(ctx context.Context, p lottery.Period, since time.Time) ([]lottery.Sales, error) {
	return d.SalesBetween(ctx, p, since, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
}

// SalesBetween groups the games sold in the hours from one time (its hour included) until
// another (its hour excluded) by period and price, oldest period first.
func (d *DB) SalesBetween(ctx context.Context, p lottery.Period, from, until time.Time) ([]lottery.Sales, error) {
	n := prefix(p)
	rows, err := d.db.QueryContext(ctx, fmt.Sprintf(`SELECT substr(hour, 1, %d) AS period, price, sum(units),
		sum(stakes), sum(prizes), sum(winners) FROM sales_hourly WHERE hour >= ? AND hour < ?
		GROUP BY period, price ORDER BY period, price`, n),
		from.UTC().Format(hourLayout)[:n], until.UTC().Format(hourLayout))
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	layout := "2006-01-02T15:04:05"[:n]
	var out []lottery.Sales
	for rows.Next() {
		var s lottery.Sales
		var period string
		if err := rows.Scan(&period, &s.Price, &s.Units, &s.Stakes, &s.Prizes, &s.Winners); err != nil {
			return nil, asFault(err)
		}
		if s.Period, err = time.Parse(layout, period); err != nil {
			return nil, fmt.Errorf("a stored hour of sales %q: %w", period, err)
		}
		out = append(out, s)
	}
	return out, asFault(rows.Err())
}

// SalesTotals are the games ever sold, by price, lowest price first (from the hourly totals).
func (d *DB) SalesTotals(ctx context.Context) ([]lottery.Sales, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT price, sum(units), sum(stakes), sum(prizes), sum(winners)
		FROM sales_hourly GROUP BY price ORDER BY price`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Sales
	for rows.Next() {
		var s lottery.Sales
		if err := rows.Scan(&s.Price, &s.Units, &s.Stakes, &s.Prizes, &s.Winners); err != nil {
			return nil, asFault(err)
		}
		out = append(out, s)
	}
	return out, asFault(rows.Err())
}

// OpenBlockSales lists the blocks that still have units to sell, with the prizes of their units
// already sold (the totals each sale adds to its block).
func (d *DB) OpenBlockSales(ctx context.Context) ([]lottery.BlockSales, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT b.emission_id, b.block, e.price, b.units, b.sold, b.prizes_sold, b.winners_sold
		FROM blocks b JOIN emissions e ON e.id = b.emission_id WHERE b.sold < b.units ORDER BY e.price, e.created_at, b.block`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.BlockSales
	for rows.Next() {
		var b lottery.BlockSales
		if err := rows.Scan(&b.Emission, &b.Block, &b.Price, &b.Units, &b.Sold, &b.Prizes, &b.Winners); err != nil {
			return nil, asFault(err)
		}
		out = append(out, b)
	}
	return out, asFault(rows.Err())
}

// FindPlayers lists up to limit players whose name starts with prefix (case does not matter),
// in name order.
func (d *DB) FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(start)
	rows, err := d.db.QueryContext(ctx, `SELECT `+playerColumns+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.username LIKE ? ESCAPE '\' ORDER BY p.username LIMIT ?`, esc+"%", limit)
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
	err := d.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(prize > 0), 0), coalesce(sum(stake), 0), coalesce(sum(prize), 0)
		FROM games WHERE player_id = ?`, playerID).Scan(&t.Games, &t.Winners, &t.Stakes, &t.Prizes)
	return t, asFault(err)
}

// playerTransfers finds a player's latest transfers before a transfer id without reading the
// ledger (migration 0005): the stakes and prizes of their latest games, by the ids the games keep
// (a game's stake transfer comes after those of the player's older games), and their latest
// deposits and withdrawals, through the partial indexes; of those, the latest. ?1 is the player,
// ?2 their account, ?3 how many, ?4 the transfer id they come before.
const playerTransfers = `WITH g AS (SELECT stake_transfer, prize FROM games WHERE player_id = ?1 AND stake_transfer < ?4 ORDER BY id DESC LIMIT ?3),
	ids AS (SELECT stake_transfer AS id FROM g
		UNION ALL SELECT stake_transfer + 1 FROM g WHERE prize > 0
		UNION ALL SELECT * FROM (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND from_account = ?2 AND id < ?4 ORDER BY id DESC LIMIT ?3)
		UNION ALL SELECT * FROM (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND to_account = ?2 AND id < ?4 ORDER BY id DESC LIMIT ?3))
	SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), coalesce(reason, ''), created_at FROM transfers
	WHERE id IN (SELECT id FROM ids) AND id < ?4 AND (from_account = ?2 OR to_account = ?2) ORDER BY id DESC LIMIT ?3`

// PlayerTransfers lists a player's transfers into or out of their account before a transfer id
// (0: from the latest), newest first: a page of them. It reads about three times limit rows,
// however long the ledger.
func (d *DB) PlayerTransfers(ctx context.Context, p lottery.Player, limit int, before int64) ([]lottery.Transfer, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.db.QueryContext(ctx, playerTransfers, p.ID, p.AccountID, limit, before)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Transfer
	for rows.Next() {
		var t lottery.Transfer
		var created string
		if err := rows.Scan(&t.ID, &t.From, &t.To, &t.Amount, &t.Kind, &t.GameID, &t.Reason, &created); err != nil {
			return nil, asFault(err)
		}
		t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, t)
	}
	return out, asFault(rows.Err())
}
