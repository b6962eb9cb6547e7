package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"starcolor/internal/app"
	filltool "starcolor/internal/fill"
	"starcolor/internal/game"
	"starcolor/internal/journal"
)

// ledgerMemory is the most ledger check may hold, whatever the history (issue 24): it streams
// what it reads, maps 32 MB of the file on each connection and sorts in temporary files.
const ledgerMemory = 512 << 20

// ledger check, as a process of its own, on a database that the fill tool filled with 100,000
// sales of the real game: it passes, and its peak resident memory, every page of the file it
// mapped included, stays under ledgerMemory. Its growth with the history is measured in
// docs/PERFORMANCE.md (scripts/bench-growth.sh); this is the bound that can be checked cheaply.
func TestLedgerCheckMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 100,000 games: about 20 s")
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "filled.db")
	key, err := journal.OpenKey(journalKeyPath(db), "", true)
	if err != nil {
		t.Fatal(err)
	}
	store, err := app.OpenStore(ctx, db, &key.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, store, app.Config{Game: game.DefaultConfig, Journal: key})
	if err != nil {
		t.Fatal(err)
	}
	const games = 100_000
	if _, err := filltool.Run(ctx, a, filltool.Config{Games: games}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "ledger", "check", "--db", db)
	cmd.Env = append(os.Environ(), "STARCOLOR_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK: the books balance") {
		t.Fatalf("ledger check: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "games 100000") {
		t.Errorf("ledger check did not read the %d games:\n%s", games, out)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("ledger check of %d games: peak resident memory %d MB", games, rss>>20)
	if rss > ledgerMemory {
		t.Errorf("ledger check held %d MB at its peak, more than %d MB", rss>>20, ledgerMemory>>20)
	}
}
