package httpapi_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/fakewallet"
	"starcolor/internal/game"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// testServer is the real application (app.New, as serve builds it) over a new test store
// holding a small emission at 1 €. The store is a SQLite file, or a PostgreSQL schema under
// STARCOLOR_TEST_STORE=postgres (TestMain runs the whole suite on both). Under
// STARCOLOR_TEST_WALLET=1 it is in wallet mode, in front of the reference wallet
// (walletsuite_test.go).
type testServer struct {
	url     string
	metrics string // the metrics' own server
	db      app.Store
	e       *emission.Emission
	svc     *game.Service
	clock   *clock
	wallet  *refWallet // the operator's wallet, in wallet mode (nil otherwise)
	app     *app.App
	key     *journal.Key // the journal's
}

// clock is the server's time, moved by the test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newTestServer(t *testing.T, blocks int) *testServer {
	return newTestServerWith(t, blocks, nil)
}

// newTestServerWith is newTestServer with a policy of its own: configure changes the default one.
func newTestServerWith(t *testing.T, blocks int, configure func(*game.Config, *clock)) *testServer {
	t.Helper()
	clk := &clock{now: time.Now()}
	o := apptest.Options{Blocks: blocks, Seed: 42, Now: clk.Now, Metrics: true, Configure: func(cfg *game.Config) {
		if configure != nil {
			configure(cfg, clk)
		}
	}}
	var w *refWallet
	if walletSuite {
		w = startRefWallet(t, fakewallet.Faults{}, false, clk.Now)
		o.Wallet = &app.WalletConfig{URL: w.url, Secret: walletSecret}
	}
	env := apptest.Start(t, o)
	s := &testServer{url: env.URL, metrics: env.MetricsURL, db: env.Store, e: env.Emission, svc: env.App.Game, clock: clk, wallet: w,
		app: env.App, key: env.JournalKey}
	if w != nil {
		t.Cleanup(func() { s.checkWalletBooks(t) }) // before the server stops
	}
	return s
}

// newTestServers is newTestServer for n servers of one game (apptest.StartServers: on
// PostgreSQL, n on one database; on SQLite, one), sharing one clock, outside wallet mode.
func newTestServers(t *testing.T, blocks, n int) []*testServer {
	t.Helper()
	return newTestServersWith(t, blocks, n, nil)
}

// newTestServersWith is newTestServers with a policy of its own, as newTestServerWith.
func newTestServersWith(t *testing.T, blocks, n int, configure func(*game.Config, *clock)) []*testServer {
	t.Helper()
	clk := &clock{now: time.Now()}
	envs := apptest.StartServers(t, apptest.Options{Blocks: blocks, Seed: 42, Now: clk.Now, Metrics: true, Configure: func(cfg *game.Config) {
		if configure != nil {
			configure(cfg, clk)
		}
	}}, n)
	out := make([]*testServer, n)
	for i, env := range envs {
		out[i] = &testServer{url: env.URL, db: env.Store, e: env.Emission, svc: env.App.Game, clock: clk, app: env.App, key: env.JournalKey}
	}
	return out
}

// client is a player's browser-less client with its own cookies.
type client struct {
	t    testing.TB
	base string
	http *http.Client
	keys int
	srv  *testServer // the server it was made for (nil: a client of another kind of server)
	who  string      // in wallet mode, the player at the operator it was launched for
}

func (s *testServer) client(t testing.TB) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: s.url, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, srv: s}
}

// wallet is the operator's wallet of the client's server, in wallet mode (nil otherwise).
func (c *client) wallet() *refWallet {
	if c.srv == nil {
		return nil
	}
	return c.srv.wallet
}

// call sends a request; key is the Idempotency-Key ("" for none). It returns the status and body.
func (c *client) call(method, path string, body any, key string) (int, []byte) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (c *client) key() string {
	c.keys++
	return fmt.Sprintf("k-%d-%d", time.Now().UnixNano(), c.keys)
}

