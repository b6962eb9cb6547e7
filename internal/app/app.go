// Package app wires the parts of `starcolor serve` into one application over one store: the
// game service, the player API with its metrics, the player's page, the back office, and the work
// they do in the background. serve builds it with New, and so does every end-to-end test
// (internal/app/apptest), so that what is tested is what runs.
package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/httpapi"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
	"starcolor/internal/wallet"
	"starcolor/internal/web"
)

// Store is a whole store, as `starcolor` opens one (OpenStore): store.Store, named here for the
// commands and the end-to-end tests that hold one.
type Store = store.Store

// Config is the application's policy and its surroundings.
type Config struct {
	Game       game.Config
	Definition *gamedef.Definition // new emissions of the back office are made with it (gamedef.Default)
	Log        *slog.Logger        // (discarded)
	Now        func() time.Time    // the clock (time.Now)
	Metrics    bool                // keep metrics, for App.Metrics
	// TrustedProxies are the load balancers whose X-Forwarded-For names the client (none: the
	// server faces its clients).
	TrustedProxies []netip.Prefix
	// Wallet, when set, puts the game in seamless wallet mode (docs/spec/WALLET.md): the operator's wallet
	// holds the players' money.
	Wallet *WalletConfig
	// Journal is the journal's key (journal.OpenKey): the checkpoints this server signs are
	// signed with it. It must be the journal's (New refuses another).
	Journal *journal.Key
}

// walletLinger is how long the SQLite writer waits for more writes to join a small batch in
// wallet mode (sqlite.DB.Linger): a sale waits some milliseconds for the wallet anyway.
const walletLinger = time.Millisecond

// WalletConfig is the operator's wallet: its URL, the secret both sides sign with, and Star
// Color's public address for the launch links (empty: the address the launch call came to).
type WalletConfig struct {
	URL       string
	Secret    []byte
	PublicURL string
	Timeout   time.Duration // a call to the wallet waits at most this (2 s)
	DebitWait time.Duration // a sale waits at most this for its debit, sent again meanwhile (4 s)
	// RetryBase is the outbox's first wait before it sends a call again (1 s; docs/spec/WALLET.md: at
	// most a second), doubled at each sending up to a minute.
	RetryBase time.Duration
}

// App is the application over one store.
type App struct {
	sender *wallet.Sender // wallet mode's outbox sender (nil: no wallet)
	// loops run in the background beside the sweeps, as the mode chosen at start asks: in wallet
	// mode, the outbox's sender, the sweep of held calls and the forgetting of unused rollbacks.
	loops []func(context.Context)
	// heldFor is how long a rollback may stay held before the sweep takes its debit for one a
	// crash left: longer than a sale waits for its debit.
	heldFor time.Duration
	Store   Store
	Game    *game.Service
	Admin   *admin.Server
	API     *httpapi.Server
	// Journal builds the journal's tree and signs its checkpoints (RunJournal), and answers its
	// calls and the games' proofs.
	Journal *journal.Log
	key     *journal.Key // the journal's: the store's check keeps its mark with it
	log     *slog.Logger
	now     func() time.Time
	holder  string
	handler http.Handler
}

