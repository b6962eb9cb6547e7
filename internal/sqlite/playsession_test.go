package sqlite

import (
	"fmt"
	"strings"
	"testing"

	"starcolor/internal/sqlstore"
)

// The play session is read at every GET /api/v1/me: it finds the player's sessions through
// their owner, and sums the player's games since the session began from the games' index by
// player and time alone (a covering index: no row of the table read), whatever the history.
func TestPlaySessionPlan(t *testing.T) {
	d := mustOpen(t)
	steps := fmt.Sprint(queryPlan(t, d, sqlstore.PlaySessionQuery(sqlstore.SQLite), 1, 2, 3))
	// (SCAN s is the one row of the session's start.)
	if strings.Contains(steps, "SCAN sessions") || strings.Contains(steps, "SCAN g") || strings.Contains(steps, "SCAN games") ||
		!strings.Contains(steps, "sessions_by_owner") ||
		!strings.Contains(steps, "COVERING INDEX games_by_player_time") {
		t.Errorf("reading a play session: plan %q, want the sessions by owner, the covering index of games by time, no scan", steps)
	}
}