// must expects a status and decodes the answer into v.
func (c *client) must(want int, v any, method, path string, body any, key string) {
	c.t.Helper()
	status, raw := c.call(method, path, body, key)
	if status != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, status, raw, want)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			c.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
}

// signUp makes a player with deposit cents and opens their session in the client. In wallet
// mode, the operator puts the money in the player's balance at its wallet and launches them.
func (c *client) signUp(name string, deposit int64) {
	c.t.Helper()
	if w := c.wallet(); w != nil {
		w.fund(c.t, name, deposit)
		c.login(name)
		return
	}
	c.must(201, nil, "POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": name, "password": "secret-" + name}, "")
	c.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
	// Limits high enough to stay out of the way (limits_test.go tests them).
	c.must(200, nil, "PUT", "/api/v1/me/limits", map[string]int64{"deposit_weekly": lottery.MaxLimit, "stake_weekly": lottery.MaxLimit}, "")
	if deposit > 0 {
		c.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": deposit}, c.key())
	}
}

// balance is the player's balance, as GET /api/v1/me shows it. In wallet mode it is the wallet's.
// The credits of the games finished and the rollbacks of the sales refused reach the wallet
// through the outbox, after their answers. So it is read once the outbox has drained. It must
// then be the wallet's to the cent, although the server shows an answer of the wallet up to a
// second old, and the test's clock stands still. It is, because the outbox notes the balance the
// wallet answers to each credit and rollback (game.Service.NoteWalletBalance). A player who has
// just won must see that balance.
func (c *client) balance() int64 {
	c.t.Helper()
	w := c.wallet()
	if w != nil {
		c.srv.drained(c.t)
	}
	var me struct{ Balance int64 }
	c.must(200, &me, "GET", "/api/v1/me", nil, "")
	if w != nil {
		if at := w.balanceOf(c.t, c.who); at != me.Balance {
			c.t.Fatalf("the balance shown is %d, the wallet's %d", me.Balance, at)
		}
	}
	return me.Balance
}

type gameJSON struct {
	ID      int64  `json:"id"`
	Stake   int64  `json:"stake"`
	Mode    string `json:"mode"`
	Status  string `json:"status"`
	Prize   int64  `json:"prize"`
	Balance int64  `json:"balance"`
	Unit    struct {
		Emission string `json:"emission"`
		Block    int    `json:"block"`
		Index    int    `json:"index"`
	} `json:"unit"`
	Color  *int `json:"color"`
	Boards []struct {
		Colors []int             `json:"colors"`
		Cells  []json.RawMessage `json:"cells"`
	} `json:"boards"`
	Events []struct {
		Board int    `json:"board"`
		Cell  int    `json:"cell"`
		Cause string `json:"cause"`
		From  *int   `json:"from"`
	} `json:"events"`
}

func hidden(cell json.RawMessage) bool { return string(cell) == "null" }

