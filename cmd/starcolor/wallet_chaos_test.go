package main

// The chaos test of seamless wallet mode (issue 13): the reference wallet as a real process with
// every fault at 10 %, servers in wallet mode as real processes SIGKILLed at random and started
// again, 64 players launched by the operator playing through it all. Once the load stops, the
// wallet comes back without faults and the outbox drains. Then the wallet's books and the games
// must agree to the cent, every game must stand on a debit, and every debit must have its credit
// or its rollback.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/fakewallet/fakewallettest"
	"starcolor/internal/storetest"
	"starcolor/internal/wallet"
)

// chaosRun is how long the players play while servers are killed.
const chaosRun = 15 * time.Second

func TestWalletChaosSQLite(t *testing.T) {
	t.Parallel() // a long one: see TestMain
	db := filepath.Join(t.TempDir(), "chaos.db")
	servableDB(t, db)
	walletChaos(t, db, 1)
}

func TestWalletChaosPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("the servers create two blocks of 1,000,000 units; skipped with -short")
	}
	t.Parallel() // a long one: see TestMain
	walletChaos(t, storetest.PostgresURL(t), 3)
}

// cluster is the servers on one store, each of which may be killed and started again.
type cluster struct {
	t       *testing.T
	db      string
	args    []string
	mu      sync.Mutex
	servers []*server // nil: killed, not started again yet
	kills   atomic.Int64
}

func (c *cluster) start(i int) {
	srv, err := launch(c.db, c.args...)
	if err != nil {
		if srv != nil {
			srv.kill()
		}
		c.t.Errorf("starting server %d again: %v", i, err)
		return
	}
	c.mu.Lock()
	c.servers[i] = srv
	c.mu.Unlock()
}

// any is a live server's URL ("" if none is up).
func (c *cluster) any(r *rand.Rand) string {
	if s := c.anyServer(r); s != nil {
		return s.url
	}
	return ""
}

// anyServer is a server running now, or nil if none was found.
func (c *cluster) anyServer(r *rand.Rand) *server {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range 2 * len(c.servers) {
		if s := c.servers[r.IntN(len(c.servers))]; s != nil {
			return s
		}
	}
	return nil
}

// kill SIGKILLs server i and starts it again after a moment.
func (c *cluster) kill(i int) {
	c.mu.Lock()
	s := c.servers[i]
	c.servers[i] = nil
	c.mu.Unlock()
	if s == nil {
		return
	}
	s.kill()
	c.kills.Add(1)
	time.Sleep(200 * time.Millisecond)
	c.start(i)
}

func (c *cluster) killAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.servers {
		if s != nil {
			s.kill()
		}
	}
}

// chaosPlayer is an operator's player, launched, playing on any live server.
type chaosPlayer struct {
	player
	games map[int64]chaosGame // acknowledged
}

type chaosGame struct {
	ID     int64  `json:"id"`
	Stake  int64  `json:"stake"`
	Prize  int64  `json:"prize"`
	Status string `json:"status"`
}

// launchPlayer is the operator's launch call for a player, and the link opened.
func launchPlayer(base string, secret []byte, who string) (*chaosPlayer, error) {
	link, err := wallet.Launch(context.Background(), http.DefaultClient, base, wallet.NewKey(secret), who, "op-"+who, time.Now())
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil) // cookies are per host, not port: the session holds on every server
	hc := &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(link)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("opening %s's link: %d", who, resp.StatusCode)
	}
	return &chaosPlayer{player: player{name: who, http: hc, base: base}, games: map[int64]chaosGame{}}, nil
}

// chaosCounts are what the players met.
type chaosCounts struct {
	sold, refused, unavailable, resent, busy atomic.Int64
}

