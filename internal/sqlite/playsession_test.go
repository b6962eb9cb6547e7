package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"starcolor/internal/lottery"
	"starcolor/internal/sqlstore"
)

// The play session is read at every GET /api/v1/me: it finds the player's sessions through
// their owner, and the player's and account's rows by their keys. No game is read, whatever the
// history: the totals since the session opened are the account's less the session's.
func TestPlaySessionPlan(t *testing.T) {
	d := mustOpen(t)
	steps := fmt.Sprint(queryPlan(t, d, sqlstore.PlaySessionQuery(sqlstore.SQLite), 1, 2, 3))
	// (SCAN s is the one row of the session's start.)
	if strings.Contains(steps, "SCAN sessions") || strings.Contains(steps, "games") ||
		!strings.Contains(steps, "sessions_by_owner") ||
		!strings.Contains(steps, "SEARCH p USING INTEGER PRIMARY KEY") || !strings.Contains(steps, "SEARCH a USING INTEGER PRIMARY KEY") {
		t.Errorf("reading a play session: plan %q, want the sessions by owner, the player and account by key, no game", steps)
	}
}

// A session opened before migration 0039 gets the totals of the games sold before it opened, so
// that its play session still sums the games since: those of the games' index by time, which
// the migration drops.
func TestPlaySessionMigration(t *testing.T) {
	f := newSalesFixture(t)
	ctx := context.Background()
	p := f.player(t, "before", 1_000_000)
	var staked, won int64
	var opened time.Time
	for i := range 40 {
		f.now = f.now.Add(7 * time.Minute)
		if i == 25 {
			opened = f.now
			s := lottery.Session{Hash: []byte(fmt.Sprintf("%-32s", "phone")), Kind: lottery.PlayerSession, OwnerID: p.ID,
				CreatedAt: opened.Unix(), LastSeen: opened.Unix()}
			if err := f.d.CreateSession(ctx, s); err != nil {
				t.Fatal(err)
			}
			f.now = f.now.Add(time.Second)
		}
		g, err := f.sell(p, fmt.Sprintf("k%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if i >= 25 {
			staked, won = staked+g.Stake, won+g.Prize
		}
	}
	d := f.reopenBefore(t, append(beforeSaleRows, `CREATE INDEX games_by_player_time ON games(player_id, created_at, stake, prize)`,
		`ALTER TABLE sessions DROP COLUMN games_at_open`, `ALTER TABLE sessions DROP COLUMN staked_at_open`,
		`ALTER TABLE sessions DROP COLUMN won_at_open`, `DELETE FROM schema_migrations WHERE version = 39`)...)
	ps, err := d.PlaySession(ctx, p.ID, opened.Add(-time.Hour), opened.Add(-time.Hour))
	if err != nil || !ps.StartedAt.Equal(opened) || ps.Games != 15 || ps.Staked != staked || ps.Won != won {
		t.Fatalf("the play session after the migration: %+v %v; want 15 games, %d staked, %d won, from %v", ps, err, staked, won, opened)
	}
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'games_by_player_time'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the games' index by time after the migration: %d %v", n, err)
	}
}
