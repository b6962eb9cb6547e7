package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

const gameColumns = `id, player_id, emission_id, block, unit, stake, mode, prize, color, clicks, status, balance_after, created_at, updated_at, stake_transfer`

var noGame = fault.Errorf(fault.NotFound, "no such game")

func scanGame(row pgx.Row) (lottery.Game, error) {
	var g lottery.Game
	var block, unit int32
	var color int16
	err := row.Scan(&g.ID, &g.PlayerID, &g.Emission, &block, &unit, &g.Stake, &g.Mode, &g.Prize, &color, &g.Clicks, &g.Status,
		&g.BalanceAfter, &g.CreatedAt, &g.UpdatedAt, &g.StakeTransfer)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, noGame
	}
	g.Block, g.Unit, g.Color, g.CreatedAt = int(block), int(unit), int(color), g.CreatedAt.UTC()
	return g, asFault(err)
}

// Game reads a game of a player; another player's game is not found.
func (d *DB) Game(ctx context.Context, playerID, id int64) (lottery.Game, error) {
	return scanGame(d.pool.QueryRow(ctx, `SELECT `+gameColumns+` FROM games WHERE id = $1 AND player_id = $2`, id, playerID))
}

// GameByID reads a game, whoever's it is (the back office finds games by their number).
func (d *DB) GameByID(ctx context.Context, id int64) (lottery.Game, error) {
	return scanGame(d.pool.QueryRow(ctx, `SELECT `+gameColumns+` FROM games WHERE id = $1`, id))
}

// Games lists a player's games, newest first, before a game id (0: from the newest).
func (d *DB) Games(ctx context.Context, playerID int64, limit int, before int64) ([]lottery.Game, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	return d.games(ctx, `SELECT `+gameColumns+` FROM games WHERE player_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, playerID, before, limit)
}

// Abandoned lists games left unfinished since before a time, oldest first.
func (d *DB) Abandoned(ctx context.Context, before time.Time, limit int) ([]lottery.Game, error) {
	return d.games(ctx, `SELECT `+gameColumns+` FROM games WHERE status <> 'finished' AND updated_at < $1 ORDER BY updated_at LIMIT $2`, before.Unix(), limit)
}

func (d *DB) games(ctx context.Context, query string, args ...any) ([]lottery.Game, error) {
	rows, err := d.pool.Query(ctx, query, args...)
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
// otherwise) and its session is still open: one statement, which holds the game's row for no
// longer than itself.
func (d *DB) SaveMoves(ctx context.Context, u lottery.MoveUpdate, now time.Time) error {
	before := u.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	clicks := func(c []byte) []byte {
		if c == nil {
			return []byte{}
		}
		return c
	}
	return d.inTx(ctx, func(tx pgx.Tx) error {
		if err := requireSession(ctx, tx, u.Session); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE games SET color = $1, clicks = $2, status = $3, updated_at = $4
			WHERE id = $5 AND player_id = $6 AND color = $7 AND clicks = $8 AND status = $9 AND updated_at < $10`,
			int16(u.Now.Color), clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.PlayerID, int16(u.Was.Color), clicks(u.Was.Clicks), u.Was.Status, before)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return lottery.ErrMoved
		}
		return nil
	})
}

// KeptAnswer finds the answer kept under a player's key.
func (d *DB) KeptAnswer(ctx context.Context, playerID int64, key string) (lottery.KeptAnswer, bool, error) {
	var r lottery.KeptAnswer
	var status int32
	err := d.pool.QueryRow(ctx, `SELECT request_hash, status, response FROM idempotency WHERE player_id = $1 AND key = $2`, playerID, key).
		Scan(&r.RequestHash, &status, &r.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	r.Status = int(status)
	return r, err == nil, asFault(err)
}

// OldKeys reads up to limit keys in key order after the key after (the zero KeyRef: from the
// first), and returns those answered before a time, and the last key read. done tells that the
// table has no key after those.
func (d *DB) OldKeys(ctx context.Context, after lottery.KeyRef, limit int, before time.Time) (old []lottery.KeyRef, last lottery.KeyRef, done bool, err error) {
	rows, err := d.pool.Query(ctx, `SELECT player_id, key, created_at FROM idempotency
		WHERE (player_id, key) > ($1, $2) ORDER BY player_id, key LIMIT $3`, after.PlayerID, after.Key, limit)
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

// ForgetKeys deletes keys by their primary key and returns how many it deleted.
func (d *DB) ForgetKeys(ctx context.Context, keys []lottery.KeyRef) (int64, error) {
	// One delete by primary key each, pipelined: one round trip, and a plan that never reads the
	// whole table.
	var n int64
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		n = 0
		b := &pgx.Batch{}
		for _, k := range keys {
			b.Queue(`DELETE FROM idempotency WHERE player_id = $1 AND key = $2`, k.PlayerID, k.Key).Exec(func(tag pgconn.CommandTag) error {
				n += tag.RowsAffected()
				return nil
			})
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return n, err
}

// OpenEmissionPrices lists the prices at which some block still has units to sell.
func (d *DB) OpenEmissionPrices(ctx context.Context) (map[int64]bool, error) {
	rows, err := d.pool.Query(ctx, `SELECT DISTINCT e.price FROM emissions e JOIN blocks b ON b.emission_id = e.id WHERE b.sold < b.units`)
	if err != nil {
		return nil, asFault(err)
	}
	out := map[int64]bool{}
	var p int64
	_, err = pgx.ForEachRow(rows, []any{&p}, func() error { out[p] = true; return nil })
	return out, asFault(err)
}

// SoldUnits lists every game's unit and prize, in the order of the emissions' units.
func (d *DB) SoldUnits(ctx context.Context) ([]lottery.Game, error) {
	rows, err := d.pool.Query(ctx, `SELECT id, emission_id, block, unit, prize FROM games ORDER BY emission_id, block, unit`)
	if err != nil {
		return nil, asFault(err)
	}
	var out []lottery.Game
	var g lottery.Game
	var block, unit int32
	_, err = pgx.ForEachRow(rows, []any{&g.ID, &g.Emission, &block, &unit, &g.Prize}, func() error {
		g.Block, g.Unit = int(block), int(unit)
		out = append(out, g)
		return nil
	})
	return out, asFault(err)
}

// ReserveGameID hands out the id of a game to be sold later (SaleRequest.GameID), from the games'
// sequence: never twice, on any server.
func (d *DB) ReserveGameID(ctx context.Context) (int64, error) {
	var id int64
	err := d.pool.QueryRow(ctx, `SELECT nextval('games_id_seq')`).Scan(&id)
	return id, asFault(err)
}
