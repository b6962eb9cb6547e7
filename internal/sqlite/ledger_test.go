package sqlite

import (
	"context"
	"strings"
	"testing"
)

// The writer's connection does not check foreign keys at each write (writer.go): the ledger check
// checks every reference instead, and finds one to nothing.
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
	if _, err := conn.ExecContext(ctx, `INSERT INTO idempotency (player_id, key, request_hash, status, response, created_at) VALUES (999, 'k', x'00', 201, x'00', 0)`); err != nil {
		t.Fatal(err)
	}
	c, err := d.CheckLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(c.Problems, "\n"); !strings.Contains(all, "foreign keys): 1") {
		t.Fatalf("dangling reference not found: %q", all)
	}
}
