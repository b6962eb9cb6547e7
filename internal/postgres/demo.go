package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/lottery"
)

// Demo play (docs/spec/API.md 1.2) keeps its sessions and games in demo_sessions and demo_games (migration
// 0014), which no other query of the store reads: no report, total, ledger check or emission
// counts them. Every server reads and writes them, so a demo session works whichever server a
// load balancer sends its requests to.

// CreateDemoSession starts a demo session, unless max are open already (lottery.ErrDemoFull).
// Sessions started at once on several servers may each see one fewer than the other: the bound
// holds to within the requests in flight.
func (d *DB) CreateDemoSession(ctx context.Context, s lottery.DemoSession, max int) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		var open int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM demo_sessions`).Scan(&open); err != nil {
			return err
		}
		if open >= max {
			return lottery.ErrDemoFull
		}
		_, err := tx.Exec(ctx, `INSERT INTO demo_sessions (token_hash, balance, games, created_at, last_seen) VALUES ($1, $2, 0, $3, $4)`,
			s.Hash, s.Balance, s.CreatedAt, s.LastSeen)
		return err
	})
}

// DemoSession finds a demo session by its token's hash; none is fault.NotLoggedIn.
func (d *DB) DemoSession(ctx context.Context, hash []byte) (lottery.DemoSession, error) {
	s := lottery.DemoSession{Hash: hash}
	var games int32
	err := d.pool.QueryRow(ctx, `SELECT balance, games, created_at, last_seen FROM demo_sessions WHERE token_hash = $1`, hash).
		Scan(&s.Balance, &games, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, lottery.ErrSessionEnded
	}
	s.Games = int(games)
	return s, asFault(err)
}

// EndDemoSession forgets a demo session and its games.
func (d *DB) EndDemoSession(ctx context.Context, hash []byte) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM demo_sessions WHERE token_hash = $1`, hash)
	return d.noteWrite(err)
}

// forgetDemoBatch bounds the sessions one statement of the sweep deletes, with their games.
const forgetDemoBatch = 64

