package ledgercheck_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/app"
	filltool "starcolor/internal/fill"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/ledgercheck"
)

// One check with a mark runs at a time on a database, whoever runs it (the servers, the
// command): while another holds the lease, a check is refused (ErrBusy), and an auditor's,
// which records nothing, is not. A check gives the lease back as it ends, and the next starts
// from its mark.
func TestOneCheckAtATime(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	key, err := journal.OpenKey(filepath.Join(dir, "journal.key"), "", true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := app.OpenStore(ctx, filepath.Join(dir, "busy.db"), &key.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := app.New(ctx, s, app.Config{Game: game.DefaultConfig, Definition: gamedeftest.Mini(t), Journal: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filltool.Run(ctx, a, filltool.Config{Games: 300, Players: 5, Heavy: 1}); err != nil {
		t.Fatal(err)
	}
	keys := journal.CompareOptions{Verifier: key.Verifier, AccountKey: &key.AccountKey}
	own := ledgercheck.Options{Compare: keys, Own: key, Holder: "this test"}
	now := time.Now()
	if _, err := s.TryLease(ctx, "ledger-check", "a server", now, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := ledgercheck.Run(ctx, s, own); !errors.Is(err, ledgercheck.ErrBusy) {
		t.Fatalf("a check while a server's holds the lease: %v, want ErrBusy", err)
	}
	r, err := ledgercheck.Run(ctx, s, ledgercheck.Options{Compare: keys})
	if err != nil || len(r.Problems) > 0 || r.Marked != nil || r.Books.Games != 300 {
		t.Fatalf("an auditor's check meanwhile: %v, %+v", err, r)
	}
	if err := s.ReleaseLease(ctx, "ledger-check", "a server"); err != nil {
		t.Fatal(err)
	}
	r, err = ledgercheck.Run(ctx, s, own)
	if err != nil || len(r.Problems) > 0 || r.Marked == nil || r.Since != nil {
		t.Fatalf("the full check once the lease is free: %v, %+v", err, r)
	}
	if got, err := s.TryLease(ctx, "ledger-check", "a server", now, now.Add(time.Minute)); err != nil || !got {
		t.Fatalf("the lease after the check: taken %v, %v; want it given back", got, err)
	}
	if err := s.ReleaseLease(ctx, "ledger-check", "a server"); err != nil {
		t.Fatal(err)
	}
	own.SinceLast = true
	r, err = ledgercheck.Run(ctx, s, own)
	if err != nil || len(r.Problems) > 0 || r.Since == nil || r.Since.Watermark.Games != 300 || r.Journal.Games != 0 {
		t.Fatalf("the check since: %v, %+v", err, r)
	}
}
