package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// CreateSession starts a session. A player's is refused if their account is shut when it is made
// (closed, or self-excluded: lottery.Player.Shut's fault), read with the player's row locked for
// share: an exclusion or a closure (which update that row) waits for the session and then ends
// it, or the session waits for them and sees them. A login that checked the account before an
// exclusion committed, and opens its session after, gets no session; nor does one whose password
// changed since it was checked (lottery.Session.StillChecked).
func (d *DB) CreateSession(ctx context.Context, s lottery.Session) error {
	const insert = `INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) VALUES ($1, $2, $3, $4, $5)`
	if s.Kind != lottery.PlayerSession {
		_, err := d.pool.Exec(ctx, insert, s.Hash, s.Kind, s.OwnerID, s.CreatedAt, s.LastSeen)
		return d.noteWrite(err)
	}
	return d.inTx(ctx, func(tx pgx.Tx) error {
		// The hash is read under the lock taken here: a password change holds it until it commits.
		p, err := requireOpen(ctx, tx, s.OwnerID, time.Unix(s.CreatedAt, 0), ` FOR SHARE OF p`)
		if err != nil {
			return err
		}
		if err := s.StillChecked(p.PasswordHash); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, insert, s.Hash, s.Kind, s.OwnerID, s.CreatedAt, s.LastSeen)
		return err
	})
}

// Session finds a session by its token's hash; none is fault.NotLoggedIn.
func (d *DB) Session(ctx context.Context, hash []byte) (lottery.Session, error) {
	s := lottery.Session{Hash: hash}
	err := d.pool.QueryRow(ctx, `SELECT kind, owner_id, created_at, last_seen FROM sessions WHERE token_hash = $1`, hash).
		Scan(&s.Kind, &s.OwnerID, &s.CreatedAt, &s.LastSeen)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return s, asFault(err)
}

// requireSession fails with lottery.ErrSessionEnded unless the session is still there, read in
// the write's own transaction: nothing moves once a logout has committed, on any server. A nil
// hash (the server's own actions) is not checked.
func requireSession(ctx context.Context, tx pgx.Tx, hash []byte) error {
	if hash == nil {
		return nil
	}
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM sessions WHERE token_hash = $1`, hash).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return lottery.ErrSessionEnded
	}
	return err
}

// TouchSession records activity on a session.
func (d *DB) TouchSession(ctx context.Context, hash []byte, now time.Time) error {
	_, err := d.pool.Exec(ctx, `UPDATE sessions SET last_seen = $1 WHERE token_hash = $2`, now.Unix(), hash)
	return d.noteWrite(err)
}

// DeleteSession ends a session.
func (d *DB) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, hash)
	return d.noteWrite(err)
}

// DeleteExpiredSessions removes the sessions of a kind idle since before idleBefore or created
// before createdBefore.
func (d *DB) DeleteExpiredSessions(ctx context.Context, kind string, idleBefore, createdBefore time.Time) error {
	_, err := d.pool.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND (last_seen < $2 OR created_at < $3)`, kind, idleBefore.Unix(), createdBefore.Unix())
	return d.noteWrite(err)
}
