package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	t.Parallel() // a long one: see TestMain
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
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's own high-water mark, read from /proc while it runs. (Its rusage would not do:
	// Go starts a child on the test's memory until the exec, and Linux counts the test's peak in
	// the child's.)
	var rss int64
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(10 * time.Millisecond):
			rss = max(rss, highWater(cmd.Process.Pid))
		}
	}
	if err != nil || !strings.Contains(out.String(), "OK: the books balance") {
		t.Fatalf("ledger check: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "games 100000") {
		t.Errorf("ledger check did not read the %d games:\n%s", games, out.String())
	}
	if rss == 0 {
		t.Skip("no /proc/PID/status to read the process's memory from")
	}
	t.Logf("ledger check of %d games: peak resident memory %d MB", games, rss>>20)
	if rss > ledgerMemory {
		t.Errorf("ledger check held %d MB at its peak, more than %d MB", rss>>20, ledgerMemory>>20)
	}
}

// highWater is a running process's peak resident memory, in bytes (VmHWM of /proc/PID/status);
// 0 if it cannot be read.
func highWater(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}
