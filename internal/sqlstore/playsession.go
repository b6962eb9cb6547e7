package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The play session of the reality checks (docs/spec/API.md 1.1, migration 0023): it begins at the
// player's earliest live session, and sums the games sold since, through the players' sessions
// by owner and their games by time, both indexes: one statement, whatever the player's history.

// PlaySessionQuery reads a player's play session: $1 the player, $2 and $3 the bounds of a live
// session (last seen at or after, opened at or after). (The SQLite store's tests check its plan.)
func PlaySessionQuery(d Dialect) string {
	return `SELECT s.started, CAST(coalesce(sum(g.stake), 0) AS BIGINT), CAST(coalesce(sum(g.prize), 0) AS BIGINT), count(g.player_id),
			CASE WHEN p.reality_checked_session = s.started THEN p.reality_checked_minutes ELSE 0 END
		FROM (SELECT min(created_at) AS started FROM sessions WHERE kind = 'player' AND owner_id = $1 AND last_seen >= $2 AND created_at >= $3) s
		JOIN players p ON p.id = $1
		LEFT JOIN games g ON g.player_id = $1 AND g.created_at >= ` + d.fromUnix("s.started") + `
		GROUP BY s.started, p.reality_checked_session, p.reality_checked_minutes`
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
