// Package loadtest is the project's own load tool: many simulated players play the player API
// (docs: spec/API.md) over HTTP, exactly as a client would, while the tool measures plays per
// second and latencies and checks every answer for consistency.
//
// Each player registers, logs in with a cookie jar of its own, deposits play money, then plays
// games one after the other ("auto", or "manual" through the colour choice and every reveal)
// until the duration or the play budget is spent. Players are sequential, so each one knows what
// its balance must be after every answer; a difference is a consistency violation, a bug of the
// server.
//
// The tool only ever sends traffic to loopback addresses, and it always stops by itself: the
// play phase lasts at most MaxDuration.
package loadtest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"starcolor/internal/wallet"
)

// Limits and defaults of a run.
const (
	DefaultBaseURL      = "http://127.0.0.1:8080"
	DefaultPlayers      = 64
	MaxPlayers          = 10000
	DefaultDuration     = 10 * time.Second
	MaxDuration         = 10 * time.Minute
	DefaultStake        = 100    // cents
	DefaultDeposit      = 100000 // cents: 1,000 EUR
	DefaultTimeout      = 10 * time.Second
	DefaultSetupTimeout = time.Minute
	DefaultUserPrefix   = "loadtest"

	// maxConsecutiveErrors stops a player whose requests keep failing: a dead server must not be
	// hammered in a tight loop until the deadline.
	maxConsecutiveErrors = 50
	// stopGrace bounds how long the players may take to wind down after the deadline (a manual
	// game under way is played to its end) before their requests are cancelled.
	stopGrace = 30 * time.Second
	// setupConcurrency bounds the players setting up at the same time.
	setupConcurrency = 16
)

// Config is one run of the load tool. Zero fields take their defaults.
type Config struct {
	// BaseURL is the server (default http://127.0.0.1:8080), or several separated by commas:
	// player i plays on the i-th modulo their number. Loopback only.
	BaseURL string
	// Metrics are the servers' metrics listeners (serve --metrics-addr), base URLs separated by
	// commas, one for each server of BaseURL in its order; their process_cpu_seconds_total gives
	// the servers' CPU a play. Empty: the servers' CPU is not measured. Loopback only.
	Metrics  string
	Players  int           // simulated players playing at the same time (default 64)
	Duration time.Duration // length of the play phase (default 10 s, at most 10 min)
	MaxPlays int64         // at most this many game-creating requests over all players; 0: no limit
	Stake    int64         // the stake of every game, in cents (default 100)
	Mode     string        // "auto" (default) or "manual"
	Deposit  int64         // cents deposited by each player at the start and on each 402 (default 100,000)
	// Seed makes the colour choices and the order of the clicks of manual games reproducible;
	// 0 draws them at random. User names, passwords and idempotency keys are always fresh.
	Seed uint64
	// Keys is how idempotency keys are made: "uuid7" (default), UUIDs of RFC 9562's version 7,
	// which start with the time, as clients are advised to make keys that a database indexes; or
	// "random", 32 random hex digits, which land anywhere in the server's index of keys.
	Keys string
	// UserPrefix starts every user name (default "loadtest"); a random suffix follows.
	UserPrefix string
	// WalletSecret, when set, plays a server in seamless wallet mode (docs/WALLET_MODE.md): each player
	// is launched by the operator's signed call instead of signing up, logging in and depositing;
	// the balances are the wallet's (its credits come later), so they are not checked.
	WalletSecret []byte
	// Timeout bounds each request of the play phase (default 10 s); SetupTimeout the
	// registration, login and first deposit of all the players (default 1 min), which may be
	// slow: the server hashes passwords.
	Timeout, SetupTimeout time.Duration
}

