package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/lottery"
)

// Demo play (docs/spec/API.md 1.2) keeps its sessions and games in demo_sessions and demo_games
// (migration 0024). No other query of the store reads them: no report, total, ledger check or
// emission counts them. Every server reads and writes them, so a demo session works whichever
// server a load balancer sends its requests to.

// CreateDemoSession starts a demo session, unless max are open already (lottery.ErrDemoFull: what
// a crowd of visitors can make the store hold is bounded). Sessions started at once on several
// servers may each see one fewer than the other: the bound holds to within the requests in
// flight.
func (s *DB) CreateDemoSession(ctx context.Context, ds lottery.DemoSession, max int) error {
	return s.write(ctx, func(q Querier) error {
		var open int
		if err := q.QueryRow(ctx, `SELECT count(*) FROM demo_sessions`).Scan(&open); err != nil {
			return err
		}
		if open >= max {
			return lottery.ErrDemoFull
		}
		_, err := q.Exec(ctx, `INSERT INTO demo_sessions (token_hash, balance, games, created_at, last_seen) VALUES ($1, $2, 0, $3, $4)`,
			ds.Hash, ds.Balance, ds.CreatedAt, ds.LastSeen)
		return err
	})
}

const demoSessionQuery = `SELECT balance, games, created_at, last_seen FROM demo_sessions WHERE token_hash = $1`

// DemoSession finds a demo session by its token's hash; none is fault.NotLoggedIn.
func (s *DB) DemoSession(ctx context.Context, hash []byte) (lottery.DemoSession, error) {
	ds := lottery.DemoSession{Hash: hash}
	err := s.read.QueryRow(ctx, demoSessionQuery, hash).Scan(&ds.Balance, &ds.Games, &ds.CreatedAt, &ds.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return ds, lottery.ErrSessionEnded
	}
	return ds, s.fault(err)
}

// EndDemoSession forgets a demo session and its games.
func (s *DB) EndDemoSession(ctx context.Context, hash []byte) error {
	const end = `DELETE FROM demo_sessions WHERE token_hash = $1`
	if s.d.cascades() {
		_, err := s.once.Exec(ctx, end, hash)
		return err
	}
	return s.write(ctx, func(q Querier) error {
		if _, err := q.Exec(ctx, `DELETE FROM demo_games WHERE session_hash = $1`, hash); err != nil {
			return err
		}
		_, err := q.Exec(ctx, end, hash)
		return err
	})
}

// forgetDemoBatch bounds the sessions one write of the sweep deletes, with their games (up to
// 100 each): a write is held for milliseconds, not for a whole sweep.
const forgetDemoBatch = 64

// ForgetDemoSessions deletes the demo sessions idle since before idleBefore or started before
// createdBefore, and their games, and returns how many sessions it deleted.
func (s *DB) ForgetDemoSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	const ended = `SELECT token_hash FROM demo_sessions WHERE last_seen < $1 OR created_at < $2 ORDER BY token_hash LIMIT $3`
	var total int64
	for {
		const forget = `DELETE FROM demo_sessions WHERE token_hash IN (` + ended + `)`
		var n int64
		var err error
		if s.d.cascades() {
			n, err = s.once.Exec(ctx, forget, idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch)
		} else {
			err = s.write(ctx, func(q Querier) error {
				if _, err := q.Exec(ctx, `DELETE FROM demo_games WHERE session_hash IN (`+ended+`)`,
					idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch); err != nil {
					return err
				}
				var err error
				n, err = q.Exec(ctx, forget, idleBefore.Unix(), createdBefore.Unix(), forgetDemoBatch)
				return err
			})
		}
		total += n
		if err != nil || n < forgetDemoBatch {
			return total, err
		}
	}
}

const demoGameColumns = `id, stake, mode, prize, color, clicks, status, balance_after, line, created_at, updated_at, key, request_hash`

func scanDemoGame(row Row) (lottery.DemoGame, error) {
	var g lottery.DemoGame
	var created int64
	err := row.Scan(&g.ID, &g.Stake, &g.Mode, &g.Prize, &g.Color, &g.Clicks, &g.Status, &g.BalanceAfter, &g.Line, &created,
		&g.UpdatedAt, &g.Key, &g.RequestHash)
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNoGame
	}
	g.CreatedAt = time.Unix(created, 0).UTC()
	return g, err
}

