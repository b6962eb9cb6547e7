package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// clicks stores no clicks as an empty blob, never NULL.
func clicks(c []byte) []byte {
	if c == nil {
		return []byte{}
	}
	return c
}

const gameColumns = `id, player_id, emission_id, block, unit, stake, mode, prize, color, clicks, status, balance_after, created_at, updated_at, stake_transfer`

type scanner interface{ Scan(dest ...any) error }

var noGame = fault.Errorf(fault.NotFound, "no such game")

func scanGame(row scanner) (lottery.Game, error) {
	var g lottery.Game
	var created string
	err := row.Scan(&g.ID, &g.PlayerID, &g.Emission, &g.Block, &g.Unit, &g.Stake, &g.Mode, &g.Prize, &g.Color, &g.Clicks, &g.Status,
		&g.BalanceAfter, &created, &g.UpdatedAt, &g.StakeTransfer)
	if errors.Is(err, sql.ErrNoRows) {
		return g, noGame
	}
	if err != nil {
		return g, asFault(err)
	}
	g.CreatedAt, err = time.Parse(time.RFC3339Nano, created)
	return g, err
}

// Game reads a game of a player; another player's game is not found.
func (d *DB) Game(ctx context.Context, playerID, id int64) (lottery.Game, error) {
	return scanGame(d.queryRow(ctx, `SELECT `+gameColumns+` FROM games WHERE id = ? AND player_id = ?`, id, playerID))
}

// GameByID reads a game, whoever's it is (the back office finds games by their number).
func (d *DB) GameByID(ctx context.Context, id int64) (lottery.Game, error) {
	return scanGame(d.queryRow(ctx, `SELECT `+gameColumns+` FROM games WHERE id = ?`, id))
}

// Games lists a player's games, newest first, before a game id (0: from the newest).
func (d *DB) Games(ctx context.Context, playerID int64, limit int, before int64) ([]lottery.Game, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	return d.games(ctx, `SELECT `+gameColumns+` FROM games WHERE player_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, playerID, before, limit)
}

// Abandoned lists games left unfinished since before a time, oldest first.
func (d *DB) Abandoned(ctx context.Context, before time.Time, limit int) ([]lottery.Game, error) {
	return d.games(ctx, `SELECT `+gameColumns+` FROM games WHERE status <> 'finished' AND updated_at < ? ORDER BY updated_at LIMIT ?`, before.Unix(), limit)
}

func (d *DB) games(ctx context.Context, query string, args ...any) ([]lottery.Game, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Game
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, asFault(rows.Err())
}

// SaveMoves writes a game's new moves if it still stands as they were read (lottery.ErrMoved
// otherwise) and its session is still open.
func (d *DB) SaveMoves(ctx context.Context, u lottery.MoveUpdate, now time.Time) error {
	before := u.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	return d.update(ctx, func(t *tx) error {
		if err := t.requireSession(u.Session); err != nil {
			return err
		}
		res, err := t.exec(`UPDATE games SET color = ?, clicks = ?, status = ?, updated_at = ?
			WHERE id = ? AND player_id = ? AND color = ? AND clicks = ? AND status = ? AND updated_at < ?`,
			u.Now.Color, clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.PlayerID, u.Was.Color, clicks(u.Was.Clicks), u.Was.Status, before)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return cmpErr(err, lottery.ErrMoved)
		}
		return nil
	})
}

// cmpErr is err, or else other.
func cmpErr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// keptAnswerQuery reads the answer kept under a player's key (KeptAnswer, HoldRollback).
const keptAnswerQuery = `SELECT request_hash, status, response FROM idempotency WHERE player_id = ? AND key = ?`

// KeptAnswer finds the answer kept under a player's key.
func (d *DB) KeptAnswer(ctx context.Context, playerID int64, key string) (lottery.KeptAnswer, bool, error) {
	var r lottery.KeptAnswer
	err := d.queryRow(ctx, keptAnswerQuery, playerID, key).
		Scan(&r.RequestHash, &r.Status, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, asFault(err)
}

// keep stores the answer to a player's key, or fails with lottery.ErrKeyTaken.
func (t *tx) keep(playerID int64, key string, a lottery.KeptAnswer, now time.Time) error {
	_, err := t.exec(`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		playerID, key, a.RequestHash, a.Status, a.Body, now.Unix())
	if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
		return lottery.ErrKeyTaken
	}
	return err
}

// Old keys are forgotten by a sweep that never holds the writer for long. The key table has no
// index on time (it would cost every sale), so finding the old keys means reading them all: the
// sweep reads the table in key order, a few thousand keys at a time, each read a short read
// transaction of its own beside the writer (OldKeys), and deletes the old keys by their primary
// key, a few hundred to a write (ForgetKeys), so that sales go on between. A single
// "DELETE … WHERE created_at < ?" held the writer, and every sale, for a read of the whole table:
// 50–84 ms at 300,000 keys, 0.6 s at a million (BenchmarkForgetKeys).

// OldKeys reads up to limit keys in key order after the key after (the zero KeyRef: from the
// first), and returns those answered before a time, and the last key read. done tells that the
// table has no key after those.
func (d *DB) OldKeys(ctx context.Context, after lottery.KeyRef, limit int, before time.Time) (old []lottery.KeyRef, last lottery.KeyRef, done bool, err error) {
	rows, err := d.db.QueryContext(ctx, `SELECT player_id, key, created_at FROM idempotency
		WHERE (player_id, key) > (?, ?) ORDER BY player_id, key LIMIT ?`, after.PlayerID, after.Key, limit)
	if err != nil {
		return nil, after, false, asFault(err)
	}
	defer rows.Close()
	n, cutoff := 0, before.Unix()
	last = after
	for rows.Next() {
		var created int64
		if err := rows.Scan(&last.PlayerID, &last.Key, &created); err != nil {
			return nil, after, false, asFault(err)
		}
		if created < cutoff {
			old = append(old, last)
		}
		n++
	}
	return old, last, n < limit, asFault(rows.Err())
}

// ForgetKeys deletes keys by their primary key and returns how many it deleted. (Keys are never
// changed, so a key that OldKeys found old is still the same old key.)
func (d *DB) ForgetKeys(ctx context.Context, keys []lottery.KeyRef) (int64, error) {
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, k.PlayerID, k.Key)
	}
	var deleted int64
	err := d.update(ctx, func(t *tx) error {
		deleted = 0
		return t.chunks(`DELETE FROM idempotency WHERE (player_id, key) IN (VALUES `, `)`, 2, args, func(query string, args []any) error {
			res, err := t.exec(query, args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			deleted += n
			return err
		})
	})
	return deleted, err
}

// OpenEmissionPrices lists the prices at which some block still has units to sell.
func (d *DB) OpenEmissionPrices(ctx context.Context) (map[int64]bool, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT e.price FROM emissions e JOIN blocks b ON b.emission_id = e.id WHERE b.sold < b.units`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return nil, asFault(err)
		}
		out[p] = true
	}
	return out, asFault(rows.Err())
}

// SoldUnits lists every game's unit and prize, in the order of the emissions' units.
func (d *DB) SoldUnits(ctx context.Context) ([]lottery.Game, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, emission_id, block, unit, prize FROM games ORDER BY emission_id, block, unit`)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.Game
	for rows.Next() {
		var g lottery.Game
		if err := rows.Scan(&g.ID, &g.Emission, &g.Block, &g.Unit, &g.Prize); err != nil {
			return nil, asFault(err)
		}
		out = append(out, g)
	}
	return out, asFault(rows.Err())
}
