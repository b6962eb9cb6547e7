// Package apptest starts the whole application (app.New, as `starcolor serve` builds it) over a
// new test store (storetest.Open: SQLite, or PostgreSQL under STARCOLOR_TEST_STORE=postgres)
// holding a small emission built from a fixed seed, on an httptest server: what the end-to-end
// tests of the API, the player's page and the back office start from.
package apptest

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/emission"
	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/store"
	"starcolor/internal/storetest"
)

// Fast are password hashes cheap enough for tests.
var Fast = passhash.Argon2{Time: 1, Memory: 1024, Threads: 1}

// Options say what to start.
type Options struct {
	Blocks int  // of the emission "MINI" at 1 € (mini definition); 0: 1
	Seed   byte // its seed's first byte
	// Configure changes the game's policy (fast hashes and the default policy otherwise).
	Configure func(*game.Config)
	Now       func() time.Time // the clock (time.Now)
	Metrics   bool             // serve /metrics, on a server of its own (Env.MetricsURL)
	// Wallet puts the game in seamless wallet mode, its outbox sent in the background.
	Wallet *app.WalletConfig
	// Journal runs the journal's loop in the background (App.RunJournal), as serve does: its
	// tree extended every 500 ms and a checkpoint signed when due, on the server's clock. In
	// wallet mode it runs anyway, with the rest of the background.
	Journal bool
	// JournalKey is the servers' journal key (nil: one made for the test, shared by the servers).
	JournalKey *journal.Key
}

// Env is a running application.
type Env struct {
	URL        string
	MetricsURL string // where /metrics is, when Options.Metrics: not on URL, as serve keeps it
	Store      app.Store
	App        *app.App
	Def        *gamedef.Definition
	Emission   *emission.Emission
	JournalKey *journal.Key // the key the journal's checkpoints are signed with
}

// Start starts the application; it stops when the test ends.
func Start(t testing.TB, o Options) *Env {
	t.Helper()
	return StartServers(t, o, 1)[0]
}

// StartServers starts n servers of one game, each the whole application over a store of its own
// on one database (storetest.OpenServers), as n serve processes are on PostgreSQL. A SQLite file
// has one server (serve locks it): there the n are one server. They stop when the test ends.
func StartServers(t testing.TB, o Options, n int) []*Env {
	t.Helper()
	if o.Blocks == 0 {
		o.Blocks = 1
	}
	stores := storetest.OpenServers(t, n)
	if o.JournalKey == nil {
		// One journal, one key: the servers of one database share it, as they share its file.
		k, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
		if err != nil {
			t.Fatal(err)
		}
		o.JournalKey = k
	}
	def := gamedeftest.Mini(t)
	e := storetest.CreateEmission(t, stores[0], def, "MINI", 100, o.Blocks, o.Seed)
	envs := make([]*Env, n)
	for i, store := range stores {
		if i > 0 && store == stores[0] {
			envs[i] = envs[0]
			continue
		}
		envs[i] = start(t, o, store, def, e)
	}
	return envs
}

// start starts the application over a store holding the emission e.
func start(t testing.TB, o Options, store app.Store, def *gamedef.Definition, e *emission.Emission) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := game.DefaultConfig
	cfg.Argon2 = Fast
	if o.Configure != nil {
		o.Configure(&cfg)
	}
	a, err := app.New(ctx, store, app.Config{Game: cfg, Definition: def, Log: slog.New(slog.DiscardHandler), Now: o.Now, Metrics: o.Metrics,
		Wallet: o.Wallet, Journal: o.JournalKey})
	if err != nil {
		t.Fatal(err)
	}
	if o.Wallet != nil {
		go a.Background(ctx)
	} else if o.Journal {
		go a.RunJournal(ctx)
	}
	srv := httptest.NewServer(a.Handler())
	env := &Env{URL: srv.URL, Store: store, App: a, Def: def, Emission: e, JournalKey: o.JournalKey}
	var metrics *httptest.Server
	if h := a.Metrics(); h != nil {
		metrics = httptest.NewServer(h)
		env.MetricsURL = metrics.URL
	}
	t.Cleanup(func() {
		cancel()
		srv.Close()
		if metrics != nil {
			metrics.Close()
		}
	})
	return env
}

// DrainOutbox waits, 20 s at most, until a store in wallet mode owes the wallet nothing (the
// calls not yet acknowledged, counted at now on the server's clock: OutboxState).
//
// A test whose clock stands still passes that clock's advance. Otherwise a call that failed
// while the test moved its clock on is due again at the moved time plus a backoff, a time the
// clock never reaches. So:
//  1. for the first second, the wait leaves the clock alone (a drain that needs no retry ends
//     within it, and the test's clock reads as the test set it);
//  2. then each poll moves the clock on by a second: the longest backoff (1 min) passes in
//     under a second, and a call's signature (docs/spec/WALLET.md: 300 s) stays in its window.
//
// A nil advance leaves the clock alone.
func DrainOutbox(t testing.TB, books store.WalletBooks, now func() time.Time, advance func(time.Duration)) {
	t.Helper()
	start := time.Now()
	for deadline := start.Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := books.OutboxState(context.Background(), now())
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the outbox did not drain: %+v", st)
		}
		if advance != nil && time.Since(start) > time.Second {
			advance(time.Second)
		}
	}
}

// Books are the figures only real play moves, as the store gives them to the ledger check
// (`starcolor ledger check`), the back office's totals, reports and players, and the emissions'
// sold counts, written as bytes: for the tests that demo play leaves them alone, byte for byte.
func Books(t testing.TB, store app.Store) string {
	t.Helper()
	ctx := context.Background()
	check, err := store.CheckLedger(ctx)
	if err != nil || len(check.Problems) > 0 {
		t.Fatalf("ledger check: %+v, %v", check, err)
	}
	var figures []any
	add := func(v any, err error) {
		if err != nil {
			t.Fatal(err)
		}
		figures = append(figures, v)
	}
	add(check, nil)
	add(store.SalesTotals(ctx))
	add(store.OpenBlockSales(ctx))
	add(store.SalesOver(ctx, lottery.Hour, time.Unix(0, 0)))
	add(store.SalesBetween(ctx, lottery.Day, time.Unix(0, 0), time.Now().Add(48*time.Hour)))
	var sold []lottery.Game
	add(sold, store.SoldUnits(ctx, math.MaxInt64, func(g lottery.Game) error { sold = append(sold, g); return nil }))
	add(store.Emissions(ctx))
	players, err := store.FindPlayers(ctx, "", 1000)
	add(players, err)
	for _, p := range players {
		add(store.PlayerTotals(ctx, p.ID))
	}
	raw, err := json.Marshal(figures)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