func TestAccountsAndMoney(t *testing.T) {
	skipInWalletMode(t, noAccounts+"; "+noMoney)
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("alice", 0)
	if st, raw := c.call("POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "ALICE", "password": "whatever-else-1"}, ""); st != 409 || !strings.Contains(string(raw), "username_taken") {
		t.Errorf("taken username: %d %s", st, raw)
	}
	other := s.client(t)
	if st, _ := other.call("POST", "/api/v1/session", map[string]string{"username": "alice", "password": "wrong"}, ""); st != 401 {
		t.Errorf("wrong password: %d", st)
	}
	if st, _ := other.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Errorf("me without a session: %d", st)
	}
	var dep struct{ Balance int64 }
	c.must(201, &dep, "POST", "/api/v1/deposits", map[string]int64{"amount": 2500}, "dep-1")
	if dep.Balance != 2500 {
		t.Fatalf("balance after deposit %d", dep.Balance)
	}
	// The same key and body: the first answer again, and no second deposit.
	st, raw := c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 2500}, "dep-1")
	if st != 201 || !strings.Contains(string(raw), `"balance":2500`) || c.balance() != 2500 {
		t.Fatalf("replayed deposit: %d %s, balance %d", st, raw, c.balance())
	}
	if st, _ := c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 900}, "dep-1"); st != 422 {
		t.Errorf("key reused with another body: %d", st)
	}
	if st, _ := c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 900}, ""); st != 400 {
		t.Errorf("no key: %d", st)
	}
	if st, _ := c.call("POST", "/api/v1/withdrawals", map[string]int64{"amount": 2501}, c.key()); st != 402 {
		t.Errorf("withdrawing more than the balance: %d", st)
	}
	var wd struct{ Balance int64 }
	c.must(201, &wd, "POST", "/api/v1/withdrawals", map[string]int64{"amount": 500}, c.key())
	if wd.Balance != 2000 || c.balance() != 2000 {
		t.Fatalf("after a withdrawal: %d", wd.Balance)
	}
	c.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	if st, _ := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Errorf("me after logout: %d", st)
	}
}

func TestLoginThrottling(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("bob", 0)
	codes := []int{}
	for range 7 {
		st, _ := c.call("POST", "/api/v1/session", map[string]string{"username": "bob", "password": "nope"}, "")
		codes = append(codes, st)
	}
	if codes[0] != 401 || codes[len(codes)-1] != 429 {
		t.Fatalf("failed logins answered %v, want 401s then 429", codes)
	}
	// Locked out: even the right password is refused for now.
	if st, _ := c.call("POST", "/api/v1/session", map[string]string{"username": "bob", "password": "secret-bob"}, ""); st != 429 {
		t.Errorf("right password while locked: %d", st)
	}
}

