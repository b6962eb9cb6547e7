package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// GameColumns are the columns ScanGame reads, of GamesFrom.
const GameColumns = `g.id, g.player_id, b.emission_id, b.block, g.block_number, g.unit, g.stake, g.mode, g.prize, g.color, g.clicks, g.status,
	g.balance_after, g.created_at, g.updated_at, g.stake_transfer`

// GamesFrom is the games g with their blocks b: a game names its block by its number (migration
// 0042), and is read with the block's emission and index.
const GamesFrom = `games g JOIN blocks b ON b.number = g.block_number`

// ErrNoGame is a game not found.
var ErrNoGame = fault.Errorf(fault.NotFound, "no such game")

// ScanGame reads a game's GameColumns; none is ErrNoGame.
func ScanGame(row Row) (lottery.Game, error) {
	var g lottery.Game
	err := row.Scan(&g.ID, &g.PlayerID, &g.Emission, &g.Block, &g.BlockNumber, &g.Unit, &g.Stake, &g.Mode, &g.Prize, &g.Color, &g.Clicks, &g.Status,
		&g.BalanceAfter, ScanTime(&g.CreatedAt), &g.UpdatedAt, &g.StakeTransfer)
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNoGame
	}
	return g, err
}

// clicks keeps no clicks as an empty blob, never NULL.
func clicks(c []byte) []byte {
	if c == nil {
		return []byte{}
	}
	return c
}

// Game reads a game of a player; another player's game is not found.
func (s *DB) Game(ctx context.Context, playerID, id int64) (lottery.Game, error) {
	g, err := ScanGame(s.read.QueryRow(ctx, `SELECT `+GameColumns+` FROM `+GamesFrom+` WHERE g.id = $1 AND g.player_id = $2`, id, playerID))
	return g, s.fault(err)
}

// GameByID reads a game, whoever's it is (the back office finds games by their number).
func (s *DB) GameByID(ctx context.Context, id int64) (lottery.Game, error) {
	g, err := ScanGame(s.read.QueryRow(ctx, `SELECT `+GameColumns+` FROM `+GamesFrom+` WHERE g.id = $1`, id))
	return g, s.fault(err)
}

// Games lists a player's games, newest first, before a game id (0: from the newest).
//
// The page's ids are read from the index by player alone, then their rows. Asked in one
// statement, PostgreSQL walks the games' primary key backwards for a player who holds a large
// share of the games, and steps over every other player's game sold since their last: 46 ms for
// a player of 400,000 games of 10^6 who stopped 150,000 games ago, 0.2 ms this way.
func (s *DB) Games(ctx context.Context, playerID int64, limit int, before int64) ([]lottery.Game, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	return s.games(ctx, `SELECT `+GameColumns+` FROM `+GamesFrom+` WHERE g.id IN (
		SELECT id FROM games WHERE player_id = $1 AND id < $2 ORDER BY player_id DESC, id DESC LIMIT $3) ORDER BY g.id DESC`, playerID, before, limit)
}

// Abandoned lists games left unfinished since before a time, oldest first.
func (s *DB) Abandoned(ctx context.Context, before time.Time, limit int) ([]lottery.Game, error) {
	return s.games(ctx, `SELECT `+GameColumns+` FROM `+GamesFrom+` WHERE g.status <> 'finished' AND g.updated_at < $1 ORDER BY g.updated_at LIMIT $2`, before.Unix(), limit)
}

