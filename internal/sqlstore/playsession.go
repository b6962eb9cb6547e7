package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The play session of the reality checks (docs/spec/API.md 1.1): it begins at the player's
// earliest live session, and sums the games sold since: the player's totals, kept in their
// account (migration 0037), less those the session kept as it opened (migration 0039). A session
// index seek and two rows, whatever the player's history.

// PlaySessionQuery reads a player's play session: $1 the player, $2 and $3 the bounds of a live
// session (last seen at or after, opened at or after). (The SQLite store's tests check its plan.)
// Of two sessions opened in the same second, the earlier kept the smaller totals.
func PlaySessionQuery(d Dialect) string {
	return `SELECT s.created_at, a.staked_total - coalesce(s.staked_at_open, 0), a.prizes_won - coalesce(s.won_at_open, 0),
			a.games_played - coalesce(s.games_at_open, 0),
			CASE WHEN p.reality_checked_session = s.created_at THEN p.reality_checked_minutes ELSE 0 END
		FROM players p JOIN accounts a ON a.id = p.account_id
		LEFT JOIN (SELECT created_at, games_at_open, staked_at_open, won_at_open FROM sessions
		           WHERE kind = 'player' AND owner_id = $1 AND last_seen >= $2 AND created_at >= $3
		           ORDER BY created_at, games_at_open LIMIT 1) s ON true
		WHERE p.id = $1`
}

// playSessionOf reads a player's play session, in a write or outside it. A player with no live
// session has none: fault.NotLoggedIn.
func (s *DB) playSessionOf(ctx context.Context, q Querier, playerID int64, idleBefore, createdBefore time.Time) (lottery.PlaySession, error) {
	var ps lottery.PlaySession
	var started sql.NullInt64
	err := q.QueryRow(ctx, PlaySessionQuery(s.d), playerID, idleBefore.Unix(), createdBefore.Unix()).Scan(&started, &ps.Staked, &ps.Won, &ps.Games, &ps.Checked)
	if err != nil {
		return ps, NotFound(err, "no such player")
	}
	if !started.Valid {
		return ps, fault.Errorf(fault.NotLoggedIn, "no live session: log in again")
	}
	ps.StartedAt = time.Unix(started.Int64, 0).UTC()
	return ps, nil
}

// PlaySession reads a player's play session: it began at the opening of their earliest session
// still live (last seen at or after idleBefore, opened at or after createdBefore), and holds the
// stakes and prizes of the games sold since, and the last reality check answered in it.
func (s *DB) PlaySession(ctx context.Context, playerID int64, idleBefore, createdBefore time.Time) (lottery.PlaySession, error) {
	ps, err := s.playSessionOf(ctx, s.read, playerID, idleBefore, createdBefore)
	return ps, s.fault(err)
}

// AnswerRealityCheck records that the player answered « Continuer » to the reality check due
// minutes into their current play session, and returns the play session after it. The mark
// never goes back within a play session (two devices answering the same check, in either order:
// the update reads the row it changes under its lock), and an answer of an earlier play session
// counts for nothing in a later one.
func (s *DB) AnswerRealityCheck(ctx context.Context, playerID int64, idleBefore, createdBefore time.Time, minutes int) (lottery.PlaySession, error) {
	var ps lottery.PlaySession
	err := s.write(ctx, func(q Querier) error {
		var err error
		if ps, err = s.playSessionOf(ctx, q, playerID, idleBefore, createdBefore); err != nil {
			return err
		}
		return q.QueryRow(ctx, `UPDATE players SET reality_checked_minutes = CASE WHEN reality_checked_session = $1
			THEN `+s.d.greatest()+`(reality_checked_minutes, $2) ELSE $2 END, reality_checked_session = $1 WHERE id = $3 RETURNING reality_checked_minutes`,
			ps.StartedAt.Unix(), minutes, playerID).Scan(&ps.Checked)
	})
	return ps, s.fault(err)
}
