package main

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/httpapi"
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/throttle"
	"starcolor/internal/web"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[--addr HOST:PORT] [--db FILE] [--demo]",
		`Runs the game server: the player API of API.md over HTTP. On a database with no open emission
at a price, it first creates one (one block of 1,000,000 units) at that price. --demo also makes
sure that a player "demo" (password "demo") exists with at least 50 € of play money.`, stderr)
	db := dbFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "the `address` to listen on")
	demo := fs.Bool("demo", false, `ensure a player "demo" (password "demo") with 50 € of play money`)
	abandon := fs.Duration("abandon", game.DefaultConfig.AbandonAfter, "finish games left unfinished this long")
	idle := fs.Duration("session-idle", game.DefaultConfig.SessionIdle, "end sessions unused this long")
	lifetime := fs.Duration("session-lifetime", game.DefaultConfig.SessionLifetime, "end sessions this long after login")
	level := fs.String("log-level", "info", "the log `level`: debug, info, warn or error")
	debugAddr := fs.String("debug-addr", "", "serve Go's profiler (/debug/pprof) on this `address`, e.g. 127.0.0.1:6060")
	certFile := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate `file` (its chain, leaf first); needs --tls-key")
	keyFile := fs.String("tls-key", "", "the PEM private key `file` of --tls-cert")
	authRate := fs.Int("auth-per-minute", 60, "logins and sign-ups (players' and operators') each client address may make at once, then `N` a minute; 0: no limit (for a load test)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *authRate < 0 {
		return usageError(fs, "--auth-per-minute is 0 (no limit) or more")
	}
	if (*certFile == "") != (*keyFile == "") {
		return usageError(fs, "--tls-cert and --tls-key go together")
	}
	var tlsConfig *tls.Config
	if *certFile != "" {
		// Read before anything else, so that a wrong file is said at once.
		cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			return fmt.Errorf("TLS certificate: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return usageError(fs, "--log-level: %v", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: lv}))

	release, err := lockServed(*db)
	if err != nil {
		return err
	}
	defer release()
	store, err := sqlite.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.CheckWrite(ctx); err != nil {
		// Said at once; the server still starts, to answer what it can read, and /healthz says
		// so until the store can write again.
		log.Error("the store cannot write: every write is refused until it can", "db", *db, "err", err, "cause", errors.Unwrap(err))
	}
	if err := ensureEmissions(ctx, store, stderr, log); err != nil {
		return err
	}
	cfg := game.DefaultConfig
	cfg.AbandonAfter, cfg.SessionIdle, cfg.SessionLifetime = *abandon, *idle, *lifetime
	// One bound on the password hashes at once, and one rate per address, for the players' API and
	// the back office together.
	cfg.Hashes = passhash.DefaultGate()
	if *authRate > 0 {
		cfg.AuthRates = throttle.NewRates(*authRate, float64(*authRate)/60, time.Now)
	}
	svc := game.New(store, cfg, time.Now, log)
	if *demo {
		if err := ensureDemo(ctx, svc, store); err != nil {
			return fmt.Errorf("demo player: %w", err)
		}
	}
	// One listener serves everything; each part owns its paths.
	site := http.NewServeMux()
	api := httpapi.New(svc, store, log, httpapi.NewMetrics(store)).Handler()
	site.Handle("/api/", api)
	site.Handle("/", web.Default())
	site.Handle("/healthz", api)
	site.Handle("/metrics", api)
	site.Handle("/admin/", adminSite(ctx, store, log, cfg))
	srv := &http.Server{
		Handler:           hsts(site),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	log.Info("serving", "addr", scheme+"://"+ln.Addr().String(), "db", *db)
	fmt.Fprintf(stdout, "Star Color is served at %s://%s\n", scheme, ln.Addr())

	if *debugAddr != "" {
		// The profiler is on its own listener, never on the public one.
		debug := http.NewServeMux()
		debug.HandleFunc("/debug/pprof/", pprof.Index)
		debug.HandleFunc("/debug/pprof/profile", pprof.Profile)
		debug.HandleFunc("/debug/pprof/trace", pprof.Trace)
		go http.ListenAndServe(*debugAddr, debug)
	}
	go finishAbandoned(ctx, svc, log)
	go checkStore(ctx, svc, log)
	served := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Requests in flight finish; then the database is closed cleanly (deferred above).
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// hsts tells browsers that reached the server over HTTPS to keep to HTTPS for a year: the
// session cookies are Secure there, and the page's proof check needs a secure context.
func hsts(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		}
		h.ServeHTTP(w, r)
	})
}