// unitOf reads a sold unit from the emission, as an auditor would from the export.
func (s *testServer) unitOf(t *testing.T, g gameJSON) audit.Record {
	t.Helper()
	r, err := emission.NewReader(s.mustEmission(t), s.db)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Unit(context.Background(), g.Unit.Block, g.Unit.Index)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func (s *testServer) mustEmission(t *testing.T) *emission.Emission {
	e, err := s.db.Emission(context.Background(), s.e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAutoAndManualGames(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("carol", 100_000)
	var extraSeen, manualDone int
	for n := 0; n < 60 && (extraSeen == 0 || manualDone < 5 || n < 16); n++ {
		before := c.balance()
		mode := "manual"
		if n%2 == 1 {
			mode = "auto"
		}
		var g gameJSON
		c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": mode}, c.key())
		rec := s.unitOf(t, g)
		if g.Prize != rec.Prize || g.Balance != before-100+g.Prize {
			t.Fatalf("game %d: prize %d (unit %d), balance %d from %d", g.ID, g.Prize, rec.Prize, g.Balance, before)
		}
		if mode == "auto" {
			if g.Status != "finished" || g.Color == nil || len(g.Boards) == 0 {
				t.Fatalf("auto game: %+v", g)
			}
			continue
		}
		if g.Status != "choose_color" || g.Color != nil || len(g.Boards) != 0 || len(g.Events) != 0 {
			t.Fatalf("new manual game shows too much: %+v", g)
		}
		color := n % 6
		c.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), map[string]int{"color": color}, "")
		for _, cell := range g.Boards[0].Cells {
			if !hidden(cell) {
				t.Fatal("a star is shown before any click")
			}
		}
		clicks := 0
		for g.Status == "playing" {
			next := -1
			for i, col := range g.Boards[0].Colors {
				if col == color && hidden(g.Boards[0].Cells[i]) {
					next = i
					break
				}
			}
			if next < 0 {
				t.Fatalf("game %d playing with nothing left to click", g.ID)
			}
			c.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/reveal", g.ID), map[string]int{"cell": next}, "")
			clicks++
		}
		if g.Status != "finished" || clicks == 0 || clicks > 7 {
			t.Fatalf("game %d: %s after %d clicks", g.ID, g.Status, clicks)
		}
		if rec.Unit.HasB2 {
			extraSeen++
			if len(g.Boards) != 2 {
				t.Fatalf("game %d has an Extra stage but shows %d boards", g.ID, len(g.Boards))
			}
		}
		// Every star revealed is one an event revealed, and the amounts add up to the prize.
		var won int64
		for b, board := range g.Boards {
			for i, cell := range board.Cells {
				if hidden(cell) {
					continue
				}
				var cv struct {
					Kind   string
					Amount int64
				}
				json.Unmarshal(cell, &cv)
				won += cv.Amount
				found := false
				for _, e := range g.Events {
					found = found || (e.Board == b+1 && e.Cell == i)
				}
				if !found {
					t.Fatalf("game %d: board %d cell %d shown without an event", g.ID, b+1, i)
				}
			}
		}
		if won != g.Prize {
			t.Fatalf("game %d: the stars revealed add up to %d, the prize is %d", g.ID, won, g.Prize)
		}
		if st, _ := c.call("POST", fmt.Sprintf("/api/v1/games/%d/reveal", g.ID), map[string]int{"cell": 0}, ""); st != 409 {
			t.Errorf("reveal in a finished game: %d", st)
		}
		manualDone++
	}
	if extraSeen == 0 || manualDone < 5 {
		t.Fatalf("%d manual games, %d with an Extra stage", manualDone, extraSeen)
	}
	var list struct{ Games []gameJSON }
	c.must(200, &list, "GET", "/api/v1/games?limit=10", nil, "")
	if len(list.Games) != 10 || list.Games[0].ID <= list.Games[9].ID {
		t.Fatalf("history: %d games, not newest first", len(list.Games))
	}
	var older struct{ Games []gameJSON }
	c.must(200, &older, "GET", fmt.Sprintf("/api/v1/games?limit=5&before=%d", list.Games[9].ID), nil, "")
	if len(older.Games) != 5 || older.Games[0].ID >= list.Games[9].ID {
		t.Fatalf("history before %d: %+v", list.Games[9].ID, older.Games)
	}
}

func TestFinishAndResume(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("dave", 10_000)
	var g gameJSON
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	c.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), map[string]int{"color": 3}, "")
	first := -1
	for i, col := range g.Boards[0].Colors {
		if col == 3 {
			first = i
			break
		}
	}
	c.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/reveal", g.ID), map[string]int{"cell": first}, "")
	// Another browser, the same player: the game resumes exactly where it stopped.
	other := s.client(t)
	other.login("dave")
	var again gameJSON
	other.must(200, &again, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, "")
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Fatalf("resumed game differs:\n%s\n%s", a, b)
	}
	if st, _ := other.call("GET", fmt.Sprintf("/api/v1/games/%d/proof", g.ID), nil, ""); st != 409 {
		t.Errorf("proof of an unfinished game: %d", st)
	}
	other.must(200, &again, "POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), nil, "")
	if again.Status != "finished" {
		t.Fatalf("finish: %s", again.Status)
	}
	var pr struct {
		Emission string
		Block    int
		Index    int
		Line     string
		Root     string
		Path     []string
	}
	other.must(200, &pr, "GET", fmt.Sprintf("/api/v1/games/%d/proof", g.ID), nil, "")
	path := make([][]byte, len(pr.Path))
	for i, h := range pr.Path {
		path[i], _ = hex.DecodeString(h)
	}
	root, _ := hex.DecodeString(pr.Root)
	e := s.mustEmission(t)
	if pr.Root != hex.EncodeToString(e.Blocks[pr.Block].Root[:]) {
		t.Fatal("the proof's root is not the block's published root")
	}
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(pr.Index), uint64(e.Blocks[pr.Block].Units),
		rfc6962.DefaultHasher.HashLeaf([]byte(pr.Line)), path, root); err != nil {
		t.Fatalf("transparency-dev/merkle rejects the proof: %v", err)
	}
	rec, err := audit.ParseLine([]byte(pr.Line))
	if err != nil || rec.Prize != again.Prize || rec.Index != again.Unit.Index {
		t.Fatalf("proof line %s: %v", pr.Line, err)
	}
	// Another player sees none of it.
	eve := s.client(t)
	eve.signUp("eve", 1000)
	for _, p := range []string{"", "/proof"} {
		if st, _ := eve.call("GET", fmt.Sprintf("/api/v1/games/%d%s", g.ID, p), nil, ""); st != 404 {
			t.Errorf("another player's game%s: %d", p, st)
		}
	}
	if st, _ := eve.call("POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), nil, ""); st != 404 {
		t.Errorf("finishing another player's game: %d", st)
	}
}

