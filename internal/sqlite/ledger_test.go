package sqlite

import (
	"context"
	"strings"
	"testing"
)

// The writer's connection does not check foreign keys at each write (writer.go): the ledger check
// checks every reference instead, and finds one to nothing: in the table the books' checks read
// (the idempotency keys), and in one only SQLite's foreign keys name (the limits' changes).
func TestLedgerFindsDanglingReferences(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t)
	if c, err := d.CheckLedger(ctx); err != nil || len(c.Problems) > 0 {
		t.Fatalf("an empty ledger: %+v, %v", c, err)
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES (999, 'k', x'00', 201, x'00', 0)`,
		`INSERT INTO limit_changes (player_id, kind, old, new, requested_at, effective_at, by) VALUES (999, 'deposit_weekly', NULL, 5, 0, 0, 'player')`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c, err := d.CheckLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(c.Problems, "\n")
	for _, want := range []string{"idempotency keys of players that do not exist: 1", "foreign keys): 1"} {
		if !strings.Contains(all, want) {
			t.Errorf("dangling reference not found: want %q in %q", want, all)
		}
	}
}