// ensureEmissions creates one block at each price that has no open emission, so that the game
// is playable at every stake right away.
func ensureEmissions(ctx context.Context, store *sqlite.DB, stderr io.Writer, log *slog.Logger) error {
	open, err := store.OpenEmissionPrices(ctx)
	if err != nil {
		return err
	}
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		return err
	}
	for _, t := range def.Tables {
		if open[t.Price] {
			continue
		}
		id := fmt.Sprintf("%s-%deur", time.Now().UTC().Format("20060102-150405"), t.Price/100)
		var seed [emission.SeedSize]byte
		crand.Read(seed[:])
		e := &emission.Emission{ID: id, Price: t.Price, Definition: def.Version, Table: t, CreatedAt: time.Now().UTC()}
		bar := newProgressBar(stderr, "emission "+id)
		err := store.CreateEmission(ctx, e, seed, func(put func(emission.Page) error) ([]emission.Block, error) {
			return emission.Build(ctx, emission.Plan{Definition: def, Price: t.Price, Blocks: 1, Seed: seed}, put, bar.Update)
		})
		bar.Done()
		if err != nil {
			return fmt.Errorf("creating an emission at %s: %w", gamedef.FormatEUR(t.Price), err)
		}
		log.Info("emission created", "id", id, "price", t.Price, "root", fmt.Sprintf("%x", e.Blocks[0].Root))
	}
	return nil
}

// ensureDemo makes sure the demo player exists with at least 50 € of play money. Its password,
// "demo", is one no player could choose (game.Passwords): the account is made here, for trying
// the game on one's own machine, not through the API.
func ensureDemo(ctx context.Context, svc *game.Service, store *sqlite.DB) error {
	hash := svc.Config().Argon2.Hash("demo")
	err := store.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.CreatePlayer("demo", hash, time.Now())
		return err
	})
	if err != nil && !fault.Is(err, fault.UsernameTaken) {
		return err
	}
	p, err := store.PlayerByName(ctx, "demo")
	if err != nil {
		return err
	}
	if p.Balance >= 5000 {
		return nil
	}
	return store.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := svc.Deposit(tx, game.Player{ID: p.ID, AccountID: p.AccountID}, 5000-p.Balance)
		return err
	})
}

// storeCheckEvery is how often the whole store is checked against the emissions' commitments,
// beside the checks of every page as it is read; the first check runs at start.
const storeCheckEvery = 24 * time.Hour

// storePause is the rest after each page the background check reads: it checks about a page a
// millisecond (a block in about 5 s), and leaves the machine to the sales.
const storePause = time.Millisecond

// checkStore checks the store at start, then every storeCheckEvery (game.Service.CheckStore):
// what it finds is logged as an error, counted in the metrics, and said by /healthz.
func checkStore(ctx context.Context, svc *game.Service, log *slog.Logger) {
	for {
		start := time.Now()
		pages, err := svc.CheckStore(ctx, storePause)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("checking the store", "err", err)
		case len(svc.Problems()) > 0:
			log.Error("the store is damaged", "pages", pages, "problems", svc.Problems())
		default:
			log.Info("store checked: every unit matches its commitment, the file is sound", "pages", pages, "took", time.Since(start).Round(time.Millisecond).String())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(storeCheckEvery):
		}
	}
}

// keySweepEvery is how often the idempotency keys are swept for old ones. Keys are kept 48 hours
// (game.KeepKeys) where 24 are promised, so once an hour is plenty; each sweep reads the whole
// key table, beside the writer.
const keySweepEvery = time.Hour

// finishAbandoned finishes, once a minute, the games left unfinished too long and deletes the
// sessions that have ended, and once an hour forgets the idempotency keys old enough.
func finishAbandoned(ctx context.Context, svc *game.Service, log *slog.Logger) {
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	var lastSweep time.Time
	for {
		if n, err := svc.FinishAbandoned(ctx); err != nil && ctx.Err() == nil {
			log.Error("finishing abandoned games", "err", err)
		} else if n > 0 {
			log.Info("abandoned games finished", "games", n)
		}
		if err := svc.ForgetExpiredSessions(ctx); err != nil && ctx.Err() == nil {
			log.Error("deleting ended sessions", "err", err)
		}
		if time.Since(lastSweep) >= keySweepEvery {
			lastSweep = time.Now()
			if n, err := svc.ForgetOldKeys(ctx); err != nil && ctx.Err() == nil {
				log.Error("forgetting old idempotency keys", "err", err)
			} else if n > 0 {
				log.Info("old idempotency keys forgotten", "keys", n, "took", time.Since(lastSweep).Round(time.Millisecond))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
