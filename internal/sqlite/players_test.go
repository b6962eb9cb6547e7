package sqlite

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Ended sessions, idle too long or too old, are deleted, the live ones kept, and finding them
// reads no whole table: the sweep goes through the writer, which every sale waits for.
func TestDeleteExpiredSessions(t *testing.T) {
	f := newSalesFixture(t)
	ctx := context.Background()
	p := f.player(t, "sam", 1)
	now := f.now
	type session struct {
		name              string
		created, lastSeen time.Duration // before now
		live              bool
	}
	sessions := []session{
		{"fresh", 5 * time.Minute, time.Minute, true},
		{"idle", 2 * time.Hour, 31 * time.Minute, false},
		{"just within idle", 2 * time.Hour, 29 * time.Minute, true},
		{"too old though busy", 13 * time.Hour, time.Minute, false},
		{"old but within lifetime", 11 * time.Hour, time.Minute, true},
	}
	hash := func(name string) []byte { h := sha256.Sum256([]byte(name)); return h[:] }
	for _, s := range sessions {
		err := f.d.Update(ctx, func(tx *Tx) error {
			if err := tx.CreateSession(hash(s.name), p.ID, now.Add(-s.created)); err != nil {
				return err
			}
			return tx.TouchSession(hash(s.name), now.Add(-s.lastSeen))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.d.Update(ctx, func(tx *Tx) error {
		return tx.DeleteExpiredSessions(now.Add(-30*time.Minute), now.Add(-12*time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		var n int
		if err := f.d.db.QueryRow(`SELECT count(*) FROM sessions WHERE token_hash = ?`, hash(s.name)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n == 1) != s.live {
			t.Errorf("session %q: %d rows, live %v", s.name, n, s.live)
		}
	}
	steps := queryPlan(t, f.d, `DELETE FROM sessions WHERE last_seen < ? OR created_at < ?`, 1, 2)
	if s := fmt.Sprint(steps); strings.Contains(s, "SCAN sessions") || !strings.Contains(s, "sessions_by_last_seen") || !strings.Contains(s, "sessions_by_created") {
		t.Errorf("deleting ended sessions: plan %q, want both indexes and no read of the whole table", steps)
	}
}

// queryPlan is how SQLite would run a statement: the details of its EXPLAIN QUERY PLAN steps.
func queryPlan(t *testing.T, d *DB, query string, args ...any) []string {
	t.Helper()
	rows, err := d.db.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// BenchmarkDeleteExpiredSessions is the sweep of ended sessions over 100,000 live ones (nothing
// to delete), through the writer: with the indexes on the sessions' times ("indexed"), and
// reading the whole table as before migration 0006 ("scan"; once at every login then).
func BenchmarkDeleteExpiredSessions(b *testing.B) {
	ctx := context.Background()
	d := mustOpen(b)
	conn, err := d.db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{`PRAGMA foreign_keys = OFF`, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
		INSERT INTO sessions (token_hash, player_id, created_at, last_seen) SELECT randomblob(32), 1 + i % 5000, 2000000000, 2000000000 FROM n`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	conn.Close()
	for _, c := range []struct{ name, sql string }{
		{"indexed", `DELETE FROM sessions WHERE last_seen < ? OR created_at < ?`},
		{"scan", `DELETE FROM sessions NOT INDEXED WHERE last_seen < ? OR created_at < ?`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := d.Update(ctx, func(tx *Tx) error { _, err := tx.exec(c.sql, 1000, 1000); return err }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
