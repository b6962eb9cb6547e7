package main

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"starcolor/internal/fakewallet/fakewallettest"
	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// A server in wallet mode stopped gracefully forgets the rollbacks it held ahead of its players'
// next sales (their debits were never sent), so that a restart does not send the wallet a
// rollback for every player who had just played; one killed leaves them to the sweep.
func TestWalletStopForgetsRollbacksHeldAhead(t *testing.T) {
	if testing.Short() {
		t.Skip("creates an emission of 3,000,000 units at start; skipped with -short")
	}
	w := fakewallettest.Start(t, []byte("stop secret"))
	db := filepath.Join(t.TempDir(), "stop.db")
	args := []string{"--auth-per-minute", "0", "--wallet", w.URL, "--wallet-secret-file", w.SecretFile}
	heldAhead := func() int {
		t.Helper()
		store, err := openStore(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		calls, err := store.WalletCalls(context.Background(), lottery.CallHeld, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range calls {
			if c.Call == wallet.CallRollback && c.GameID == 0 {
				n++
			}
		}
		return n
	}
	play := func(srv *server, who string) {
		t.Helper()
		p, err := launchPlayer(srv.url, w.Secret, who)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if st, raw, err := p.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, fmt.Sprint(who, "-", i)); err != nil || st != 201 {
				t.Fatalf("%s's sale %d: %d %s %v", who, i, st, raw, err)
			}
		}
	}
	for _, stop := range []struct {
		name string
		sig  syscall.Signal
		want int
	}{{"SIGTERM", syscall.SIGTERM, 0}, {"SIGKILL", syscall.SIGKILL, 2}} {
		srv := startServer(t, db, args...)
		play(srv, "op-a-"+stop.name)
		play(srv, "op-b-"+stop.name)
		srv.cmd.Process.Signal(stop.sig)
		srv.cmd.Wait()
		if n := heldAhead(); n != stop.want {
			t.Fatalf("after %s, %d rollbacks held ahead of no sale, want %d\n%s", stop.name, n, stop.want, srv.logs)
		}
	}
}