// ForgetDemoSessions deletes the demo sessions idle since before idleBefore or started before
// createdBefore, and their games, and returns how many sessions it deleted.
func (d *DB) ForgetDemoSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	var total int64
	for {
		tag, err := d.pool.Exec(ctx, `DELETE FROM demo_sessions WHERE token_hash IN (SELECT token_hash FROM demo_sessions
			WHERE last_seen < $1 OR created_at < $2 LIMIT $3)`, idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch)
		if err != nil {
			return total, d.noteWrite(err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < forgetDemoBatch {
			return total, nil
		}
	}
}

const demoGameColumns = `id, stake, mode, prize, color, clicks, status, balance_after, line, created_at, updated_at, key, request_hash`

func scanDemoGame(row pgx.Row) (lottery.DemoGame, error) {
	var g lottery.DemoGame
	var color int16
	var created int64
	err := row.Scan(&g.ID, &g.Stake, &g.Mode, &g.Prize, &color, &g.Clicks, &g.Status, &g.BalanceAfter, &g.Line, &created,
		&g.UpdatedAt, &g.Key, &g.RequestHash)
	if errors.Is(err, pgx.ErrNoRows) {
		return g, noGame
	}
	g.Color, g.CreatedAt = int(color), time.Unix(created, 0).UTC()
	return g, asFault(err)
}

// SellDemo sells a demo game to its session (lottery.DemoSale), or returns the game sold under
// its key already (and true). The common case is two statements: the session pays, if it is live
// and can (its row locked: the sales and keys of one session are decided one after the other,
// whichever servers they reach), and the game is written unless its key has one, which undoes the
// payment.
func (d *DB) SellDemo(ctx context.Context, s lottery.DemoSale, now time.Time) (lottery.DemoGame, bool, error) {
	var g lottery.DemoGame
	var kept bool
	err := d.inTx(ctx, func(tx pgx.Tx) error {
		kept = false
		var after int64
		err := tx.QueryRow(ctx, `UPDATE demo_sessions SET balance = balance - $1 + $2, games = games + 1, last_seen = $3
			WHERE token_hash = $4 AND balance >= $1 AND games < $5 AND last_seen >= $6 AND created_at >= $7 RETURNING balance`,
			s.Stake, s.Prize, now.Unix(), s.Session, s.MaxGames, s.Alive.IdleBefore, s.Alive.CreatedBefore).Scan(&after)
		if errors.Is(err, pgx.ErrNoRows) {
			// Refused, unless the key has its game: a retry is answered whatever the balance.
			if g, err = keptDemo(ctx, tx, s); err == nil || !errors.Is(err, noGame) {
				kept = err == nil
				return err
			}
			var ds lottery.DemoSession
			var games int32
			err := tx.QueryRow(ctx, `SELECT balance, games, created_at, last_seen FROM demo_sessions WHERE token_hash = $1`, s.Session).
				Scan(&ds.Balance, &games, &ds.CreatedAt, &ds.LastSeen)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			ds.Games = int(games)
			return s.Refusal(ds, err == nil)
		}
		if err != nil {
			return err
		}
		g = s.Game(after, now)
		err = tx.QueryRow(ctx, `INSERT INTO demo_games (session_hash, key, request_hash, stake, mode, prize, color, clicks, status,
			balance_after, line, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
			ON CONFLICT (session_hash, key) DO NOTHING RETURNING id`,
			s.Session, s.Key, s.RequestHash, g.Stake, g.Mode, g.Prize, int16(g.Color), []byte{}, g.Status, g.BalanceAfter, g.Line,
			now.Unix()).Scan(&g.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			// The key has its game: this payment is rolled back with the transaction, and that
			// game answers.
			if g, err = keptDemo(ctx, tx, s); err == nil {
				kept, err = true, lottery.ErrDemoKept
			}
		}
		return err
	})
	if errors.Is(err, lottery.ErrDemoKept) {
		err = nil
	}
	return g, kept, err
}

// keptDemo reads the game a demo sale's key has (noGame: none).
func keptDemo(ctx context.Context, tx pgx.Tx, s lottery.DemoSale) (lottery.DemoGame, error) {
	return scanDemoGame(tx.QueryRow(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = $1 AND key = $2`, s.Session, s.Key))
}

// DemoGame reads a game of a demo session; another session's game is not found.
func (d *DB) DemoGame(ctx context.Context, session []byte, id int64) (lottery.DemoGame, error) {
	return scanDemoGame(d.pool.QueryRow(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE id = $1 AND session_hash = $2`, id, session))
}

// DemoGames lists a demo session's games, newest first, before a game id (0: from the newest).
func (d *DB) DemoGames(ctx context.Context, session []byte, limit int, before int64) ([]lottery.DemoGame, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.pool.Query(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
		session, before, limit)
	if err != nil {
		return nil, asFault(err)
	}
	defer rows.Close()
	var out []lottery.DemoGame
	for rows.Next() {
		g, err := scanDemoGame(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, asFault(rows.Err())
}

// SaveDemoMoves writes a demo game's new moves if it still stands as they were read
// (lottery.ErrMoved otherwise) and its session is still there and live (u.Session, alive;
// u.PlayerID is unused), and notes the session's activity.
func (d *DB) SaveDemoMoves(ctx context.Context, u lottery.MoveUpdate, alive lottery.DemoAlive, now time.Time) error {
	clicks := func(c []byte) []byte {
		if c == nil {
			return []byte{}
		}
		return c
	}
	return d.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE demo_sessions SET last_seen = $1 WHERE token_hash = $2 AND last_seen >= $3 AND created_at >= $4`,
			now.Unix(), u.Session, alive.IdleBefore, alive.CreatedBefore)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return lottery.ErrSessionEnded
		}
		tag, err = tx.Exec(ctx, `UPDATE demo_games SET color = $1, clicks = $2, status = $3, updated_at = $4
			WHERE id = $5 AND session_hash = $6 AND color = $7 AND clicks = $8 AND status = $9`,
			int16(u.Now.Color), clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.Session, int16(u.Was.Color), clicks(u.Was.Clicks), u.Was.Status)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return lottery.ErrMoved
		}
		return nil
	})
}
