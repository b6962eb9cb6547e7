package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"starcolor/internal/fault"
)

// The ledger check finds money created out of nothing, and a balance that disagrees with its
// transfers; a refused transfer leaves nothing behind.
func TestLedgerCheck(t *testing.T) {
	ctx := context.Background()
	d := mustOpen(t)
	now := time.Now()
	var alice Player
	err := d.Update(ctx, func(tx *Tx) error {
		var err error
		if alice, err = tx.CreatePlayer("alice", "x", now); err != nil {
			return err
		}
		return tx.Transfer(BankAccount, alice.AccountID, 1000, "deposit", 0, now)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Update(ctx, func(tx *Tx) error { return tx.Transfer(alice.AccountID, BankAccount, 1001, "withdrawal", 0, now) })
	if !fault.Is(err, fault.InsufficientFunds) {
		t.Fatalf("overdraft: %v", err)
	}
	c, err := d.CheckLedger(ctx)
	if err != nil || len(c.Problems) > 0 || c.Players != 1000 || c.Bank != -1000 || c.Transfers != 1 {
		t.Fatalf("clean ledger: %+v, %v", c, err)
	}
	// Money appears in an account without a transfer.
	if _, err := d.db.Exec(`UPDATE accounts SET balance = balance + 5 WHERE id = ?`, alice.AccountID); err != nil {
		t.Fatal(err)
	}
	c, err = d.CheckLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(c.Problems, "\n")
	if !strings.Contains(all, "sum to 5 cents") || !strings.Contains(all, "transfers add up to 1000") {
		t.Fatalf("problems found: %q", all)
	}
	if _, err := d.db.Exec(`DELETE FROM transfers`); err == nil {
		t.Fatal("transfers could be deleted")
	}
	// A reference to nothing, written where foreign keys are not checked, is found.
	conn, err := d.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO sessions (token_hash, player_id, created_at, last_seen) VALUES (x'00', 999, 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if c, err = d.CheckLedger(ctx); err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(c.Problems, "\n"); !strings.Contains(all, "foreign keys): 1") {
		t.Fatalf("dangling reference not found: %q", all)
	}
}