func (s *DB) games(ctx context.Context, query string, args ...any) ([]lottery.Game, error) {
	var out []lottery.Game
	err := each(s.read.Query(ctx, query, args...))(func(r Rows) error {
		g, err := ScanGame(r)
		out = append(out, g)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// SaveMoves writes a game's new moves if it still stands as they were read (lottery.ErrMoved
// otherwise) and its session is still open.
func (s *DB) SaveMoves(ctx context.Context, u lottery.MoveUpdate, now time.Time) error {
	before := u.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	return s.write(ctx, func(q Querier) error {
		if err := RequireSession(ctx, q, u.Session); err != nil {
			return err
		}
		n, err := q.Exec(ctx, `UPDATE games SET color = $1, clicks = $2, status = $3, updated_at = $4
			WHERE id = $5 AND player_id = $6 AND color = $7 AND clicks = $8 AND status = $9 AND updated_at < $10`,
			u.Now.Color, clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.PlayerID, u.Was.Color, clicks(u.Was.Clicks), u.Was.Status, before)
		if err == nil && n != 1 {
			err = lottery.ErrMoved
		}
		return err
	})
}

// KeptAnswerQuery reads the answer kept under a player's key.
const KeptAnswerQuery = `SELECT request_hash, status, response FROM idempotency WHERE player_id = $1 AND key = $2`

// KeptAnswer finds the answer kept under a player's key.
func (s *DB) KeptAnswer(ctx context.Context, playerID int64, key string) (lottery.KeptAnswer, bool, error) {
	var r lottery.KeptAnswer
	err := s.read.QueryRow(ctx, KeptAnswerQuery, playerID, key).Scan(&r.RequestHash, &r.Status, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, s.fault(err)
}

// Old keys are forgotten by a sweep that never holds a write for long. The key table has no
// index on time (it would cost every sale), so finding the old keys means reading them all. The
// sweep repeats two steps, so that sales go on between:
//
//  1. It reads the table in key order, a few thousand keys at a time, each read a short read
//     of its own beside the writes (OldKeys).
//  2. It deletes the old keys by their primary key, a few hundred to a write (ForgetKeys, each
//     store's).
//
// A single "DELETE … WHERE created_at < ?" held SQLite's writer, and every sale, for a read of
// the whole table: 50–84 ms at 300,000 keys, 0.6 s at a million (BenchmarkForgetKeys).

// OldKeys reads up to limit keys in key order after the key after (the zero KeyRef: from the
// first). It returns those answered before a time, and the last key read. done tells that the
// table has no key after those.
func (s *DB) OldKeys(ctx context.Context, after lottery.KeyRef, limit int, before time.Time) (old []lottery.KeyRef, last lottery.KeyRef, done bool, err error) {
	n, cutoff := 0, before.Unix()
	last = after
	err = each(s.read.Query(ctx, `SELECT player_id, key, created_at FROM idempotency
		WHERE (player_id, key) > ($1, $2) ORDER BY player_id, key LIMIT $3`, after.PlayerID, after.Key, limit))(func(r Rows) error {
		var created int64
		if err := r.Scan(&last.PlayerID, &last.Key, &created); err != nil {
			return err
		}
		if created < cutoff {
			old = append(old, last)
		}
		n++
		return nil
	})
	if err != nil {
		return nil, after, false, s.fault(err)
	}
	return old, last, n < limit, nil
}

// OpenEmissionPrices lists the prices at which some block still has units to sell, its
// emission not suspended.
func (s *DB) OpenEmissionPrices(ctx context.Context) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := each(s.read.Query(ctx, `SELECT DISTINCT e.price FROM emissions e JOIN blocks b ON b.emission_id = e.id WHERE b.sold < b.units AND b.selling`))(func(r Rows) error {
		var p int64
		err := r.Scan(&p)
		out[p] = true
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// SoldUnits hands fn every game's unit and prize, block after block in the order they were made,
// each block's units in order (the order of their unique index: no sort). It streams: ledger
// check reads 10^8 games through it.
func (s *DB) SoldUnits(ctx context.Context, below int64, fn func(lottery.Game) error) error {
	var g lottery.Game
	return s.fault(each(s.read.Query(ctx, `SELECT g.id, b.emission_id, b.block, g.block_number, g.unit, g.prize FROM `+GamesFrom+`
		WHERE g.id < $1 ORDER BY g.block_number, g.unit`, below))(func(r Rows) error {
		if err := r.Scan(&g.ID, &g.Emission, &g.Block, &g.BlockNumber, &g.Unit, &g.Prize); err != nil {
			return err
		}
		return fn(g)
	}))
}
