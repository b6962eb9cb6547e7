package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Sessions, of players and operators alike, are one table (migration 0010), known by the SHA-256
// of their token.

// CreateSession starts a session. A player's is refused, in its write, if their account is shut
// when it is made (closed, or self-excluded: lottery.Player.Shut's fault): a login that checked
// the account before an exclusion committed, and opens its session after, gets no session; nor
// does one whose password changed since it was checked (lottery.Session.StillChecked).
func (d *DB) CreateSession(ctx context.Context, s lottery.Session) error {
	return d.update(ctx, func(t *tx) error {
		if s.Kind == lottery.PlayerSession {
			p, err := t.requireOpen(s.OwnerID, time.Unix(s.CreatedAt, 0))
			if err != nil {
				return err
			}
			if err := s.StillChecked(p.PasswordHash); err != nil {
				return err
			}
		}
		_, err := t.exec(`INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) VALUES (?, ?, ?, ?, ?)`,
			s.Hash, s.Kind, s.OwnerID, s.CreatedAt, s.LastSeen)
		return err
	})
}

// Session finds a session by its token's hash; none is fault.NotLoggedIn.
func (d *DB) Session(ctx context.Context, hash []byte) (lottery.Session, error) {
	s := lottery.Session{Hash: hash}
	err := d.queryRow(ctx, `SELECT kind, owner_id, created_at, last_seen FROM sessions WHERE token_hash = ?`, hash).
		Scan(&s.Kind, &s.OwnerID, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return s, asFault(err)
}

// requireSession fails with lottery.ErrSessionEnded unless the session is still there: a write
// made for a player checks it in its own transaction, so that nothing moves after a logout has
// committed. A nil hash (the server's own actions) is not checked.
func (t *tx) requireSession(hash []byte) error {
	if hash == nil {
		return nil
	}
	var one int
	err := t.queryRow(`SELECT 1 FROM sessions WHERE token_hash = ?`, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return lottery.ErrSessionEnded
	}
	return err
}

// TouchSession records activity on a session.
func (d *DB) TouchSession(ctx context.Context, hash []byte, now time.Time) error {
	return d.update(ctx, func(t *tx) error {
		_, err := t.exec(`UPDATE sessions SET last_seen = ? WHERE token_hash = ?`, now.Unix(), hash)
		return err
	})
}

// DeleteSession ends a session.
func (d *DB) DeleteSession(ctx context.Context, hash []byte) error {
	return d.update(ctx, func(t *tx) error {
		_, err := t.exec(`DELETE FROM sessions WHERE token_hash = ?`, hash)
		return err
	})
}

// DeleteExpiredSessions removes the sessions of a kind idle since before idleBefore or created
// before createdBefore.
func (d *DB) DeleteExpiredSessions(ctx context.Context, kind string, idleBefore, createdBefore time.Time) error {
	return d.update(ctx, func(t *tx) error {
		_, err := t.exec(`DELETE FROM sessions WHERE kind = ? AND (last_seen < ? OR created_at < ?)`, kind, idleBefore.Unix(), createdBefore.Unix())
		return err
	})
}
