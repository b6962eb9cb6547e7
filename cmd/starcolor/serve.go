package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/cmdline"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/gamedef"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	starstore "starcolor/internal/store"
	"starcolor/internal/throttle"
	"starcolor/internal/wallet"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[--addr HOST:PORT] [--db FILE|URL] [--demo]",
		`Runs the game server: the player API of docs/spec/API.md over HTTP, the player's page and the back
office. On a database with no open emission at a price, it first creates one (one block of
1,000,000 units) at that price. --demo also makes sure that a player "demo" (password "demo")
exists with at least 50 € of play money.

Over a SQLite file one server sells at a time; over a PostgreSQL database (--db postgres://…)
any number of servers may serve the same game, behind a load balancer: they keep nothing of it
but what never changes.`, stderr)
	db := dbFlag(fs)
	journalKey := fs.String("journal-key", os.Getenv(journalKeyEnv), "the journal's key `file`, made when absent ($STARCOLOR_JOURNAL_KEY; default: beside the SQLite file, FILE.journal-key, or starcolor-journal.key here for PostgreSQL)")
	journalName := fs.String("journal-name", "", "the `name` of the journal's key when it is made, the first line of its checkpoints (default: starcolor-journal- and 8 random hex digits); a key file of another name is refused")
	addr := fs.String("addr", "127.0.0.1:8080", "the `address` to listen on")
	demo := fs.Bool("demo", false, `ensure a player "demo" (password "demo") with 50 € of play money`)
	abandon := fs.Duration("abandon", game.DefaultConfig.AbandonAfter, "finish games left unfinished this long")
	idle := fs.Duration("session-idle", game.DefaultConfig.SessionIdle, "end sessions unused this long")
	lifetime := fs.Duration("session-lifetime", game.DefaultConfig.SessionLifetime, "end sessions this long after login")
	level := fs.String("log-level", "info", "the log `level`: debug, info, warn or error")
	debugAddr := fs.String("debug-addr", "", "serve Go's profiler (/debug/pprof) on this loopback `address`, e.g. 127.0.0.1:6060")
	metricsAddr := fs.String("metrics-addr", defaultMetricsAddr, "serve the Prometheus metrics (/metrics) on this `address`, apart from the players' (loopback by default; \"off\" for none)")
	certFile := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate `file` (its chain, leaf first); needs --tls-key")
	keyFile := fs.String("tls-key", "", "the PEM private key `file` of --tls-cert")
	walletURL := fs.String("wallet", "", "seamless wallet mode (docs/spec/WALLET.md): the operator's wallet `URL`, which holds the players' money; its calls are URL/balance, /debit, /credit, /rollback; https://, or http:// on a loopback address only")
	walletInsecure := fs.Bool("wallet-insecure-http", false, "accept a plain http:// --wallet URL to a host that is not a loopback address (a test bench only: the players' movements cross the network in the clear)")
	walletSecretFile := fs.String("wallet-secret-file", "", "the `file` holding the secret the wallet and Star Color sign with (else $STARCOLOR_WALLET_SECRET)")
	publicURL := fs.String("public-url", "", "Star Color's public `URL`, for the launch links of wallet mode (default: the address the launch call came to)")
	proxies := fs.String("trusted-proxy", "", "the load balancers in front of the server, by `address` or CIDR prefix (comma-separated): their X-Forwarded-For names the client, for the limits per address and the logs")
	demoBalance := fs.Int64("demo-balance", game.DefaultDemo.Balance, "the play money a visitor's demo session (POST /api/v1/demo) starts with, in `cents`")
	demoRate := fs.Int("demo-per-minute", 6, "demo sessions each client address may start at once, then `N` a minute; 0: no limit")
	authRate := fs.Int("auth-per-minute", 60, "logins and sign-ups (players' and operators') each client address may make at once, then `N` a minute; 0: no limit (for a load test)")
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *authRate < 0 {
		return cmdline.UsageError(fs, "--auth-per-minute is 0 (no limit) or more")
	}
	if *demoBalance <= 0 || *demoBalance > game.DefaultConfig.MaxDeposit {
		return cmdline.UsageError(fs, "--demo-balance is 1 to %d cents", game.DefaultConfig.MaxDeposit)
	}
	if *demoRate < 0 {
		return cmdline.UsageError(fs, "--demo-per-minute is 0 (no limit) or more")
	}
	if *debugAddr != "" {
		if err := checkLoopback(*debugAddr); err != nil {
			return cmdline.UsageError(fs, "--debug-addr: %v", err)
		}
	}
	if *metricsAddr == "" {
		*metricsAddr = "off"
	}
	if (*certFile == "") != (*keyFile == "") {
		return cmdline.UsageError(fs, "--tls-cert and --tls-key go together")
	}
	if *walletURL != "" {
		if err := wallet.CheckURL(*walletURL, *walletInsecure); err != nil {
			return cmdline.UsageError(fs, "--wallet: %v", err)
		}
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
		return cmdline.UsageError(fs, "--log-level: %v", err)
	}
	trusted, err := app.ParseProxies(*proxies)
	if err != nil {
		return cmdline.UsageError(fs, "--trusted-proxy: %v", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: lv}))
	// The server's live heap is small (tens of MB) and most of what it allocates is garbage
	// made per request: collecting at 5 times the live heap rather than twice spends less CPU
	// per play (docs/PERFORMANCE.md). The memory limit keeps that slack from growing with big
	// short-lived allocations, a password hash's 64 MiB above all: near it the collector runs
	// sooner, whatever GOGC says.
	defer paceGC(400, 384<<20)()

	// The metrics' and the profiler's listeners are opened first: an address taken is said at
	// once, before a store is opened or an emission made.
	var mln, dln net.Listener
	if *metricsAddr != "off" {
		if mln, err = net.Listen("tcp", *metricsAddr); err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		defer mln.Close()
	}
	if *debugAddr != "" {
		if dln, err = net.Listen("tcp", *debugAddr); err != nil {
			return fmt.Errorf("--debug-addr: %w", err)
		}
		defer dln.Close()
	}

	if !app.IsPostgres(*db) {
		release, err := app.LockServed(*db)
		if err != nil {
			return err
		}
		defer release()
	}
	if *journalKey == "" {
		*journalKey = journalKeyPath(*db)
	}
	store, key, err := openJournalKey(ctx, *db, *journalKey, *journalName, log)
	if err != nil {
		return err
	}
	defer store.Close()
	// Before the first write: entries written with another key's account references could
	// never be signed.
	if err := app.CheckJournalKey(ctx, store, key); err != nil {
		log.Error("the journal's key is not this database's: the server does not start", "journal_key", *journalKey, "err", err)
		return err
	}
	if err := store.CheckWrite(ctx); err != nil {
		// Said at once; the server still starts, to answer what it can read, and /healthz says
		// so until the store can write again.
		log.Error("the store cannot write: every write is refused until it can", "db", redact(*db), "err", err, "cause", errors.Unwrap(err))
	}
	if err := ensureEmissions(ctx, store, stderr, log); err != nil {
		return err
	}
	cfg := game.DefaultConfig
	cfg.AbandonAfter, cfg.SessionIdle, cfg.SessionLifetime = *abandon, *idle, *lifetime
	// One bound on the password hashes at once in this process, and one rate per address, for the
	// players' API and the back office together.
	cfg.Hashes = passhash.DefaultGate()
	cfg.AuthRate = throttle.PerMinute(*authRate)
	cfg.Demo.Balance, cfg.Demo.Rate = *demoBalance, throttle.PerMinute(*demoRate)
	var walletCfg *app.WalletConfig
	if *walletURL != "" {
		secret, err := walletSecret(*walletSecretFile)
		if err != nil {
			return err
		}
		if len(secret) == 0 {
			return cmdline.UsageError(fs, "--wallet needs its secret: --wallet-secret-file FILE or $STARCOLOR_WALLET_SECRET")
		}
		walletCfg = &app.WalletConfig{URL: *walletURL, Secret: secret, PublicURL: strings.TrimRight(*publicURL, "/")}
		log.Info("seamless wallet mode: the players' money is the operator's wallet's", "wallet", *walletURL)
	}
	a, err := app.New(ctx, store, app.Config{Game: cfg, Log: log, Metrics: true, TrustedProxies: trusted, Wallet: walletCfg, Journal: key})
	if err != nil {
		return err
	}
	if *demo {
		if err := ensureDemo(ctx, a.Game, store); err != nil {
			return fmt.Errorf("demo player: %w", err)
		}
	}
	srv := &http.Server{
		Handler:           hsts(a.Handler()),
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
	// The metrics and the profiler each have a listener of their own, never the public one; a
	// failure of either stops the server, rather than leave it unwatched or exposed.
	var side []*http.Server
	served := make(chan error, 4)
	if mln != nil {
		m := &http.Server{Handler: a.Metrics(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		side = append(side, m)
		go func() { served <- fmt.Errorf("metrics: %w", m.Serve(mln)) }()
		log.Info("metrics", "addr", "http://"+mln.Addr().String()+"/metrics")
		fmt.Fprintf(stdout, "Metrics are served at http://%s/metrics\n", mln.Addr())
	}
	if dln != nil {
		debug := http.NewServeMux()
		debug.HandleFunc("/debug/pprof/", pprof.Index)
		debug.HandleFunc("/debug/pprof/profile", pprof.Profile)
		debug.HandleFunc("/debug/pprof/trace", pprof.Trace)
		d := &http.Server{Handler: debug, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		side = append(side, d)
		go func() { served <- fmt.Errorf("debug: %w", d.Serve(dln)) }()
		log.Info("profiler", "addr", "http://"+dln.Addr().String()+"/debug/pprof/")
	}
	log.Info("serving", "addr", scheme+"://"+ln.Addr().String(), "db", redact(*db))
	fmt.Fprintf(stdout, "Star Color is served at %s://%s\n", scheme, ln.Addr())

	// Over a SQLite file, the commands run beside the server reach it on its control socket.
	if !app.IsPostgres(*db) {
		if cln, err := listenControl(*db); err != nil {
			log.Warn("no control socket: exclusions import beside this server will be refused", "err", err)
		} else {
			c := &http.Server{Handler: a.ControlHandler(), ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
			side = append(side, c)
			go func() { served <- fmt.Errorf("control socket: %w", c.Serve(cln)) }()
			defer os.Remove(controlPath(*db))
		}
	}
	go a.Background(ctx)
	go func() {
		if tlsConfig != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	select {
	case err := <-served:
		srv.Close()
		for _, s := range side {
			s.Close()
		}
		return err
	case <-ctx.Done():
	}
	// Requests in flight finish; then the database is closed cleanly (deferred above).
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, s := range side {
		s.Close()
	}
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	for range 1 + len(side) {
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	// No sale comes any more: the rollbacks held ahead of players' next sales are not owed.
	forget, cancelForget := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelForget()
	if err := a.Game.DropRollbacksHeldAhead(forget); err != nil {
		log.Warn("wallet: forgetting the rollbacks held ahead (the sweep sends them)", "err", err)
	}
	log.Info("stopped")
	return nil
}

// openJournalKey opens the store with the journal's key file, making it for a new database
// (app.OpenKeyed), and logs its verifier key: the key a witness of the journal checks its
// checkpoints with.
func openJournalKey(ctx context.Context, db, path, name string, log *slog.Logger) (app.Store, *journal.Key, error) {
	store, key, made, err := app.OpenKeyed(ctx, db, path, name, app.OpenStore)
	if err != nil {
		return nil, nil, err
	}
	if made {
		log.Warn("the journal's key was made: keep its file with the database's backups, for a journal signed with another key cannot go on",
			"journal_key", path, "verifier", key.VerifierKey)
	} else {
		log.Info("the journal's key", "journal_key", path, "verifier", key.VerifierKey)
	}
	return store, key, nil
}

// defaultMetricsAddr is where serve puts its metrics unless told: on loopback, for a Prometheus
// agent on the same machine (9464, the port of OpenTelemetry's Prometheus exporter).
const defaultMetricsAddr = "127.0.0.1:9464"

// checkLoopback refuses a listening address that is not on loopback: an IP of 127.0.0.0/8 or
// ::1, or localhost. An empty host (":6060") listens on every interface.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() && ip.Zone() == "" {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address (127.0.0.1, ::1 or localhost): the profiler shows the server's memory to whoever reaches it", addr)
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
// is playable at every stake right away. Servers that start together over one store create them
// once: the first to take the store's lock creates, the others then find them open.
func ensureEmissions(ctx context.Context, store app.Store, stderr io.Writer, log *slog.Logger) error {
	return store.WithLock(ctx, "start-up emissions", func() error {
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
			bar := newProgressBar(stderr, "emission "+id)
			e, err := emission.Create(ctx, starstore.EmissionWrite(store, lottery.ByServer, false), emission.Order{ID: id, Definition: def, Price: t.Price, Blocks: 1,
				Seed: emission.NewSeed(), CreatedAt: time.Now().UTC(), Progress: bar.Update})
			bar.Done()
			if err != nil {
				return fmt.Errorf("creating an emission at %s: %w", gamedef.FormatEUR(t.Price), err)
			}
			log.Info("emission created", "id", id, "price", t.Price, "root", fmt.Sprintf("%x", e.Blocks[0].Root))
		}
		return nil
	})
}

// ensureDemo makes sure the demo player exists with at least 50 € of play money, unless its
// account is shut (closed, or self-excluded). Its password,
// "demo", is one no player could choose (game.Passwords): the account is made here, for trying
// the game on one's own machine, not through the API.
func ensureDemo(ctx context.Context, svc *game.Service, store app.Store) error {
	_, err := store.CreatePlayer(ctx, "demo", svc.Config().Argon2.Hash("demo"), nil, time.Now()) // a player for trying the game: no one's identity
	if err != nil && !fault.Is(err, fault.UsernameTaken) {
		return err
	}
	p, err := store.PlayerByName(ctx, "demo")
	if err != nil {
		return err
	}
	// Limits as high as they go, set once: the demo player's limits are the server's choice, not a
	// person's (its changes are kept as made by "server").
	if l, err := store.Limits(ctx, p.ID, time.Now()); err != nil {
		return err
	} else if !l.Deposit.Set || !l.Stake.Set {
		high := int64(lottery.MaxLimit)
		if _, err := store.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &high, Stake: &high}, "server", time.Now()); err != nil {
			return err
		}
	}
	// A demo player who excluded themselves, or closed the account, had their balance paid out:
	// no money goes to them again (the store would refuse the deposit), and the server starts.
	if p.Balance >= 5000 || p.Shut(time.Now()) != nil {
		return nil
	}
	_, err = store.Pay(ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: 5000 - p.Balance},
		time.Now())
	return err
}

// redact is a --db as the logs show it: a URL without its password.
func redact(db string) string {
	u, err := url.Parse(db)
	if err != nil || u.User == nil {
		return db
	}
	return u.Redacted()
}
