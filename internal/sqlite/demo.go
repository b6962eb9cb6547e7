package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/lottery"
)

// Demo play (docs/spec/API.md 1.2) keeps its sessions and games in demo_sessions and demo_games (migration
// 0024), which no other query of the store reads: no report, total, ledger check or emission
// counts them.

// CreateDemoSession starts a demo session, unless max are open already (fault.Unavailable: what a
// crowd of visitors can make the store hold is bounded).
func (d *DB) CreateDemoSession(ctx context.Context, s lottery.DemoSession, max int) error {
	return d.update(ctx, func(t *tx) error {
		var open int
		if err := t.queryRow(`SELECT count(*) FROM demo_sessions`).Scan(&open); err != nil {
			return err
		}
		if open >= max {
			return lottery.ErrDemoFull
		}
		_, err := t.exec(`INSERT INTO demo_sessions (token_hash, balance, games, created_at, last_seen) VALUES (?, ?, 0, ?, ?)`,
			s.Hash, s.Balance, s.CreatedAt, s.LastSeen)
		return err
	})
}

// DemoSession finds a demo session by its token's hash; none is fault.NotLoggedIn.
func (d *DB) DemoSession(ctx context.Context, hash []byte) (lottery.DemoSession, error) {
	s := lottery.DemoSession{Hash: hash}
	err := d.queryRow(ctx, `SELECT balance, games, created_at, last_seen FROM demo_sessions WHERE token_hash = ?`, hash).
		Scan(&s.Balance, &s.Games, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return s, lottery.ErrSessionEnded
	}
	return s, asFault(err)
}

// EndDemoSession forgets a demo session and its games.
func (d *DB) EndDemoSession(ctx context.Context, hash []byte) error {
	return d.update(ctx, func(t *tx) error {
		// The writer's connection does not enforce foreign keys (writer.go): the games are
		// deleted here, not by the schema's cascade.
		if _, err := t.exec(`DELETE FROM demo_games WHERE session_hash = ?`, hash); err != nil {
			return err
		}
		_, err := t.exec(`DELETE FROM demo_sessions WHERE token_hash = ?`, hash)
		return err
	})
}

// forgetDemoBatch bounds the sessions one write of the sweep deletes, with their games (up to
// 100 each): the writer is held for milliseconds, not for a whole sweep.
const forgetDemoBatch = 64

// ForgetDemoSessions deletes the demo sessions idle since before idleBefore or started before
// createdBefore, and their games, and returns how many sessions it deleted.
func (d *DB) ForgetDemoSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := d.update(ctx, func(t *tx) error {
			const ended = `SELECT token_hash FROM demo_sessions WHERE last_seen < ? OR created_at < ? ORDER BY token_hash LIMIT ?`
			if _, err := t.exec(`DELETE FROM demo_games WHERE session_hash IN (`+ended+`)`,
				idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch); err != nil {
				return err
			}
			res, err := t.exec(`DELETE FROM demo_sessions WHERE token_hash IN (`+ended+`)`, idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < forgetDemoBatch {
			return total, err
		}
	}
}

const demoGameColumns = `id, stake, mode, prize, color, clicks, status, balance_after, line, created_at, updated_at, key, request_hash`

func scanDemoGame(row scanner) (lottery.DemoGame, error) {
	var g lottery.DemoGame
	var created int64
	err := row.Scan(&g.ID, &g.Stake, &g.Mode, &g.Prize, &g.Color, &g.Clicks, &g.Status, &g.BalanceAfter, &g.Line, &created,
		&g.UpdatedAt, &g.Key, &g.RequestHash)
	if errors.Is(err, sql.ErrNoRows) {
		return g, noGame
	}
	g.CreatedAt = time.Unix(created, 0).UTC()
	return g, asFault(err)
}

// SellDemo sells a demo game to its session (lottery.DemoSale), or returns the game sold under
// its key already (and true). The common case is two statements: the session pays, if it is live
// and can (its balance and count of games changed in place), and the game is written unless its
// key has one, which undoes the payment.
func (d *DB) SellDemo(ctx context.Context, s lottery.DemoSale, now time.Time) (lottery.DemoGame, bool, error) {
	var g lottery.DemoGame
	var kept bool
	err := d.update(ctx, func(t *tx) error {
		kept = false
		var after int64
		err := t.queryRow(`UPDATE demo_sessions SET balance = balance - ? + ?, games = games + 1, last_seen = ?
			WHERE token_hash = ? AND balance >= ? AND games < ? AND last_seen >= ? AND created_at >= ? RETURNING balance`,
			s.Stake, s.Prize, now.Unix(), s.Session, s.Stake, s.MaxGames, s.Alive.IdleBefore, s.Alive.CreatedBefore).Scan(&after)
		if errors.Is(err, sql.ErrNoRows) {
			// Refused, unless the key has its game: a retry is answered whatever the balance.
			if g, err = t.keptDemo(s); err == nil || !errors.Is(err, noGame) {
				kept = err == nil
				return err
			}
			var ds lottery.DemoSession
			err := t.queryRow(`SELECT balance, games, created_at, last_seen FROM demo_sessions WHERE token_hash = ?`, s.Session).
				Scan(&ds.Balance, &ds.Games, &ds.CreatedAt, &ds.LastSeen)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return s.Refusal(ds, err == nil)
		}
		if err != nil {
			return err
		}
		g = s.Game(after, now)
		err = t.queryRow(`INSERT INTO demo_games (session_hash, key, request_hash, stake, mode, prize, color, clicks, status,
			balance_after, line, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_hash, key) DO NOTHING RETURNING id`,
			s.Session, s.Key, s.RequestHash, g.Stake, g.Mode, g.Prize, g.Color, clicks(nil), g.Status, g.BalanceAfter, g.Line,
			now.Unix(), now.Unix()).Scan(&g.ID)
		if errors.Is(err, sql.ErrNoRows) {
			// The key has its game: this payment is undone with the write, and that game answers.
			if g, err = t.keptDemo(s); err == nil {
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
func (t *tx) keptDemo(s lottery.DemoSale) (lottery.DemoGame, error) {
	return scanDemoGame(t.queryRow(`SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = ? AND key = ?`, s.Session, s.Key))
}

// DemoGame reads a game of a demo session; another session's game is not found.
func (d *DB) DemoGame(ctx context.Context, session []byte, id int64) (lottery.DemoGame, error) {
	return scanDemoGame(d.queryRow(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE id = ? AND session_hash = ?`, id, session))
}

// DemoGames lists a demo session's games, newest first, before a game id (0: from the newest).
func (d *DB) DemoGames(ctx context.Context, session []byte, limit int, before int64) ([]lottery.DemoGame, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = ? AND id < ? ORDER BY id DESC LIMIT ?`,
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
	return d.update(ctx, func(t *tx) error {
		res, err := t.exec(`UPDATE demo_sessions SET last_seen = ? WHERE token_hash = ? AND last_seen >= ? AND created_at >= ?`,
			now.Unix(), u.Session, alive.IdleBefore, alive.CreatedBefore)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return cmpErr(err, lottery.ErrSessionEnded)
		}
		res, err = t.exec(`UPDATE demo_games SET color = ?, clicks = ?, status = ?, updated_at = ?
			WHERE id = ? AND session_hash = ? AND color = ? AND clicks = ? AND status = ?`,
			u.Now.Color, clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.Session, u.Was.Color, clicks(u.Was.Clicks), u.Was.Status)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return cmpErr(err, lottery.ErrMoved)
		}
		return nil
	})
}