// Bad input: each its status, and no balance changes. (frank can afford the sold-out stake: in
// wallet mode the debit comes first, and a stake the wallet refuses is refused as it did, 402.)
func TestBadInput(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("frank", 1000)
	var g gameJSON
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	poor := s.client(t)
	poor.signUp("poor", 50)
	huge := `{"stake":100,"mode":"` + strings.Repeat("a", 40_000) + `"}`
	gp := func(suffix string) string { return fmt.Sprintf("/api/v1/games/%d%s", g.ID, suffix) }
	tests := []struct {
		name   string
		c      *client
		method string
		path   string
		body   any
		key    bool
		status int
		code   string
	}{
		{"unknown stake", c, "POST", "/api/v1/games", `{"stake":150,"mode":"auto"}`, true, 400, "invalid_input"},
		{"unknown mode", c, "POST", "/api/v1/games", `{"stake":100,"mode":"turbo"}`, true, 400, "invalid_input"},
		{"no stake", c, "POST", "/api/v1/games", `{"mode":"auto"}`, true, 400, "invalid_input"},
		{"malformed JSON", c, "POST", "/api/v1/games", `{"stake":100,`, true, 400, "invalid_request"},
		{"unknown field", c, "POST", "/api/v1/games", `{"stake":100,"mode":"auto","prize":5000}`, true, 400, "invalid_request"},
		{"two JSON values", c, "POST", "/api/v1/games", `{"stake":100,"mode":"auto"}{}`, true, 400, "invalid_request"},
		{"huge body", c, "POST", "/api/v1/games", huge, true, 413, "body_too_large"},
		{"no idempotency key", c, "POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, false, 400, "invalid_input"},
		{"too little money", poor, "POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, true, 402, "insufficient_funds"},
		{"sold out stake", c, "POST", "/api/v1/games", `{"stake":200,"mode":"auto"}`, true, 503, "sold_out"},
		{"colour 6", c, "POST", gp("/color"), `{"color":6}`, false, 400, "invalid_input"},
		{"colour -1", c, "POST", gp("/color"), `{"color":-1}`, false, 400, "invalid_input"},
		{"colour as text", c, "POST", gp("/color"), `{"color":"vert"}`, false, 400, "invalid_request"},
		{"reveal before a colour", c, "POST", gp("/reveal"), `{"cell":3}`, false, 409, "invalid_move"},
		{"cell 42", c, "POST", gp("/reveal"), `{"cell":42}`, false, 400, "invalid_input"},
		{"unknown game", c, "GET", "/api/v1/games/999999", nil, false, 404, "not_found"},
		{"game id not a number", c, "GET", "/api/v1/games/abc", nil, false, 404, "not_found"},
		{"another player's game", poor, "POST", gp("/color"), `{"color":1}`, false, 404, "not_found"},
		{"negative deposit", c, "POST", "/api/v1/deposits", `{"amount":-5}`, true, 400, "invalid_input"},
		// docs/spec/API.md 1.2: strict JSON, so that a proxy reading the first key, or keys exactly, and
		// the server cannot disagree on what was asked.
		{"duplicate key", c, "POST", "/api/v1/deposits", `{"amount":-5,"amount":50}`, true, 400, "invalid_request"},
		{"duplicate stake", c, "POST", "/api/v1/games", `{"stake":100,"mode":"auto","stake":300}`, true, 400, "invalid_request"},
		{"key in capitals", c, "POST", "/api/v1/deposits", `{"AMOUNT":7}`, true, 400, "invalid_request"},
		{"key folded by Unicode", c, "POST", "/api/v1/games", `{"ſtake":100,"mode":"auto"}`, true, 400, "invalid_request"},
		{"key in another case", c, "POST", gp("/color"), `{"Color":1}`, false, 400, "invalid_request"},
		{"not UTF-8", c, "POST", "/api/v1/games", "{\"stake\":100,\"mode\":\"auto\xff\"}", true, 400, "invalid_request"},
		{"deposit as float", c, "POST", "/api/v1/deposits", `{"amount":1.5}`, true, 400, "invalid_request"},
		{"limit 0", c, "GET", "/api/v1/games?limit=0", nil, false, 400, "invalid_input"},
		{"short username", c, "POST", "/api/v1/players", `{"last_name":"Martin","first_names":"Jeanne","birth_date":"1990-01-01","username":"x","password":"abcd"}`, false, 400, "invalid_username"},
	}
	if walletSuite {
		// Deposits and sign-ups are the operator's: refused as such once their body is read.
		for i := range tests {
			if tests[i].name == "negative deposit" || tests[i].name == "short username" {
				tests[i].status, tests[i].code = 403, "wallet_mode"
			}
		}
	}
	balances := func() [2]int64 { return [2]int64{c.balance(), poor.balance()} }
	before := balances()
	for _, tt := range tests {
		key := ""
		if tt.key {
			key = tt.c.key()
		}
		st, raw := tt.c.call(tt.method, tt.path, tt.body, key)
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(raw, &e)
		if st != tt.status || e.Error.Code != tt.code || e.Error.Message == "" {
			t.Errorf("%s: %d %s, want %d %s", tt.name, st, raw, tt.status, tt.code)
		}
		if after := balances(); after != before {
			t.Fatalf("%s changed the balances: %v, was %v", tt.name, after, before)
		}
	}
	// The game is untouched by all of that.
	var again gameJSON
	c.must(200, &again, "GET", gp(""), nil, "")
	if again.Status != "choose_color" || len(again.Events) != 0 {
		t.Fatalf("bad input changed the game: %+v", again)
	}
	// A sale refused is not kept under its key. Once the player can afford it, the same request
	// under the same key is a new attempt, and sells (docs/spec/API.md). docs/spec/WALLET.md says
	// it too: a sale refused 402, 403 or 503 is not kept under its Idempotency-Key.
	sale := `{"stake":100,"mode":"auto"}`
	key := poor.key()
	poor.refused(402, "insufficient_funds", "POST", "/api/v1/games", sale, key)
	if w := poor.wallet(); w != nil {
		w.fund(t, "poor", 100)
		blocked, unblocked := true, false
		if _, err := w.fw.SetPlayer(t.Context(), "poor", nil, &blocked); err != nil {
			t.Fatal(err)
		}
		poor.refused(403, "player_blocked", "POST", "/api/v1/games", sale, key)
		if _, err := w.fw.SetPlayer(t.Context(), "poor", nil, &unblocked); err != nil {
			t.Fatal(err)
		}
	} else {
		poor.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 50}, poor.key())
	}
	poor.must(201, nil, "POST", "/api/v1/games", sale, key)
}

