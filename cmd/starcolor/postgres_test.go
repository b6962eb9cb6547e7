package main

// Several serve processes on one PostgreSQL database act as one game. These tests run them as real
// processes (the test binary standing in for starcolor), as an operator would behind a load
// balancer. They need PostgreSQL: $STARCOLOR_TEST_POSTGRES (see internal/storetest), and for the
// restart, PostgreSQL's programs to make a server of their own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/httpapi"
	"starcolor/internal/storetest"
)

// pgServers starts n servers on one database at the same moment.
func pgServers(t *testing.T, db string, n int) []*server {
	t.Helper()
	servers := make([]*server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { servers[i], errs[i] = launch(db, "--auth-per-minute", "0") })
	}
	wg.Wait()
	for _, s := range servers {
		if s != nil {
			t.Cleanup(s.kill)
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return servers
}

// join signs a player up on a server, logs it in and deposits money.
func join(base, name string, deposit int64) (*player, error) {
	jar, _ := cookiejar.New(nil)
	p := &player{name: name, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, base: base}
	creds := fmt.Sprintf(`{"username":%q,"password":"pw-%s-secret"}`, name, name)
	if st, raw, err := p.call("POST", "/api/v1/players", signUp(creds), ""); err != nil || st != 201 {
		return nil, fmt.Errorf("register %s: %d %s %v", name, st, raw, err)
	}
	if st, raw, err := p.call("POST", "/api/v1/session", creds, ""); err != nil || st != 200 {
		return nil, fmt.Errorf("login %s: %d %s %v", name, st, raw, err)
	}
	if err := p.limitsOff(); err != nil {
		return nil, err
	}
	if st, raw, err := p.call("POST", "/api/v1/deposits", fmt.Sprintf(`{"amount":%d}`, deposit), "dep-"+name); err != nil || st != 201 {
		return nil, fmt.Errorf("deposit %s: %d %s %v", name, st, raw, err)
	}
	return p, nil
}

// joinAll makes n players, the i-th on server i mod len(servers).
func joinAll(t *testing.T, servers []*server, n int, prefix string, deposit int64) []*player {
	t.Helper()
	players := make([]*player, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			players[i], errs[i] = join(servers[i%len(servers)].url, fmt.Sprintf("%s%02d", prefix, i), deposit)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return players
}

// errorCode is the code of an API error's body.
func errorCode(raw []byte) string {
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(raw, &e)
	return e.Error.Code
}

// balance is a player's balance as a server says it.
func balance(t *testing.T, p *player) int64 {
	t.Helper()
	st, raw, err := p.call("GET", "/api/v1/me", "", "")
	if err != nil || st != 200 {
		t.Fatalf("%s: /me: %d %s %v", p.name, st, raw, err)
	}
	var me struct{ Balance int64 }
	json.Unmarshal(raw, &me)
	return me.Balance
}

// ledgerOK runs starcolor ledger check on the database.
func ledgerOK(t *testing.T, db string) string {
	t.Helper()
	r := cli("ledger", "check", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "OK: the books balance") {
		t.Fatalf("ledger check: %+v", r)
	}
	return strings.TrimSpace(r.stdout)
}

// Three servers started together on a fresh database, 64 players spread over them playing until
// an emission of 1,000 units sells out:
//   - the start-up emissions are made once;
//   - every unit is sold exactly once;
//   - the prizes paid are the table's;
//   - every balance is what its games make it;
//   - the books balance.
func TestServersSellOutTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("the servers create two blocks of 1,000,000 units; skipped with -short")
	}
	t.Parallel() // a long one: see TestMain
	db := storetest.PostgresURL(t)
	def := gamedeftest.Mini(t)
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	storetest.CreateEmission(t, store, def, "MINI", 100, 1, 7)
	store.Close()

	servers := pgServers(t, db, 3)
	// One open emission at each price: the servers made those at 2 and 3 € once between them.
	var list struct {
		Emissions []struct {
			ID     string
			Price  int64
			Status string
		}
	}
	p0 := &player{http: http.DefaultClient, base: servers[0].url}
	st, raw, err := p0.call("GET", "/api/v1/emissions", "", "")
	if err != nil || st != 200 {
		t.Fatalf("emissions: %d %s %v", st, raw, err)
	}
	json.Unmarshal(raw, &list)
	prices := map[int64][]string{}
	for _, e := range list.Emissions {
		prices[e.Price] = append(prices[e.Price], e.ID)
	}
	if len(list.Emissions) != 3 || len(prices[100]) != 1 || prices[100][0] != "MINI" || len(prices[200]) != 1 || len(prices[300]) != 1 {
		t.Fatalf("emissions after three servers started together: %s; want MINI and one at each of 2 and 3 €", raw)
	}

	const deposit = 100_00
	players := joinAll(t, servers, 64, "sell", deposit)
	var mu sync.Mutex
	var sales []ackGame
	mine := make([][]ackGame, len(players))
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Go(func() {
			for n := 0; ; {
				st, raw, err := p.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, fmt.Sprintf("%s-%d", p.name, n))
				switch {
				case err != nil:
					t.Errorf("%s: %v", p.name, err)
					return
				case st == 201:
					var g ackGame
					json.Unmarshal(raw, &g)
					mu.Lock()
					sales = append(sales, g)
					mine[i] = append(mine[i], g)
					mu.Unlock()
					n++
				case st == 503 && errorCode(raw) == "sold_out":
					return
				default:
					t.Errorf("%s: a sale answered %d %s", p.name, st, raw)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	table, err := def.Table(100)
	if err != nil {
		t.Fatal(err)
	}
	if len(sales) != def.BlockUnits {
		t.Fatalf("%d sales acknowledged, want the block's %d units", len(sales), def.BlockUnits)
	}
	units := map[[2]int]int64{}
	won := map[int64]int{}
	var paid int64
	for _, g := range sales {
		if g.Unit.Block != 0 || g.Unit.Index < 0 || g.Unit.Index >= def.BlockUnits {
			t.Fatalf("game %d sold unit %+v, outside the block", g.ID, g.Unit)
		}
		k := [2]int{g.Unit.Block, g.Unit.Index}
		if other, dup := units[k]; dup {
			t.Fatalf("unit %v sold twice: games %d and %d", k, other, g.ID)
		}
		units[k] = g.ID
		won[g.Prize]++
		paid += g.Prize
	}
	for _, tier := range table.Tiers {
		if won[tier.Amount] != tier.Count {
			t.Errorf("%d units won %d cents, want the table's %d", won[tier.Amount], tier.Amount, tier.Count)
		}
	}
	if paid != table.Payout() {
		t.Errorf("prizes paid %d cents, want the table's %d", paid, table.Payout())
	}
	for i, p := range players {
		want := int64(deposit)
		for _, g := range mine[i] {
			want += g.Prize - 100
		}
		if got := balance(t, p); got != want {
			t.Errorf("%s: balance %d, want %d from its %d games", p.name, got, want, len(mine[i]))
		}
	}
	t.Logf("%d units sold once each over 3 servers by 64 players, %d cents paid; %s", len(sales), paid, ledgerOK(t, db))
}

// load plays « Auto » at 1 € and unfinished manual games at 2 € for each player, through its
// server, until stop is closed. It sends a request again as a load balancer would:
//   - a request that fails for a reason other than the server's answer goes again, with the same
//     key, to the next server;
//   - a 503 (with its Retry-After) goes again after a pause.
//
// It returns the games acknowledged, by player.
type load struct {
	servers []*server
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	acked   map[string]map[int64]ackGame
	after   [2]atomic.Int64 // acknowledgements before and after mark was called
	marked  atomic.Bool
	busy    atomic.Int64 // 503s answered
	moved   atomic.Int64 // requests sent again to another server
	fail    func(format string, args ...any)
}

func startLoad(t *testing.T, servers []*server, players []*player) *load {
	l := &load{servers: servers, stop: make(chan struct{}), acked: map[string]map[int64]ackGame{}, fail: t.Errorf}
	for i, p := range players {
		l.acked[p.name] = map[int64]ackGame{}
		l.wg.Go(func() { l.play(i, p) })
	}
	return l
}

func (l *load) play(i int, p *player) {
	next := i % len(l.servers)
	for n := 0; ; n++ {
		body, manual := `{"stake":100,"mode":"auto"}`, (i+n)%5 == 0
		if manual {
			body = `{"stake":200,"mode":"manual"}`
		}
		key := fmt.Sprintf("%s-%d", p.name, n)
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			st, raw, err := p.call("POST", "/api/v1/games", body, key)
			if err != nil {
				next = (next + 1) % len(l.servers)
				p.base = l.servers[next].url
				l.moved.Add(1)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			if st == 503 {
				if errorCode(raw) != "unavailable" || p.lastRetryAfter == "" {
					l.fail("%s: 503 %s with Retry-After %q", p.name, raw, p.lastRetryAfter)
					return
				}
				l.busy.Add(1)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			if st != 201 {
				l.fail("%s: a sale answered %d %s", p.name, st, raw)
				return
			}
			var g ackGame
			json.Unmarshal(raw, &g)
			if manual {
				// Leave it unfinished, a colour chosen, if the server answers.
				if st, raw, err := p.call("POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), `{"color":1}`, ""); err == nil && st == 200 {
					json.Unmarshal(raw, &g)
				}
			}
			l.mu.Lock()
			l.acked[p.name][g.ID] = g
			l.mu.Unlock()
			if l.marked.Load() {
				l.after[1].Add(1)
			} else {
				l.after[0].Add(1)
			}
			break
		}
	}
}

// mark starts counting the acknowledgements after it.
func (l *load) mark() { l.marked.Store(true) }

// waitFor waits at least least, and until n games are acknowledged on side i of the mark (0
// before, 1 after), or a minute has passed: the caller then finds too few.
func (l *load) waitFor(t *testing.T, i, n int, least time.Duration) {
	t.Helper()
	time.Sleep(least)
	for deadline := time.Now().Add(time.Minute); l.after[i].Load() < int64(n) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
}

// end stops the load and returns how many games were acknowledged.
func (l *load) end() int {
	close(l.stop)
	l.wg.Wait()
	total := 0
	for _, gs := range l.acked {
		total += len(gs)
	}
	return total
}

// checkHistories finds every acknowledged game in its player's history, as acknowledged, through
// base (any server), and finishes the unfinished ones.
func (l *load) checkHistories(t *testing.T, players []*player, base string) {
	t.Helper()
	for _, p := range players {
		p.base = base
		checkAcked(t, p, l.acked[p.name])
	}
}

// One of three servers SIGKILLed under load. The other two go on selling: its players' requests
// are sent again to them, with the same keys. Every acknowledged game is in its player's history,
// and the books balance. The journal is one, with no entry without its change and no change
// without its entry.
func TestServerKilledAmongOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("the servers create three blocks of 1,000,000 units; skipped with -short")
	}
	t.Parallel() // a long one: see TestMain
	db := storetest.PostgresURL(t)
	servers := pgServers(t, db, 3)
	players := joinAll(t, servers, 24, "kill", 10_000_00)
	l := startLoad(t, servers, players)
	// Counts, not durations: a busy host sells slower, and the test is about what happens, not
	// how fast. At least 1.5 s and 50 games on each side of the kill.
	l.waitFor(t, 0, 50, 1500*time.Millisecond)
	servers[0].kill()
	l.mark()
	l.waitFor(t, 1, 50, 1500*time.Millisecond)
	total := l.end()
	if t.Failed() {
		t.FailNow()
	}
	before, after := l.after[0].Load(), l.after[1].Load()
	if before < 50 || after < 50 {
		t.Fatalf("%d games acknowledged before the kill and %d after: want the others to go on selling", before, after)
	}
	l.checkHistories(t, players, servers[1].url)
	t.Logf("%d games acknowledged (%d before the SIGKILL, %d after it, %d requests sent again to another server), all in the histories; %s; %s",
		total, before, after, l.moved.Load(), ledgerOK(t, db), journalOK(t, db))
}

// PostgreSQL restarted (pg_ctl restart -m fast) under load: the servers answer 503 with
// Retry-After meanwhile, reconnect by themselves, and lose nothing they acknowledged.
func TestPostgresRestartedUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("the servers create three blocks of 1,000,000 units; skipped with -short")
	}
	t.Parallel() // a long one: see TestMain
	c := storetest.NewCluster(t)
	servers := pgServers(t, c.URL, 2)
	players := joinAll(t, servers, 16, "restart", 10_000_00)
	l := startLoad(t, servers, players)
	time.Sleep(time.Second)
	start := time.Now()
	c.Restart(t)
	restarted := time.Since(start)
	l.mark()
	// The servers sell again by themselves.
	deadline := time.Now().Add(30 * time.Second)
	for l.after[1].Load() < 100 && time.Now().Before(deadline) && !t.Failed() {
		time.Sleep(100 * time.Millisecond)
	}
	total := l.end()
	if t.Failed() {
		t.FailNow()
	}
	if l.after[1].Load() < 100 {
		t.Fatalf("%d games acknowledged in the 30 s after PostgreSQL restarted", l.after[1].Load())
	}
	if l.moved.Load() > 0 {
		t.Errorf("%d requests failed without an answer: the servers should have answered 503", l.moved.Load())
	}
	l.checkHistories(t, players, servers[1].url)
	t.Logf("PostgreSQL restarted in %s under load: %d answers 503 with Retry-After, %d games acknowledged (%d after the restart), all in the histories; %s",
		restarted.Round(time.Millisecond), l.busy.Load(), total, l.after[1].Load(), ledgerOK(t, c.URL))
}