// withDefaults fills in the zero fields and checks the others.
func (c Config) withDefaults() (Config, error) {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Players == 0 {
		c.Players = DefaultPlayers
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Stake == 0 {
		c.Stake = DefaultStake
	}
	if c.Keys == "" {
		c.Keys = "uuid7"
	}
	if c.Keys != "uuid7" && c.Keys != "random" {
		return c, fmt.Errorf("keys %q: uuid7 or random", c.Keys)
	}
	if c.Mode == "" {
		c.Mode = "auto"
	}
	if c.Deposit == 0 {
		c.Deposit = DefaultDeposit
	}
	if c.UserPrefix == "" {
		c.UserPrefix = DefaultUserPrefix
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.SetupTimeout == 0 {
		c.SetupTimeout = DefaultSetupTimeout
	}
	switch {
	case c.Players < 0 || c.Players > MaxPlayers:
		return c, fmt.Errorf("players %d: between 1 and %d", c.Players, MaxPlayers)
	case c.Duration < 0 || c.Duration > MaxDuration:
		return c, fmt.Errorf("duration %s: at most %s", c.Duration, MaxDuration)
	case c.MaxPlays < 0:
		return c, fmt.Errorf("plays %d: 0 (no limit) or more", c.MaxPlays)
	case c.Stake < 0:
		return c, fmt.Errorf("stake %d: a positive number of cents", c.Stake)
	case c.Mode != "auto" && c.Mode != "manual":
		return c, fmt.Errorf("mode %q: auto or manual", c.Mode)
	case c.Deposit < c.Stake:
		return c, fmt.Errorf("deposit %d cents: at least the stake (%d cents)", c.Deposit, c.Stake)
	case c.Timeout < 0 || c.Timeout > time.Minute:
		return c, fmt.Errorf("timeout %s: at most a minute", c.Timeout)
	case c.SetupTimeout < 0 || c.SetupTimeout > MaxDuration:
		return c, fmt.Errorf("setup timeout %s: at most %s", c.SetupTimeout, MaxDuration)
	}
	for _, r := range c.UserPrefix {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') || len(c.UserPrefix) > 32 {
			return c, fmt.Errorf("user prefix %q: up to 32 letters, digits, '_' or '-'", c.UserPrefix)
		}
	}
	return c, nil
}

// runner is what the players of one run share. Everything in it is read-only during the run
// except the play budget and the samples.
type runner struct {
	cfg       Config
	eps       []*endpoint // the servers
	walletKey *wallet.Key // cfg.WalletSecret's, in wallet mode

	gameBody, depositBody []byte
	colorBodies           [6][]byte
	revealBodies          [42][]byte

	deadline time.Time    // end of the play phase, set when it starts
	plays    atomic.Int64 // game-creating requests reserved so far, against MaxPlays

	samples samples
}

// Run plays the API as cfg says and returns what it measured. It refuses a BaseURL that is not
// a loopback address before sending anything. It returns an error when the configuration is bad
// or no player could even be set up; otherwise the Result, also when ctx was cancelled midway
// (Result.Interrupted).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	if cfg.WalletSecret != nil {
		r.walletKey = wallet.NewKey(cfg.WalletSecret)
	}
	var bases []string
	for _, base := range strings.Split(cfg.BaseURL, ",") {
		tgt, err := resolveTarget(ctx, strings.TrimSpace(base))
		if err != nil {
			return nil, err
		}
		ep := &endpoint{target: tgt, transport: newTransport(tgt, cfg.Players), urlPlayers: tgt.base + "/api/v1/players",
			urlSession: tgt.base + "/api/v1/session", urlLimits: tgt.base + "/api/v1/me/limits", urlDeposits: tgt.base + "/api/v1/deposits", urlGames: tgt.base + "/api/v1/games"}
		ep.urlGame = ep.urlGames + "/"
		defer ep.transport.CloseIdleConnections()
		r.eps = append(r.eps, ep)
		bases = append(bases, tgt.base)
	}
	if cfg.Metrics != "" {
		urls := strings.Split(cfg.Metrics, ",")
		if len(urls) != len(r.eps) {
			return nil, fmt.Errorf("metrics %q: one URL for each of the %d servers", cfg.Metrics, len(r.eps))
		}
		for i, u := range urls {
			tgt, err := resolveTarget(ctx, strings.TrimSpace(u))
			if err != nil {
				return nil, err
			}
			r.eps[i].metrics, r.eps[i].metricsTransport = tgt, newTransport(tgt, 1)
			defer r.eps[i].metricsTransport.CloseIdleConnections()
		}
	}
	r.gameBody = []byte(`{"stake":` + strconv.FormatInt(cfg.Stake, 10) + `,"mode":"` + cfg.Mode + `"}`)
	r.depositBody = []byte(`{"amount":` + strconv.FormatInt(cfg.Deposit, 10) + `}`)
	for c := range r.colorBodies {
		r.colorBodies[c] = []byte(`{"color":` + strconv.Itoa(c) + `}`)
	}
	for i := range r.revealBodies {
		r.revealBodies[i] = []byte(`{"cell":` + strconv.Itoa(i) + `}`)
	}

	// Every request runs under runCtx: Ctrl-C, or a hard stop well after the planned end.
	runCtx, cancel := context.WithTimeout(ctx, cfg.SetupTimeout+cfg.Duration+stopGrace)
	defer cancel()
	setupCtx, cancelSetup := context.WithTimeout(runCtx, cfg.SetupTimeout)
	defer cancelSetup()

	players := make([]*player, cfg.Players)
	for i := range players {
		p, err := r.newPlayer(i)
		if err != nil {
			return nil, err
		}
		players[i] = p
	}

	began := time.Now()
	// At most setupConcurrency players set up at once: registration and login hash passwords,
	// and a crowd of them only makes each one late.
	var setup sync.WaitGroup
	ready := make([]bool, len(players))
	sem := make(chan struct{}, setupConcurrency)
	for i, p := range players {
		setup.Go(func() {
			select {
			case sem <- struct{}{}:
				ready[i] = p.setup(setupCtx) == nil
				<-sem
			case <-setupCtx.Done():
				p.stop = stopSetup
			}
		})
	}
	setup.Wait()
	cancelSetup()
	setupTime := time.Since(began)

	n := 0
	for _, ok := range ready {
		if ok {
			n++
		}
	}
	if n == 0 {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("interrupted while setting up the players: %w", err)
		}
		msg := "no player could be set up"
		if s := r.samples.errors(); len(s) > 0 {
			msg += ": " + s[0]
		}
		return nil, errors.New(msg)
	}

	cpuBefore := r.sampleCPU(runCtx)
	start := time.Now()
	r.deadline = start.Add(cfg.Duration)
	var play sync.WaitGroup
	for i, p := range players {
		if ready[i] {
			play.Go(func() { p.play(runCtx) })
		}
	}
	play.Wait()
	elapsed := time.Since(start)
	cpuAfter := r.sampleCPU(ctx)

	res := newResult(cfg, strings.Join(bases, ", "), players, ready)
	res.Started = began
	res.Setup = setupTime
	res.Elapsed = elapsed
	res.Interrupted = ctx.Err() != nil || runCtx.Err() != nil
	res.ErrorSamples = r.samples.errors()
	res.ViolationSamples = r.samples.violations()
	res.ToolCPU = cpuAfter.tool - cpuBefore.tool
	if cpuBefore.serverKnown && cpuAfter.serverKnown {
		res.ServerCPU, res.ServerCPUKnown = cpuAfter.server-cpuBefore.server, true
	} else {
		res.ServerCPUUnknown = cmp.Or(cpuBefore.why, cpuAfter.why)
	}
	if s := elapsed.Seconds(); s > 0 {
		res.PlaysPerSecond = float64(res.Games) / s
	}
	return res, nil
}

