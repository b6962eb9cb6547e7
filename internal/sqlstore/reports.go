package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The back office's reads: sales over time, what the open blocks still hold, players and their
// transfers. They read committed data only and never wait for a write.

// SalesOver groups the games sold since a time by period and price, oldest period first. It
// reads the hourly totals the sales keep (sales_hourly), not the games.
func (s *DB) SalesOver(ctx context.Context, p lottery.Period, since time.Time) ([]lottery.Sales, error) {
	return s.SalesBetween(ctx, p, since, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
}

// hourLayout is how SQLite keeps the hours of sales_hourly: the hour of the games' created_at,
// as RFC 3339 text cut after the hour (SQLite's sales.go writes them).
const hourLayout = "2006-01-02T15"

type layoutDest struct {
	t      *time.Time
	layout string
}

func (d layoutDest) Scan(src any) (err error) {
	v, ok := src.(string)
	if !ok {
		return fmt.Errorf("a period of sales stored as %T", src)
	}
	if *d.t, err = time.Parse(d.layout, v); err != nil {
		return fmt.Errorf("a stored period of sales %q: %w", v, err)
	}
	return nil
}

// SalesBetween groups the games sold in the hours from one time (its period included) until
// another (its hour excluded) by period and price, oldest period first.
func (s *DB) SalesBetween(ctx context.Context, p lottery.Period, from, until time.Time) ([]lottery.Sales, error) {
	var out []lottery.Sales
	err := each(s.read.Query(ctx, `SELECT `+s.d.period(p)+` AS period, price, CAST(sum(units) AS BIGINT), CAST(sum(stakes) AS BIGINT),
		CAST(sum(prizes) AS BIGINT), CAST(sum(winners) AS BIGINT), CAST(max(top_prize) AS BIGINT) FROM sales_hourly WHERE hour >= $1 AND hour < $2
		GROUP BY period, price ORDER BY period, price`, s.d.hour(p.Start(from)), s.d.hour(lottery.Hour.Start(until))))(func(r Rows) error {
		var sl lottery.Sales
		err := r.Scan(s.d.periodDest(&sl.Period, p), &sl.Price, &sl.Units, &sl.Stakes, &sl.Prizes, &sl.Winners, &sl.Top)
		out = append(out, sl)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// SalesTotals are the games ever sold, by price, lowest price first (from the hourly totals).
func (s *DB) SalesTotals(ctx context.Context) ([]lottery.Sales, error) {
	var out []lottery.Sales
	err := each(s.read.Query(ctx, `SELECT price, CAST(sum(units) AS BIGINT), CAST(sum(stakes) AS BIGINT), CAST(sum(prizes) AS BIGINT),
		CAST(sum(winners) AS BIGINT), CAST(max(top_prize) AS BIGINT) FROM sales_hourly GROUP BY price ORDER BY price`))(func(r Rows) error {
		var sl lottery.Sales
		err := r.Scan(&sl.Price, &sl.Units, &sl.Stakes, &sl.Prizes, &sl.Winners, &sl.Top)
		out = append(out, sl)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// OpenBlockSales lists the blocks that still have units to sell, with the prizes of their units
// already sold (the totals each sale adds to its block).
func (s *DB) OpenBlockSales(ctx context.Context) ([]lottery.BlockSales, error) {
	var out []lottery.BlockSales
	err := each(s.read.Query(ctx, `SELECT b.emission_id, b.block, e.price, b.units, b.sold, b.prizes_sold, b.winners_sold
		FROM blocks b JOIN emissions e ON e.id = b.emission_id WHERE b.sold < b.units ORDER BY e.price, e.created_at, b.block`))(func(r Rows) error {
		var b lottery.BlockSales
		err := r.Scan(&b.Emission, &b.Block, &b.Price, &b.Units, &b.Sold, &b.Prizes, &b.Winners)
		out = append(out, b)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// PlayerTotals sums a player's games (through the games' player index).
func (s *DB) PlayerTotals(ctx context.Context, playerID int64) (lottery.PlayerTotals, error) {
	var t lottery.PlayerTotals
	err := s.read.QueryRow(ctx, `SELECT a.games_played, a.games_won, a.staked_total, a.prizes_won FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE p.id = $1`, playerID).Scan(&t.Games, &t.Winners, &t.Stakes, &t.Prizes)
	if errors.Is(err, sql.ErrNoRows) {
		return t, nil // no such player: no games
	}
	return t, s.fault(err)
}

// PlayerTransfersQuery finds a player's latest transfers before a transfer id without reading the
// ledger (migration 0005). It gathers two sets, and of those keeps the latest:
//
//   - the stakes and prizes of their latest games, by the ids the games keep (a game's stake
//     transfer comes after those of the player's older games);
//   - their latest deposits and withdrawals, through the partial indexes.
//
// $1 is the player, $2 their account, $3 how many, $4 the transfer id they come before.
const PlayerTransfersQuery = `WITH g AS (SELECT stake_transfer, prize FROM games WHERE player_id = $1 AND stake_transfer < $4 ORDER BY id DESC LIMIT $3),` +
	playerTransfers

// PlayerGamesTransfersQuery is PlayerTransfersQuery with the games bounded by their own ids
// ($5: those before it), so that their ids come from the index by player alone, as Games reads
// them (on PostgreSQL, 30 ms less for a player of 400,000 games of 10^6 who stopped long ago).
// It serves the first page, and every page that starts before a transfer of one of the player's
// games: a player's games and their stake transfers go up together.
const PlayerGamesTransfersQuery = `WITH g AS (SELECT stake_transfer, prize FROM games WHERE id IN (
		SELECT id FROM games WHERE player_id = $1 AND id < $5 ORDER BY player_id DESC, id DESC LIMIT $3)),` + playerTransfers

// playerTransfers is what the two queries share: the transfers of the games g, and the deposits
// and withdrawals.
const playerTransfers = `
	ids AS (SELECT stake_transfer AS id FROM g
		UNION ALL SELECT stake_transfer + 1 FROM g WHERE prize > 0
		UNION ALL SELECT * FROM (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND from_account = $2 AND id < $4 ORDER BY id DESC LIMIT $3) AS o
		UNION ALL SELECT * FROM (SELECT id FROM transfers WHERE kind IN ('deposit', 'withdrawal') AND to_account = $2 AND id < $4 ORDER BY id DESC LIMIT $3) AS i)
	SELECT id, from_account, to_account, amount, kind, coalesce(game_id, 0), coalesce(reason, ''), created_at FROM transfers
	WHERE id IN (SELECT id FROM ids) AND id < $4 AND (from_account = $2 OR to_account = $2) ORDER BY id DESC LIMIT $3`

// PlayerTransfers lists a player's transfers into or out of their account before a transfer id
// (0: from the latest), newest first: a page of them. It reads about three times limit rows,
// however long the ledger.
func (s *DB) PlayerTransfers(ctx context.Context, p lottery.Player, limit int, before int64) ([]lottery.Transfer, error) {
	args := []any{p.ID, p.AccountID, limit, before}
	query, err := PlayerTransfersQuery, error(nil)
	switch {
	case before <= 0:
		query, args[3] = PlayerGamesTransfersQuery, int64(1<<63-1)
		args = append(args, int64(1<<63-1))
	default:
		// Before a transfer of one of the player's games: before that game, or with it, for its
		// prize.
		var game sql.NullInt64
		var kind string
		err = s.read.QueryRow(ctx, `SELECT t.game_id, t.kind FROM transfers t JOIN games g ON g.id = t.game_id
			WHERE t.id = $1 AND g.player_id = $2`, before, p.ID).Scan(&game, &kind)
		switch {
		case err == nil && kind == lottery.Stake:
			query, args = PlayerGamesTransfersQuery, append(args, game.Int64)
		case err == nil && kind == lottery.Prize:
			query, args = PlayerGamesTransfersQuery, append(args, game.Int64+1)
		case errors.Is(err, sql.ErrNoRows):
			err = nil // a deposit or a withdrawal: the games bounded by their stake transfers
		}
	}
	if err != nil {
		return nil, s.fault(err)
	}
	var out []lottery.Transfer
	err = each(s.read.Query(ctx, query, args...))(func(r Rows) error {
		var t lottery.Transfer
		err := r.Scan(&t.ID, &t.From, &t.To, &t.Amount, &t.Kind, &t.GameID, &t.Reason, ScanTime(&t.CreatedAt))
		out = append(out, t)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// FindPlayers lists up to limit players, in username order, found by what an operator types:
//
//   - a date (YYYY-MM-DD or DD/MM/YYYY): those born that day;
//   - else those whose username starts with it, or whose last name starts with it, or one of
//     whose first names does, names compared as identities are (no case, no accents).
func (s *DB) FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error) {
	where, args := ``, []any{limit}
	if day, err := identity.BirthDate(start); err == nil {
		where, args = `p.birth_date = $2 ORDER BY p.username`, append(args, day)
		if s.d != SQLite {
			where = `p.birth_date = CAST($2 AS date) ORDER BY p.username COLLATE "C"`
		}
	} else {
		byName, pattern := s.d.nameStarts(start)
		byName, order, _ := strings.Cut(strings.Replace(byName, "$1", "$2", 1), " ORDER BY ")
		key := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(identity.NameKey(start))
		// The key is "last name|first names|date", folded: the last name's start, the first
		// first name's, or another first name's.
		where = `(` + byName + ` OR p.identity_key LIKE $3 ESCAPE '\' OR p.identity_key LIKE $4 ESCAPE '\' OR p.identity_key LIKE $5 ESCAPE '\')
			ORDER BY ` + order
		args = append(args, pattern, key+"%", "%|"+key+"%|%", "%|% "+key+"%|%")
	}
	var out []lottery.Player
	err := each(s.read.Query(ctx, `SELECT `+PlayerColumns(s.d)+` FROM players p JOIN accounts a ON a.id = p.account_id
		WHERE `+where+` LIMIT $1`, args...))(func(r Rows) error {
		p, err := ScanPlayer(r)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// UnfinishedPrizes lists the winning games whose reveal has not ended, sold from one time until
// another: each as one Sales (Period its sale's time, Price its stake, Units 1, Prizes its
// prize). It reads the index of unfinished games, which holds only games in play.
func (s *DB) UnfinishedPrizes(ctx context.Context, from, until time.Time) ([]lottery.Sales, error) {
	var out []lottery.Sales
	err := each(s.read.Query(ctx, `SELECT created_at, stake, prize FROM games
		WHERE status <> 'finished' AND prize > 0 AND created_at >= $1 AND created_at < $2 ORDER BY created_at`,
		s.d.SaleTime(from), s.d.SaleTime(until)))(func(r Rows) error {
		sl := lottery.Sales{Units: 1}
		err := r.Scan(ScanTime(&sl.Period), &sl.Price, &sl.Prizes)
		sl.Stakes = sl.Price
		out = append(out, sl)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}
