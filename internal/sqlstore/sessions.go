package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Sessions, of players and operators alike, are one table, known by the SHA-256 of their token.

// insertSession makes a session: $1 its hash, $2 its kind, $3 its owner, $4 and $5 its times.
// A player's keeps their totals as it opens: a play session's sums are the totals since
// (PlaySessionQuery).
const insertSession = `INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen, games_at_open, staked_at_open, won_at_open)
	SELECT $1, $2, $3, $4, $5, coalesce(a.games_played, 0), coalesce(a.staked_total, 0), coalesce(a.prizes_won, 0)
	FROM (SELECT 1) one LEFT JOIN players p ON $2 = 'player' AND p.id = $3 LEFT JOIN accounts a ON a.id = p.account_id`

// CreateSession starts a session. A player's is refused, in its write, if their account is shut
// when it is made (closed, or self-excluded: lottery.Player.Shut's fault). Where servers write
// at once, that is read with the player's row locked for share. An exclusion or a closure
// (which update that row) waits for the session and then ends it, or the session waits for them
// and sees them. So a login that checked the account before an exclusion committed, and opens
// its session after, gets no session. Nor does one whose password changed since it was checked
// (lottery.Session.StillChecked).
func (s *DB) CreateSession(ctx context.Context, ss lottery.Session) error {
	if ss.Kind != lottery.PlayerSession {
		_, err := s.once.Exec(ctx, insertSession, ss.Hash, ss.Kind, ss.OwnerID, ss.CreatedAt, ss.LastSeen)
		return err
	}
	return s.write(ctx, func(q Querier) error {
		// The hash is read under the lock taken here: a password change holds it until it commits.
		p, err := RequireOpen(ctx, q, s.d, ss.OwnerID, time.Unix(ss.CreatedAt, 0), s.d.forShare("p"))
		if err != nil {
			return err
		}
		if err := ss.StillChecked(p.PasswordHash); err != nil {
			return err
		}
		_, err = q.Exec(ctx, insertSession, ss.Hash, ss.Kind, ss.OwnerID, ss.CreatedAt, ss.LastSeen)
		return err
	})
}

// Session finds a session by its token's hash; none is fault.NotLoggedIn.
func (s *DB) Session(ctx context.Context, hash []byte) (lottery.Session, error) {
	ss := lottery.Session{Hash: hash}
	err := s.read.QueryRow(ctx, `SELECT kind, owner_id, created_at, last_seen FROM sessions WHERE token_hash = $1`, hash).
		Scan(&ss.Kind, &ss.OwnerID, &ss.CreatedAt, &ss.LastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return ss, fault.Errorf(fault.NotLoggedIn, "not logged in")
	}
	return ss, s.fault(err)
}

// TouchSession records activity on a session.
func (s *DB) TouchSession(ctx context.Context, hash []byte, now time.Time) error {
	_, err := s.once.Exec(ctx, `UPDATE sessions SET last_seen = $1 WHERE token_hash = $2`, now.Unix(), hash)
	return err
}

// DeleteSession ends a session.
func (s *DB) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.once.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, hash)
	return err
}

// DeleteExpiredSessions removes the sessions of a kind idle since before idleBefore or created
// before createdBefore.
func (s *DB) DeleteExpiredSessions(ctx context.Context, kind string, idleBefore, createdBefore time.Time) error {
	_, err := s.once.Exec(ctx, `DELETE FROM sessions WHERE kind = $1 AND (last_seen < $2 OR created_at < $3)`, kind, idleBefore.Unix(), createdBefore.Unix())
	return err
}