// newPlayer makes player i: a fresh user name and password, a cookie jar of its own and its
// random sources.
func (r *runner) newPlayer(i int) (*player, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	var seed [48]byte
	rand.Read(seed[:])
	const alnum = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
	pw := []byte("Lt9!")
	for _, b := range seed[32:48] {
		pw = append(pw, alnum[int(b)%len(alnum)])
	}
	ep := r.eps[i%len(r.eps)]
	p := &player{
		r:           r,
		ep:          ep,
		client:      &http.Client{Transport: ep.transport, Jar: jar, CheckRedirect: noRedirect, Timeout: r.cfg.Timeout},
		setupClient: &http.Client{Transport: ep.transport, Jar: jar, CheckRedirect: noRedirect},
		name:        fmt.Sprintf("%s%016x", r.cfg.UserPrefix, binary.LittleEndian.Uint64(seed[:8])),
		password:    string(pw),
		keys:        mrand.NewChaCha8([32]byte(seed[:32])),
	}
	if r.cfg.Seed != 0 {
		p.rng = mrand.New(mrand.NewPCG(r.cfg.Seed, uint64(i)))
	} else {
		p.rng = mrand.New(mrand.NewPCG(binary.LittleEndian.Uint64(seed[8:16]), binary.LittleEndian.Uint64(seed[16:24])))
	}
	p.lim.N = maxBody
	p.buf = bytes.NewBuffer(make([]byte, 0, 8<<10))
	return p, nil
}

// reservePlay takes one game-creating request from the play budget.
func (r *runner) reservePlay() bool {
	if r.cfg.MaxPlays == 0 {
		return true
	}
	return r.plays.Add(1) <= r.cfg.MaxPlays
}

// samples keeps the first few error bodies and violations for the report.
type samples struct {
	mu        sync.Mutex
	nErr, nV  atomic.Int64
	errs, vio []string
}

const maxSamples = 8

func (s *samples) wantError() bool     { return s.nErr.Load() < maxSamples }
func (s *samples) wantViolation() bool { return s.nV.Load() < maxSamples }

func (s *samples) addError(msg string) {
	if s.nErr.Add(1) > maxSamples {
		return
	}
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
}

func (s *samples) addViolation(msg string) {
	if s.nV.Add(1) > maxSamples {
		return
	}
	s.mu.Lock()
	s.vio = append(s.vio, msg)
	s.mu.Unlock()
}

func (s *samples) errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

func (s *samples) violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.vio...)
}

// endpoint is one server of the load test, with its own connections.
type endpoint struct {
	target    *target
	transport *http.Transport

	metrics          *target // its metrics listener (nil: not measured)
	metricsTransport *http.Transport

	urlPlayers, urlSession, urlLimits, urlDeposits, urlGames, urlGame string // urlGame ends with "/"
}