// A session, a manual game and an idempotency key hold across two servers. A logout on one ends
// the session on the other at once, for reads and writes alike.
func TestOneGameOnTwoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("the servers create three blocks of 1,000,000 units; skipped with -short")
	}
	db := storetest.PostgresURL(t)
	servers := pgServers(t, db, 2)
	a, b := servers[0].url, servers[1].url
	p, err := join(a, "twin", 1000_00)
	if err != nil {
		t.Fatal(err)
	}
	on := func(base string) *player { q := *p; q.base = base; return &q }

	// The session opened on A works on B.
	if got := balance(t, on(b)); got != 1000_00 {
		t.Fatalf("balance on B: %d", got)
	}
	// A manual game begun on A goes on on B and ends there; A sees it ended.
	st, raw, _ := on(a).call("POST", "/api/v1/games", `{"stake":100,"mode":"manual"}`, "manual-1")
	var g ackGame
	if json.Unmarshal(raw, &g); st != 201 {
		t.Fatalf("manual game on A: %d %s", st, raw)
	}
	if st, raw, _ := on(b).call("POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), `{"color":2}`, ""); st != 200 {
		t.Fatalf("colour on B: %d %s", st, raw)
	}
	if st, raw, _ := on(b).call("POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), "", ""); st != 200 {
		t.Fatalf("finish on B: %d %s", st, raw)
	}
	st, raw, _ = on(a).call("GET", fmt.Sprintf("/api/v1/games/%d", g.ID), "", "")
	var seen ackGame
	if json.Unmarshal(raw, &seen); st != 200 || seen.Status != "finished" || seen.Prize != g.Prize || seen.Unit != g.Unit {
		t.Fatalf("the game on A after B finished it: %d %s", st, raw)
	}

	// One key sent to both servers at once has one effect: the same game, one stake.
	for round := range 20 {
		before := balance(t, on(a))
		key := fmt.Sprintf("twice-%d", round)
		var wg sync.WaitGroup
		var ids [2]int64
		var prizes [2]int64
		for i, base := range []string{a, b} {
			wg.Go(func() {
				st, raw, err := on(base).call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, key)
				switch {
				case err != nil:
					t.Error(err)
				case st == 201:
					var g ackGame
					json.Unmarshal(raw, &g)
					ids[i], prizes[i] = g.ID, g.Prize
				case st == 409 && errorCode(raw) == "request_in_flight":
				default:
					t.Errorf("key %s on server %d: %d %s", key, i, st, raw)
				}
			})
		}
		wg.Wait()
		if ids[0] == 0 && ids[1] == 0 || ids[0] != 0 && ids[1] != 0 && ids[0] != ids[1] {
			t.Fatalf("key %s sent to both servers: games %v", key, ids)
		}
		prize := max(prizes[0], prizes[1])
		if after := balance(t, on(b)); after != before-100+prize {
			t.Fatalf("key %s sent to both servers: balance %d then %d with a prize of %d: want one stake", key, before, after, prize)
		}
	}

	// A logout on B ends the session on A, which had just used it for a read and a write.
	token := ""
	for _, c := range p.http.Jar.Cookies(mustURL(t, a)) {
		if c.Name == httpapi.CookieName {
			token = c.Value
		}
	}
	bare := func(base string) *player {
		return &player{name: "twin", base: base, http: &http.Client{Timeout: 30 * time.Second, Transport: cookieTransport(token)}}
	}
	balance(t, bare(a))
	if st, raw, _ := bare(a).call("POST", "/api/v1/deposits", `{"amount":100}`, "warm"); st != 201 {
		t.Fatalf("deposit on A: %d %s", st, raw)
	}
	if st, raw, _ := bare(b).call("DELETE", "/api/v1/session", "", ""); st != 204 {
		t.Fatalf("logout on B: %d %s", st, raw)
	}
	for _, c := range []struct{ method, path, body, key string }{
		{"GET", "/api/v1/me", "", ""},
		{"POST", "/api/v1/deposits", `{"amount":100}`, "after-logout"},
		{"POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, "after-logout"},
		{"GET", "/api/v1/games", "", ""},
	} {
		if st, raw, _ := bare(a).call(c.method, c.path, c.body, c.key); st != 401 {
			t.Errorf("%s %s on A after a logout on B: %d %s, want 401", c.method, c.path, st, raw)
		}
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// cookieTransport sends a session token with every request, whatever the answers say about it.
type cookieTransport string

func (c cookieTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.AddCookie(&http.Cookie{Name: httpapi.CookieName, Value: string(c)})
	return http.DefaultTransport.RoundTrip(r)
}