// play plays until stop: « Auto » games at every stake, and « Jouer » games, most finished, some
// left in play; a request whose server died is sent again with its key to another server.
func (p *chaosPlayer) play(t *testing.T, c *cluster, stop <-chan struct{}, n *chaosCounts, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for k := 0; ; k++ {
		stake := int64(100 * (1 + r.IntN(3)))
		manual := r.IntN(5) == 0
		mode := "auto"
		if manual {
			mode = "manual"
		}
		body, key := fmt.Sprintf(`{"stake":%d,"mode":%q}`, stake, mode), fmt.Sprintf("%s-%d", p.name, k)
		var g chaosGame
		for sold := false; !sold; {
			select {
			case <-stop:
				return
			default:
			}
			if p.base = c.any(r); p.base == "" {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			st, raw, err := p.call("POST", "/api/v1/games", body, key)
			switch code := errorCode(raw); {
			case err != nil:
				n.resent.Add(1) // the server died: the same key to another
				time.Sleep(20 * time.Millisecond)
			case st == 201:
				json.Unmarshal(raw, &g)
				sold = true
			case st == 402 || (st == 403 && (code == "limit_reached" || code == "player_blocked")):
				n.refused.Add(1) // the wallet's refusal: final, not kept under the key
				key += "r"
			case st == 503 && code == "wallet_unavailable":
				n.unavailable.Add(1) // rolled back: a new attempt
				key += "u"
			case st == 503:
				n.busy.Add(1)
				time.Sleep(50 * time.Millisecond)
			default:
				t.Errorf("%s: a sale answered %d %s", p.name, st, raw)
				return
			}
		}
		n.sold.Add(1)
		if g.Stake != stake {
			t.Errorf("%s: game %d sold at %d, asked %d", p.name, g.ID, g.Stake, stake)
		}
		p.games[g.ID] = g
		if manual && r.IntN(4) > 0 {
			// Finished now (its credit released), unless its server dies: finished at the end.
			if st, raw, err := p.call("POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), "", ""); err == nil && st == 200 {
				json.Unmarshal(raw, &g)
				p.games[g.ID] = g
			}
		}
	}
}

// logOpenCalls logs the wallet's calls not acknowledged, each with its round's game if sold: what
// a failure to drain needs to be understood.
func logOpenCalls(t *testing.T, db string) {
	raw := storetest.OpenRaw(t, db)
	rows, err := raw.DB.Query(`SELECT c.id, c.call, c.transaction_id, c.round_id, c.status, c.attempts, c.next_at, c.last_error,
			c.created_at, coalesce((SELECT g.status FROM games g WHERE CAST(g.id AS TEXT) = c.round_id), 'no game')
		FROM wallet_calls c WHERE c.status <> 'acked' ORDER BY c.id`)
	if err != nil {
		t.Logf("reading the calls not acknowledged: %v", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, attempts int64
		var call, tx, round, status, next, lastErr, created, game string
		if err := rows.Scan(&id, &call, &tx, &round, &status, &attempts, &next, &lastErr, &created, &game); err != nil {
			t.Logf("reading a call: %v", err)
			return
		}
		t.Logf("call %d: %s %s round %s (game: %s), %s, %d attempts, due %s, kept %s, last error %q",
			id, call, tx, round, game, status, attempts, next, created, lastErr)
	}
}

// metric reads a gauge of a server's /metrics, base being its metrics' listener.
func metric(base, name string) (float64, error) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s/metrics", name, base)
}

// listed is a transaction in the fake wallet's listing, with the reference it gives.
type listed struct {
	wallet.Listed
	Ref string `json:"ref"`
}

func walletChaos(t *testing.T, db string, servers int) {
	w := fakewallettest.Start(t, []byte("chaos secret"), "--fail", "0.1", "--slow", "0.1", "--slow-delay", "2500ms", "--drop", "0.1", "--refuse", "0.1",
		"--initial-balance", "1000000")
	c := &cluster{t: t, db: db, args: []string{"--auth-per-minute", "0", "--wallet", w.URL, "--wallet-secret-file", w.SecretFile},
		servers: make([]*server, servers)}
	var wg sync.WaitGroup
	for i := range servers {
		wg.Go(func() { c.start(i) })
	}
	wg.Wait()
	t.Cleanup(c.killAll)
	if t.Failed() {
		t.FailNow()
	}

	players := make([]*chaosPlayer, 64)
	for i := range players {
		p, err := launchPlayer(c.servers[i%servers].url, w.Secret, fmt.Sprintf("op-player-%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		players[i] = p
	}
	var n chaosCounts
	stop := make(chan struct{})
	var play sync.WaitGroup
	for i, p := range players {
		play.Go(func() { p.play(t, c, stop, &n, uint64(i)) })
	}
	// The killer: a server SIGKILLed every 0.5 to 2 s, and started again.
	killer := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for end := time.Now().Add(chaosRun); time.Now().Before(end); {
		time.Sleep(time.Duration(500+killer.IntN(1500)) * time.Millisecond)
		c.kill(killer.IntN(servers))
	}
	close(stop)
	play.Wait()
	// The wallet comes back well: killed, and started again on its file without faults. A call
	// it kept failing waits its backoff (at most a minute), then is answered: the drain below is
	// bounded. With the faults still on, one credit in a few thousand fails its 7 or 8 sendings
	// of the next 150 s (0.19^7 each), and the drain's end is luck.
	w.Restart(t, "--initial-balance", "1000000")
	t.Logf("%d games sold, %d debits refused by the wallet, %d sales refused with the wallet unavailable, %d requests sent again after %d SIGKILLs, %d busy",
		n.sold.Load(), n.refused.Load(), n.unavailable.Load(), n.resent.Load(), c.kills.Load(), n.busy.Load())
	if n.sold.Load() < 500 || c.kills.Load() < 5 {
		t.Fatalf("too little happened to test anything: %d games, %d kills", n.sold.Load(), c.kills.Load())
	}

	// Every acknowledged game is in its player's history with its prize; the games in play are
	// finished, which releases their credits.
	srv := c.anyServer(rand.New(rand.NewPCG(3, 3)))
	base := srv.url
	var staked, prizes int64
	for _, p := range players {
		p.base = base
		found, err := history(&p.player)
		if err != nil {
			t.Fatal(err)
		}
		for id, g := range p.games {
			if h, ok := found[id]; !ok || h.Prize != g.Prize {
				t.Fatalf("%s: acknowledged game %+v is in the history as %+v (found: %v)", p.name, g, h, ok)
			}
		}
		// Those whose answer a SIGKILL lost are there too, and some are in play.
		for id, h := range found {
			if h.Status != "finished" {
				if st, raw, err := p.call("POST", fmt.Sprintf("/api/v1/games/%d/finish", id), "", ""); err != nil || st != 200 {
					t.Fatalf("%s: finishing game %d: %d %s %v", p.name, id, st, raw, err)
				}
			}
		}
	}

	// The outbox drains: the rollbacks of the debits whose servers died are found by the sweep
	// (after a debit's longest wait and ten seconds), every call is sent until acknowledged.
	stopped := time.Now()
	deadline := stopped.Add(150 * time.Second)
	for {
		pending, err := metric(srv.metrics, "starcolor_wallet_calls_pending")
		if err != nil {
			t.Fatal(err)
		}
		open, _ := metric(srv.metrics, "starcolor_wallet_rounds_open")
		disputed, _ := metric(srv.metrics, "starcolor_wallet_calls_disputed")
		if disputed != 0 {
			t.Fatalf("%v calls disputed", disputed)
		}
		if pending == 0 && open == 0 {
			t.Logf("the outbox drained %.1f s after the load stopped", time.Since(stopped).Seconds())
			break
		}
		if time.Now().After(deadline) {
			for i, s := range c.servers {
				t.Logf("server %d's log: %s", i, s.logs)
			}
			logOpenCalls(t, c.db)
			t.Fatalf("the outbox did not drain: %v calls pending, %v rounds open", pending, open)
		}
		time.Sleep(250 * time.Millisecond)
	}

	// The books, from our side: every game of the operator's players, with its stake and prize.
	ours := map[string][2]int64{} // by round: stake, prize
	for _, p := range players {
		found, err := history(&p.player)
		if err != nil {
			t.Fatal(err)
		}
		for id, g := range found {
			var full chaosGame
			st, raw, err := p.call("GET", fmt.Sprintf("/api/v1/games/%d", id), "", "")
			if err != nil || st != 200 || json.Unmarshal(raw, &full) != nil || full.Status != "finished" {
				t.Fatalf("%s: game %d: %d %s %v", p.name, id, st, raw, err)
			}
			ours[strconv.FormatInt(id, 10)] = [2]int64{full.Stake, g.Prize}
			staked += full.Stake
			prizes += g.Prize
		}
	}
	// The wallet's, from its listing, checked here without Star Color's code.
	raw := fakewallettest.Run(t, "transactions", "--db", w.DB)
	if raw.Code != 0 {
		t.Fatalf("starcolor-fakewallet transactions: %+v", raw)
	}
	debits := map[string]listed{}  // by transaction id
	standing := map[string]int64{} // by round: the stake of its debit standing
	credits := map[string][]listed{}
	rolledBack := map[string]bool{}
	for line := range strings.Lines(raw.Stdout) {
		var l listed
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("the listing: %v in %q", err, line)
		}
		switch l.Kind {
		case "debit":
			if l.Status == 200 {
				debits[l.TransactionID] = l
			}
		case "credit":
			credits[l.Ref] = append(credits[l.Ref], l)
		case "rollback":
			rolledBack[l.Ref] = true
		}
	}
	var wDebited, wCredited int64
	for id, d := range debits {
		cs := credits[id]
		switch {
		case rolledBack[id] && len(cs) > 0:
			t.Errorf("debit %s (round %s) is both rolled back and credited", id, d.RoundID)
		case rolledBack[id]:
			continue
		case len(cs) != 1:
			t.Errorf("debit %s (round %s) stands with %d credits and no rollback", id, d.RoundID, len(cs))
			continue
		}
		if standing[d.RoundID] != 0 {
			t.Errorf("round %s has two debits standing", d.RoundID)
		}
		standing[d.RoundID] = d.Amount
		wDebited += d.Amount
		wCredited += cs[0].Amount
		g, ok := ours[d.RoundID]
		switch {
		case !ok:
			t.Errorf("debit %s stands for round %s, which has no game", id, d.RoundID)
		case g[0] != d.Amount || g[1] != cs[0].Amount:
			t.Errorf("round %s: the game's stake and prize %v, the wallet's debit %d and credit %d", d.RoundID, g, d.Amount, cs[0].Amount)
		}
	}
	for round := range ours {
		if standing[round] == 0 {
			t.Errorf("game %s was sold without a debit standing at the wallet", round)
		}
	}
	for ref, cs := range credits {
		if _, ok := debits[ref]; !ok {
			t.Errorf("credit %s of a debit the wallet does not hold standing: %+v", ref, cs)
		}
	}
	if wDebited != staked || wCredited != prizes {
		t.Errorf("the wallet holds %d cents debited and %d credited; the games, %d staked and %d won", wDebited, wCredited, staked, prizes)
	}

	// The same, by the commands an operator runs: the wallet's books and the reconciliation.
	if r := fakewallettest.Run(t, "books", "--db", w.DB); r.Code != 0 {
		t.Errorf("starcolor-fakewallet books: %+v", r)
	}
	if r := cli("wallet", "reconcile", "--db", db, "--wallet", w.URL, "--wallet-secret-file", w.SecretFile); r.code != 0 {
		t.Errorf("wallet reconcile: %+v", r)
	} else {
		t.Logf("%d rounds, %d cents staked and %d won, the same at the wallet; reconcile: %s", len(ours), staked, prizes,
			strings.TrimSpace(r.stdout[strings.LastIndex(strings.TrimSpace(r.stdout), "\n")+1:]))
	}
	if !strings.HasPrefix(db, "postgres") {
		c.killAll() // the ledger check wants the file to itself
	}
	ledgerOK(t, db)
}
