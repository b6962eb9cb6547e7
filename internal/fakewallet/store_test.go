package fakewallet

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"starcolor/internal/wallet"
)

// The calls written in one transaction: each that fails (refused, a statement failing, a panic)
// is undone alone, the others committed; a call whose caller has left before its turn is not run;
// a panic does not stop the writer.
func TestGroupCommit(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	// A first call holds the writer while the others queue, so that they make one batch.
	started, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		_, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
			close(started)
			<-release
			return Answer{}, nil
		})
		held <- err
	}()
	<-started

	insert := func(ctx context.Context, tx *txn, name string) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO players (player, balance, initial) VALUES (?, 0, 0)`, name)
		return err
	}
	const n = 40
	errs := make([]error, n)
	var ran [n]bool
	left, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range n {
		callCtx := ctx
		if i == n-1 {
			callCtx = left // its caller leaves before its turn
		}
		wg.Go(func() {
			_, errs[i] = s.write(callCtx, func(ctx context.Context, tx *txn) (Answer, error) {
				ran[i] = true
				name := fmt.Sprintf("p%d", i)
				if i == 7 {
					name = "p0" // a statement that fails: p0 is there already
				}
				if err := insert(ctx, tx, name); err != nil {
					return Answer{}, err
				}
				switch i % 4 {
				case 1:
					return Answer{}, errorf(CodeInvalid, "refused after a write")
				case 2:
					panic("a bug")
				}
				return Answer{}, nil
			})
		})
		for queued := 0; queued <= i; { // in order: p0 before p7
			time.Sleep(time.Millisecond)
			s.mu.Lock()
			queued = len(s.queue)
			s.mu.Unlock()
		}
	}
	cancel()
	close(release)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if got := s.batches.Load(); got != 2 {
		t.Errorf("%d transactions, want 2: the held call's and the others'", got)
	}
	want := map[string]bool{}
	for i, err := range errs {
		var code string
		switch {
		case i == n-1:
			code = CodeUnavailable
			if ran[i] {
				t.Errorf("call %d was run after its caller left", i)
			}
		case i == 7:
			code = CodeUnavailable
		case i%4 == 1:
			code = CodeInvalid
		case i%4 == 2:
			code = CodeInternal
		default:
			want[fmt.Sprintf("p%d", i)] = true
		}
		if (code == "") != (err == nil) || (err != nil && CodeOf(err) != code) {
			t.Errorf("call %d: %v (code %s), want code %q", i, err, CodeOf(err), code)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT player FROM players`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var p string
		rows.Scan(&p)
		got[p] = true
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("players %v, want %v", got, want)
	}
	// The writer goes on after the panics.
	if _, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) { return Answer{}, insert(ctx, tx, "after") }); err != nil {
		t.Fatal(err)
	}
}

// Closing the store writes the calls already waiting; a call after it is unavailable.
func TestCloseWritesTheCallsWaiting(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 2)
	go func() {
		_, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
			close(started)
			<-release
			return Answer{}, nil
		})
		done <- err
	}()
	<-started
	wrote := false
	go func() {
		_, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) {
			wrote = true
			return Answer{}, nil
		})
		done <- err
	}()
	for queued := 0; queued == 0; {
		time.Sleep(time.Millisecond)
		s.mu.Lock()
		queued = len(s.queue)
		s.mu.Unlock()
	}
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	for { // Close has begun: the store refuses new calls
		s.mu.Lock()
		c := s.closed
		s.mu.Unlock()
		if c {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-closed; err != nil || !wrote {
		t.Fatalf("close: %v, the call waiting written: %v", err, wrote)
	}
	if _, err := s.write(ctx, func(ctx context.Context, tx *txn) (Answer, error) { return Answer{}, nil }); CodeOf(err) != CodeUnavailable {
		t.Fatalf("a call after Close: %v", err)
	}
}

// balanceAnswer makes the bytes json.Marshal makes (of ids without <, >, &, U+2028 or U+2029,
// which it alone escapes).
func TestBalanceAnswer(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 7, 100_000, 1 << 40, math.MaxInt64, math.MinInt64} {
		for _, id := range []string{"", "debit-0190f3a1b2c3d4e5f6a7b8c9", `a "quoted" \ id`, "été\n\x01"} {
			want, _ := json.Marshal(wallet.Answer{Balance: v, TransactionID: id})
			if a := balanceAnswer(v, id); a.Status != 200 || string(a.Body) != string(want) {
				t.Errorf("%d %q: %d %s, want %s", v, id, a.Status, a.Body, want)
			}
		}
	}
}

// A file of version 1 (docs/spec/WALLET.md 1.0: answers without the echo) is upgraded when opened: the
// same debit again is answered its first answer with its transaction_id echoed, as 1.1 asks.
func TestUpgradeEchoesKeptAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wallet.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	req := debit("d1", "p1", 100)
	body, _ := json.Marshal(req)
	if _, err := s.Debit(context.Background(), req, body, ""); err != nil {
		t.Fatal(err)
	}
	// As version 1 kept it.
	if _, err := s.db.Exec(`UPDATE transactions SET answer = CAST(json_remove(CAST(answer AS TEXT), '$.transaction_id') AS BLOB);
		PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.Debit(context.Background(), req, body, "")
	if want := fmt.Sprintf(`{"balance":%d,"transaction_id":"d1"}`, DefaultInitialBalance-100); err != nil || string(a.Body) != want {
		t.Fatalf("the debit again after the upgrade: %s %v, want %s", a.Body, err, want)
	}
	var version int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 2 {
		t.Fatalf("version %d %v", version, err)
	}
}
