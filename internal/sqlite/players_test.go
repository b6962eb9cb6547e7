package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The sweep of ended sessions goes through the writer, which every sale waits for: it finds
// them through the indexes on their kind and times, reading no whole table. (That it deletes
// exactly the ended ones is the stores' contract: storetest.)
func TestDeleteExpiredSessionsPlan(t *testing.T) {
	d := mustOpen(t)
	steps := queryPlan(t, d, `DELETE FROM sessions WHERE kind = ? AND (last_seen < ? OR created_at < ?)`, "player", 1, 2)
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
		INSERT INTO sessions (token_hash, kind, owner_id, created_at, last_seen) SELECT randomblob(32), 'player', 1 + i % 5000, 2000000000, 2000000000 FROM n`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	conn.Close()
	for _, c := range []struct{ name, sql string }{
		{"indexed", `DELETE FROM sessions WHERE kind = 'player' AND (last_seen < ? OR created_at < ?)`},
		{"scan", `DELETE FROM sessions NOT INDEXED WHERE kind = 'player' AND (last_seen < ? OR created_at < ?)`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := d.update(ctx, func(t *tx) error { _, err := t.exec(c.sql, 1000, 1000); return err }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