// Concurrent duplicates of one request have one effect.
func TestConcurrentDuplicates(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("gina", 1000)
	var wg sync.WaitGroup
	answers := make([]string, 16)
	for i := range answers {
		wg.Go(func() {
			st, raw := c.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, "same-key")
			answers[i] = fmt.Sprint(st, string(raw))
		})
	}
	wg.Wait()
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Fatalf("duplicates answered differently:\n%s\n%s", answers[0], a)
		}
	}
	var list struct{ Games []gameJSON }
	c.must(200, &list, "GET", "/api/v1/games", nil, "")
	if len(list.Games) != 1 {
		t.Fatalf("%d games for one request", len(list.Games))
	}
	if w := c.wallet(); w != nil {
		// In wallet mode the copies waited for the first sale: one debit, none to roll back.
		if b, err := w.fw.Books(t.Context()); err != nil || b.Total.Debits.Count != 1 || b.Total.Rollbacks.Count != 0 {
			t.Fatalf("the wallet's books after one request sent 16 times at once: %+v %v", b.Total, err)
		}
	}
	if c.balance() != 1000-100+list.Games[0].Prize {
		t.Fatalf("balance %d after one game", c.balance())
	}
	// A retry answered after the player can no longer afford the stake still gets the first answer.
	if w := c.wallet(); w != nil {
		w.fund(t, "gina", 0)             // the operator's hand on its wallet
		s.clock.Advance(2 * time.Second) // the balance shown may be a second old (docs/spec/WALLET.md)
	} else {
		c.must(201, nil, "POST", "/api/v1/withdrawals", map[string]int64{"amount": c.balance()}, c.key())
	}
	if st, raw := c.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, "same-key"); fmt.Sprint(st, string(raw)) != answers[0] {
		t.Fatalf("late retry: %d %s, want %s", st, raw, answers[0])
	}
	if c.balance() != 0 {
		t.Fatalf("a late retry moved money: balance %d", c.balance())
	}
}