// SellDemo sells a demo game to its session (lottery.DemoSale), or returns the game sold under
// its key already (and true). The common case is two statements:
//
//  1. The session pays, if it is live and can. Its row is changed in place, which locks it
//     where servers write at once. So the sales and keys of one session are decided one after
//     the other, whichever servers they reach.
//  2. The game is written, unless its key has one, which undoes the payment.
func (s *DB) SellDemo(ctx context.Context, sale lottery.DemoSale, now time.Time) (lottery.DemoGame, bool, error) {
	var g lottery.DemoGame
	var kept bool
	err := s.write(ctx, func(q Querier) error {
		kept = false
		var after int64
		err := q.QueryRow(ctx, `UPDATE demo_sessions SET balance = balance - $1 + $2, games = games + 1, last_seen = $3
			WHERE token_hash = $4 AND balance >= $1 AND games < $5 AND last_seen >= $6 AND created_at >= $7 RETURNING balance`,
			sale.Stake, sale.Prize, now.Unix(), sale.Session, sale.MaxGames, sale.Alive.IdleBefore, sale.Alive.CreatedBefore).Scan(&after)
		if errors.Is(err, sql.ErrNoRows) {
			// Refused, unless the key has its game: a retry is answered whatever the balance.
			if g, err = keptDemo(ctx, q, sale); err == nil || !errors.Is(err, ErrNoGame) {
				kept = err == nil
				return err
			}
			var ds lottery.DemoSession
			err := q.QueryRow(ctx, demoSessionQuery, sale.Session).Scan(&ds.Balance, &ds.Games, &ds.CreatedAt, &ds.LastSeen)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			return sale.Refusal(ds, err == nil)
		}
		if err != nil {
			return err
		}
		g = sale.Game(after, now)
		err = q.QueryRow(ctx, `INSERT INTO demo_games (session_hash, key, request_hash, stake, mode, prize, color, clicks, status,
			balance_after, line, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
			ON CONFLICT (session_hash, key) DO NOTHING RETURNING id`,
			sale.Session, sale.Key, sale.RequestHash, g.Stake, g.Mode, g.Prize, g.Color, []byte{}, g.Status, g.BalanceAfter, g.Line,
			now.Unix()).Scan(&g.ID)
		if errors.Is(err, sql.ErrNoRows) {
			// The key has its game: this payment is undone with the write, and that game answers.
			if g, err = keptDemo(ctx, q, sale); err == nil {
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

// keptDemo reads the game a demo sale's key has (ErrNoGame: none).
func keptDemo(ctx context.Context, q Querier, sale lottery.DemoSale) (lottery.DemoGame, error) {
	return scanDemoGame(q.QueryRow(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = $1 AND key = $2`, sale.Session, sale.Key))
}

// DemoGame reads a game of a demo session; another session's game is not found.
func (s *DB) DemoGame(ctx context.Context, session []byte, id int64) (lottery.DemoGame, error) {
	g, err := scanDemoGame(s.read.QueryRow(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE id = $1 AND session_hash = $2`, id, session))
	return g, s.fault(err)
}

// DemoGames lists a demo session's games, newest first, before a game id (0: from the newest).
func (s *DB) DemoGames(ctx context.Context, session []byte, limit int, before int64) ([]lottery.DemoGame, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	var out []lottery.DemoGame
	err := each(s.read.Query(ctx, `SELECT `+demoGameColumns+` FROM demo_games WHERE session_hash = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
		session, before, limit))(func(r Rows) error {
		g, err := scanDemoGame(r)
		out = append(out, g)
		return err
	})
	if err != nil {
		return nil, s.fault(err)
	}
	return out, nil
}

// SaveDemoMoves writes a demo game's new moves if it still stands as they were read
// (lottery.ErrMoved otherwise). Its session must still be there and live (u.Session, alive;
// u.PlayerID is unused). It notes the session's activity.
func (s *DB) SaveDemoMoves(ctx context.Context, u lottery.MoveUpdate, alive lottery.DemoAlive, now time.Time) error {
	return s.write(ctx, func(q Querier) error {
		n, err := q.Exec(ctx, `UPDATE demo_sessions SET last_seen = $1 WHERE token_hash = $2 AND last_seen >= $3 AND created_at >= $4`,
			now.Unix(), u.Session, alive.IdleBefore, alive.CreatedBefore)
		if err == nil && n != 1 {
			err = lottery.ErrSessionEnded
		}
		if err != nil {
			return err
		}
		n, err = q.Exec(ctx, `UPDATE demo_games SET color = $1, clicks = $2, status = $3, updated_at = $4
			WHERE id = $5 AND session_hash = $6 AND color = $7 AND clicks = $8 AND status = $9`,
			u.Now.Color, clicks(u.Now.Clicks), u.Now.Status, now.Unix(),
			u.GameID, u.Session, u.Was.Color, clicks(u.Was.Clicks), u.Was.Status)
		if err == nil && n != 1 {
			err = lottery.ErrMoved
		}
		return err
	})
}