// New builds the application. What it does in the background (Background) and the emissions the
// back office creates stop when ctx ends.
func New(ctx context.Context, store Store, cfg Config) (*App, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Definition == nil {
		def, err := gamedef.Lookup(gamedef.Default)
		if err != nil {
			return nil, err
		}
		cfg.Definition = def
	}
	// One definition is on sale: the stakes the game takes are the prices of its tables.
	if cfg.Game.Definition == nil {
		cfg.Game.Definition = cfg.Definition
	}
	if err := CheckJournalKey(ctx, store, cfg.Journal); err != nil {
		return nil, err
	}
	a := &App{Store: store, key: cfg.Journal, log: cfg.Log, now: cfg.Now, holder: NewHolder()}
	a.Journal = journal.NewLog(store, cfg.Journal)
	a.Game = game.New(store, cfg.Game, cfg.Now, cfg.Log)
	a.Game.WithJournal(a.Journal)
	// Demo games are drawn from the tables new emissions are made with.
	if err := a.Game.EnableDemo(cfg.Definition, store); err != nil {
		return nil, err
	}
	var metrics *httpapi.Metrics
	if cfg.Metrics {
		metrics = httpapi.NewMetrics(store, cfg.Now)
		metrics.Table(cfg.Definition)
	}
	a.API = httpapi.New(a.Game, store, cfg.Log, metrics)
	a.API.EnableJournal(a.Journal, cfg.Journal.VerifierKey)
	a.API.EnableOperators(httpapi.OperatorConfig{Store: store, Rate: cfg.Game.AuthRate, Now: cfg.Now, SessionsEnded: a.Game.SessionsEnded,
		Definition: cfg.Definition, Approved: func(ctx context.Context) error { return a.Admin.StartApproved(ctx) }})
	a.loops = append(a.loops, a.RunJournal, a.RunLife)
	if w := cfg.Wallet; w != nil {
		timeout := w.Timeout
		if timeout <= 0 {
			timeout = 2 * time.Second
		}
		// One key for both clients: its HMACs are pooled. The requests are stamped on the
		// server's clock, the one its sessions, keys and outbox go by (docs/spec/WALLET.md 1.1: the wallet
		// holds them to its own within 300 s).
		key := wallet.NewKey(w.Secret)
		client := wallet.NewClient(w.URL, key, timeout)
		client.Now = cfg.Now
		// The outbox's calls wait longer than a player's debit: nobody waits for them, and a
		// slow wallet answered is a call settled.
		outbox := wallet.NewClient(w.URL, key, max(timeout, 10*time.Second))
		outbox.Now = cfg.Now
		a.sender = &wallet.Sender{Store: store, Client: outbox, Now: cfg.Now, Log: cfg.Log, Base: w.RetryBase}
		gw := &game.Wallet{Store: store, Client: client, Outbox: a.sender, DebitWait: w.DebitWait}
		a.Game.WithWallet(gw)
		// The balance a credit or a rollback was answered with is the one the player is shown.
		a.sender.Answered = func(c lottery.WalletCall, balance int64) { a.Game.NoteWalletBalance(c.Player, balance) }
		// From a held rollback's NextAt: its sale has started by then (game/wallet_ahead.go).
		a.heldFor = gw.DebitWait + timeout + 10*time.Second
		if l, ok := store.(interface{ Linger(time.Duration) }); ok {
			// Sales come to the writer one by one, each after its own wait for the wallet.
			l.Linger(walletLinger)
		}
		a.API.EnableLaunch(w.Secret, w.PublicURL, cfg.Now)
		a.loops = append(a.loops, a.sender.Run, a.walletSweep, a.dropUnusedRollbacks)
	}
	a.Admin = admin.New(ctx, store, admin.Config{Definition: cfg.Definition, Argon2: cfg.Game.Argon2, Hashes: cfg.Game.Hashes,
		AuthRate: cfg.Game.AuthRate, SessionIdle: cfg.Game.SessionIdle, SessionLifetime: cfg.Game.SessionLifetime,
		Now: cfg.Now, Log: cfg.Log, Holder: a.holder, SessionsEnded: a.Game.SessionsEnded, Problems: a.Game.Problems, Replay: a.Game.Replay})
	// One handler serves everything; each part owns its paths.
	site := http.NewServeMux()
	api := a.API.Handler()
	site.Handle("/api/", api)
	site.Handle("/healthz", api)
	site.Handle("/", a.API.Launches(web.Default(web.Options{Wallet: cfg.Wallet != nil})))
	site.Handle("/admin/", a.Admin.Handler())
	a.handler = behindProxies(cfg.TrustedProxies, site)
	return a, nil
}

// CheckJournalKey refuses a server with no key, or with a key that is not the one the journal's
// checkpoints are signed for (journal.ErrOtherKey): such a server could serve the journal but
// never sign it, its proofs would wait for ever, and the account references of the entries it
// wrote would be another key's. serve calls it before its first write; New calls it again.
func CheckJournalKey(ctx context.Context, store Store, key *journal.Key) error {
	if key == nil {
		return errors.New("app: the journal's key is required (journal.OpenKey)")
	}
	st, err := store.JournalState(ctx)
	if err != nil {
		return fmt.Errorf("app: reading the journal's state: %w", err)
	}
	if st.Verifier != "" && st.Verifier != key.VerifierKey {
		return fmt.Errorf("%w: the database's journal is signed for the key %s, and this server's key is %s; "+
			"start it with the journal's key file (--journal-key)", journal.ErrOtherKey, st.Verifier, key.VerifierKey)
	}
	return nil
}

// Handler serves the whole site: the API, /healthz, the player's page, /admin/.
func (a *App) Handler() http.Handler { return a.handler }

// Metrics serves the Prometheus metrics at /metrics, for a listener of their own that players do
// not reach (nil without metrics).
func (a *App) Metrics() http.Handler {
	h := a.API.Metrics()
	if h == nil {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	return mux
}

// NewHolder names this process in the store's leases: its host, its pid and a random part.
func NewHolder() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b[:])
}