// 64 players play until the emission sells out: every unit sold once, the books balance, and
// the prizes paid are the table's, block by block. (In wallet mode, an emission of one block: the
// wallet's books are checked round by round, 1,000 of them, and the run stays short.)
func TestSellOut(t *testing.T) {
	blocks := 3
	if walletSuite {
		blocks = 1
	}
	s := newTestServer(t, blocks)
	units := 0
	for _, b := range s.e.Blocks {
		units += b.Units
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	played := 0
	for p := range 64 {
		wg.Go(func() {
			c := s.client(t)
			c.signUp(fmt.Sprintf("player%02d", p), 100_000)
			for {
				st, raw := c.call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, c.key())
				if st == 503 && strings.Contains(string(raw), `"sold_out"`) {
					return
				}
				if st != 201 {
					t.Errorf("player %d: %d %s", p, st, raw)
					return
				}
				mu.Lock()
				played++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st := s.db.WriteStats()
	t.Logf("%d games in %d write batches of %d operations", played, st.Batches, st.Ops)
	if played != units {
		t.Fatalf("%d games sold, the emission holds %d units", played, units)
	}
	c, err := s.db.CheckLedger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatalf("ledger: %v", c.Problems)
	}
	if want := int64(blocks) * s.e.Table.Payout(); c.Prizes != want || c.Stakes != int64(units)*100 || c.Games != units {
		t.Fatalf("prizes %d (table %d), stakes %d, games %d", c.Prizes, want, c.Stakes, c.Games)
	}
	e := s.mustEmission(t)
	for _, b := range e.Blocks {
		if b.Sold != b.Units {
			t.Fatalf("block %d: %d of %d sold", b.Index, b.Sold, b.Units)
		}
	}
}

// Sessions end after 30 minutes unused and 12 hours after login, whatever happens.
func TestSessionTimeouts(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("hana", 0)
	s.clock.Advance(29 * time.Minute)
	if st, _ := c.call("GET", "/api/v1/me", nil, ""); st != 200 {
		t.Fatalf("after 29 idle minutes: %d", st)
	}
	s.clock.Advance(31 * time.Minute)
	if st, _ := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Fatalf("after 31 idle minutes: %d", st)
	}
	c.login("hana")
	for i := range 35 { // active every 20 minutes for 11 h 40
		s.clock.Advance(20 * time.Minute)
		if st, _ := c.call("GET", "/api/v1/me", nil, ""); st != 200 {
			t.Fatalf("an active session ended early, after %d periods: %d", i, st)
		}
	}
	s.clock.Advance(21 * time.Minute)
	if st, _ := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
		t.Fatalf("a session older than 12 hours: %d", st)
	}
}

// A game left unfinished is finished by the server after the configured time, prize unchanged.
func TestAbandonedGamesAreFinished(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("ivan", 1000)
	var a, b gameJSON
	c.must(201, &a, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	c.must(201, &b, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	c.must(200, &b, "POST", fmt.Sprintf("/api/v1/games/%d/color", b.ID), map[string]int{"color": 4}, "")
	if n, err := s.svc.FinishAbandoned(context.Background()); err != nil || n != 0 {
		t.Fatalf("fresh games finished: %d, %v", n, err)
	}
	s.clock.Advance(25 * time.Hour)
	if n, err := s.svc.FinishAbandoned(context.Background()); err != nil || n != 2 {
		t.Fatalf("abandoned games finished: %d, %v", n, err)
	}
	c.login("ivan")
	for _, g := range []gameJSON{a, b} {
		var now gameJSON
		c.must(200, &now, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, "")
		if now.Status != "finished" || now.Prize != g.Prize || now.Color == nil {
			t.Fatalf("abandoned game %d: %+v", g.ID, now)
		}
	}
}

// A retried sale of a « Jouer » game gets the sale's answer, even once the game has moved on.
func TestRetriedManualSale(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("judy", 1000)
	st, first := c.call("POST", "/api/v1/games", `{"stake":100,"mode":"manual"}`, "manual-key")
	if st != 201 {
		t.Fatalf("sale: %d %s", st, first)
	}
	var g gameJSON
	json.Unmarshal(first, &g)
	c.must(200, nil, "POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), nil, "")
	st, again := c.call("POST", "/api/v1/games", `{"stake":100,"mode":"manual"}`, "manual-key")
	if st != 201 || !bytes.Equal(first, again) {
		t.Fatalf("retry answered %d %s, the sale %s", st, again, first)
	}
}

// Idempotency keys are kept 48 hours (docs/spec/API.md: at least 24), then forgotten. A retry
// within them gets the first answer and moves nothing. After them, the key is a new request. The
// request is a deposit, or in wallet mode, where deposits are the operator's, a sale.
func TestKeysAreKeptThenForgotten(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("kate", 1000)
	path, body := "/api/v1/deposits", `{"amount":100}`
	if walletSuite {
		path, body = "/api/v1/games", `{"stake":100,"mode":"auto"}`
	}
	// effects counts what the requests did: the money deposited, or the games sold.
	effects := func() int64 {
		if walletSuite {
			var list struct{ Games []gameJSON }
			c.must(200, &list, "GET", "/api/v1/games", nil, "")
			return int64(len(list.Games))
		}
		return (c.balance() - 1000) / 100
	}
	st, answer := c.call("POST", path, body, "kept")
	if st != 201 || effects() != 1 {
		t.Fatalf("the request: %d %s, %d effects", st, answer, effects())
	}
	s.clock.Advance(25 * time.Hour)
	c.login("kate")
	if _, err := s.svc.ForgetOldKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, raw := c.call("POST", path, body, "kept"); again != 201 || !bytes.Equal(raw, answer) || effects() != 1 {
		t.Fatalf("a retry after 25 hours: %d %s (the first answer %s), %d effects, want 1", again, raw, answer, effects())
	}
	s.clock.Advance(24 * time.Hour)
	c.login("kate")
	if _, err := s.svc.ForgetOldKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, raw := c.call("POST", path, body, "kept"); again != 201 || bytes.Equal(raw, answer) || effects() != 2 {
		t.Fatalf("after 49 hours the key is a new request: %d %s, %d effects, want 2", again, raw, effects())
	}
}
