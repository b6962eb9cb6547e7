package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/app/apptest"
	"starcolor/internal/audit"
	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/scenario"
	"starcolor/internal/session"
	"starcolor/internal/throttle"
)

// losingUnit is a unit of the test definition at 1 € that wins nothing, made by the generator as
// a demo game's unit is (game.DemoConfig.Unit).
func losingUnit(t *testing.T) audit.Record {
	t.Helper()
	def := gamedeftest.Mini(t)
	table, err := def.Table(100)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := scenario.New(def, table)
	if err != nil {
		t.Fatal(err)
	}
	var rec audit.Record
	if err := gen.Unit(&rec.Unit, 0, scenario.NewStream([32]byte{'l', 'o', 's', 'e'})); err != nil {
		t.Fatal(err)
	}
	return rec
}

// The tests of demo play (docs/spec/API.md 1.2 « Demo play »), on SQLite and PostgreSQL as the whole suite.

// demoClient is a visitor's client with a demo session just opened.
func (s *testServer) demoClient(t *testing.T) *client {
	t.Helper()
	c := s.client(t)
	var d struct {
		Demo    *bool
		Balance *int64
	}
	c.must(201, &d, "POST", "/api/v1/demo", nil, "")
	if d.Demo == nil || !*d.Demo || d.Balance == nil {
		t.Fatalf("POST /api/v1/demo answered %+v", d)
	}
	return c
}

// demoGame is a game as the API shows it, with its demo mark and its unit as raw JSON.
type demoGame struct {
	gameJSON
	Demo    bool            `json:"demo"`
	RawUnit json.RawMessage `json:"unit"`
}

// noDemoPolicy is a policy without the rate of new demo sessions, for tests that open many
// from one address.
func noDemoPolicy(cfg *game.Config, _ *clock) { cfg.Demo.Rate = throttle.Rate{} }

// The books a demo game must not move (apptest.Books), and besides, the public commitments and
// the metrics of sales: their bytes.
func (s *testServer) books(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(s.url + "/api/v1/emissions")
	if err != nil {
		t.Fatal(err)
	}
	commitments, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var sales []string
	for _, m := range []string{"starcolor_sales_total", "starcolor_stakes_cents_total", "starcolor_prizes_cents_total"} {
		sales = append(sales, fmt.Sprint(m, " ", s.metric(t, m)))
	}
	return apptest.Books(t, s.db) + string(commitments) + strings.Join(sales, "\n")
}

// A demo session plays as a player does: the same calls, stakes, modes, answers and errors. Each
// answer is marked "demo": true, with a game's "unit" null. Its play money moves by its stakes and
// prizes. The history and each game read back.
func TestDemoPlay(t *testing.T) {
	s := newTestServerWith(t, 1, noDemoPolicy)
	c := s.demoClient(t)
	var me map[string]any
	c.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me["demo"] != true || me["balance"] != float64(5000) {
		t.Fatalf("GET /api/v1/me in a demo: %v", me)
	}
	balance := int64(5000)
	var auto demoGame
	key := c.key()
	st, first := c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, key)
	if st != 201 {
		t.Fatalf("a demo « Auto » game: %d %s", st, first)
	}
	json.Unmarshal(first, &auto)
	if !auto.Demo || string(auto.RawUnit) != "null" || auto.Status != "finished" || auto.Stake != 100 || auto.Color == nil ||
		auto.Balance != balance-100+auto.Prize || len(auto.Boards) == 0 || len(auto.Events) == 0 {
		t.Fatalf("a demo « Auto » game: %s", first)
	}
	balance = auto.Balance
	// A retry answers the same, and sells nothing again; the same key with another body is a 422.
	if st, again := c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, key); st != 201 || string(again) != string(first) {
		t.Fatalf("a demo sale again under its key: %d %s\nfirst: %s", st, again, first)
	}
	c.refused(422, "idempotency_key_reused", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, key)
	c.refused(400, "invalid_input", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, "")
	c.refused(400, "invalid_input", "POST", "/api/v1/games", map[string]any{"stake": 150, "mode": "auto"}, c.key())
	c.refused(400, "invalid_input", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "fast"}, c.key())
	c.refused(400, "invalid_request", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto", "extra": 1}, c.key())

	// A manual game: the colour, stars of that colour, a star of another refused, the rest.
	var g demoGame
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	if g.Status != "choose_color" || g.Color != nil || len(g.Boards) != 0 || !g.Demo || g.Balance != balance-100+g.Prize {
		t.Fatalf("a demo manual game: %+v", g)
	}
	balance = g.Balance
	path := fmt.Sprintf("/api/v1/games/%d", g.ID)
	c.refused(409, "invalid_move", "POST", path+"/reveal", map[string]int{"cell": 0}, "")
	c.must(200, &g, "POST", path+"/color", map[string]int{"color": 4}, "")
	if g.Status != "playing" || *g.Color != 4 || len(g.Boards) != 1 || !g.Demo {
		t.Fatalf("after the colour: %+v", g)
	}
	for i, col := range g.Boards[0].Colors {
		if col != 4 && hidden(g.Boards[0].Cells[i]) {
			c.refused(409, "invalid_move", "POST", path+"/reveal", map[string]int{"cell": i}, "")
			break
		}
	}
	for clicks := 0; g.Status == "playing" && clicks < 3; clicks++ {
		b := g.Boards[len(g.Boards)-1]
		for i, col := range b.Colors {
			if col == 4 && hidden(b.Cells[i]) {
				c.must(200, &g, "POST", path+"/reveal", map[string]int{"cell": i}, "")
				break
			}
		}
	}
	if g.Status == "playing" {
		c.must(200, &g, "POST", path+"/finish", nil, "")
	}
	if g.Status != "finished" || !g.Demo || len(g.Events) == 0 {
		t.Fatalf("the demo game at its end: %+v", g)
	}
	c.refused(409, "invalid_move", "POST", path+"/finish", nil, "")

	// The history, and each game, as a player's: newest first, the same bodies.
	var list struct {
		Demo  bool              `json:"demo"`
		Games []json.RawMessage `json:"games"`
	}
	c.must(200, &list, "GET", "/api/v1/games", nil, "")
	if !list.Demo || len(list.Games) != 2 {
		t.Fatalf("the demo history: %+v", list)
	}
	st, one := c.call("GET", path, nil, "")
	if st != 200 || string(one) != string(list.Games[0]) {
		t.Fatalf("GET %s: %d %s\nin the history: %s", path, st, one, list.Games[0])
	}
	var page struct{ Games []demoGame }
	c.must(200, &page, "GET", fmt.Sprintf("/api/v1/games?limit=1&before=%d", g.ID), nil, "")
	if len(page.Games) != 1 || page.Games[0].ID != auto.ID {
		t.Fatalf("the history's second page: %+v", page)
	}
	c.refused(400, "invalid_input", "GET", "/api/v1/games?limit=0", nil, "")
	c.refused(404, "not_found", "GET", "/api/v1/games/999999", nil, "")
	c.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me["balance"] != float64(balance) {
		t.Fatalf("the play money %v, want %d", me["balance"], balance)
	}

	// A demo game's answer has a real game's shape: the same fields, "demo" added.
	p := s.client(t)
	p.signUp("real", 1000)
	_, realRaw := p.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	var realFields, demoFields map[string]json.RawMessage
	json.Unmarshal(realRaw, &realFields)
	json.Unmarshal(first, &demoFields)
	delete(demoFields, "demo")
	if r, d := slices.Sorted(mapKeys(realFields)), slices.Sorted(mapKeys(demoFields)); !slices.Equal(r, d) {
		t.Fatalf("a demo game's fields %v, a real game's %v", d, r)
	}
	// A player's own games and a demo session's are apart.
	var realList struct{ Games []demoGame }
	p.must(200, &realList, "GET", "/api/v1/games", nil, "")
	if len(realList.Games) != 1 || realList.Games[0].Demo {
		t.Fatalf("the player's history holds %+v", realList.Games)
	}
}

func mapKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// With a demo session, deposits, withdrawals, limits, the reality check, exclusion, closure, the
// password and proofs are 403 demo_mode, and change nothing. A demo session's play money runs out
// as a balance does (402).
func TestDemoModeRefusals(t *testing.T) {
	// Every demo game loses: drawn, a unit may win enough to play past the 200 games a session
	// may play, which refuses the next with 429, not the 402 this test wants (1 run in 6).
	lose := losingUnit(t)
	s := newTestServerWith(t, 1, func(cfg *game.Config, _ *clock) {
		cfg.Demo.Balance = 100
		cfg.Demo.Unit = func(int64) (audit.Record, error) { return lose, nil }
	})
	c := s.demoClient(t)
	var g demoGame
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	before := s.books(t)
	var history json.RawMessage
	c.must(200, &history, "GET", "/api/v1/games", nil, "")
	for _, r := range []struct {
		method, path string
		body         any
		key          bool
	}{
		{"POST", "/api/v1/deposits", map[string]int64{"amount": 1000}, true},
		{"POST", "/api/v1/withdrawals", map[string]int64{"amount": 10}, true},
		{"GET", "/api/v1/me/limits", nil, false},
		{"PUT", "/api/v1/me/limits", map[string]int64{"deposit_weekly": 1000}, false},
		{"POST", "/api/v1/me/exclusion", map[string]int{"days": 7}, false},
		{"DELETE", "/api/v1/me", nil, false},
		{"GET", fmt.Sprintf("/api/v1/games/%d/proof", g.ID), nil, false},
		{"POST", "/api/v1/me/reality-check", map[string]int{"minutes": 15}, false},
		{"PUT", "/api/v1/me/password", map[string]string{"current": "x", "new": "a new long password"}, false},
	} {
		key := ""
		if r.key {
			key = c.key()
		}
		c.refused(403, "demo_mode", r.method, r.path, r.body, key)
	}
	var after json.RawMessage
	c.must(200, &after, "GET", "/api/v1/games", nil, "")
	if string(after) != string(history) {
		t.Fatalf("the demo history changed:\n%s\n%s", history, after)
	}
	if b := s.books(t); b != before {
		t.Fatalf("a refusal changed the books:\n%s\n%s", before, b)
	}
	// The play money runs out as a balance does: 402, and nothing taken.
	for g.Balance >= 100 {
		c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	c.refused(402, "insufficient_funds", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	var me struct{ Balance int64 }
	if c.must(200, &me, "GET", "/api/v1/me", nil, ""); me.Balance != g.Balance {
		t.Fatalf("the play money %d after a refused game, want %d", me.Balance, g.Balance)
	}
	// Without a session, or with one ended, the same calls are 401 as ever.
	c.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	c.refused(401, "not_logged_in", "POST", "/api/v1/deposits", map[string]int64{"amount": 1000}, c.key())
	c.refused(401, "not_logged_in", "GET", "/api/v1/me", nil, "")
}

// A batch of demo games, by hand and « Auto », in several sessions, changes no byte of:
//   - the ledger check;
//   - the emissions' sold counts;
//   - the back office's totals and reports;
//   - the players' totals;
//   - the metrics of sales.
func TestDemoLeavesTheBooksAlone(t *testing.T) {
	s := newTestServerWith(t, 1, noDemoPolicy)
	p := s.client(t)
	p.signUp("real", 2000)
	for range 5 {
		p.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	}
	before := s.books(t)
	for range 3 {
		c := s.demoClient(t)
		for i := range 8 {
			var g demoGame
			st, raw := c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": []string{"auto", "manual"}[i%2]}, c.key())
			if st == 402 {
				break
			}
			if st != 201 {
				t.Fatalf("a demo game: %d %s", st, raw)
			}
			json.Unmarshal(raw, &g)
			if g.Mode == "manual" {
				path := fmt.Sprintf("/api/v1/games/%d", g.ID)
				c.must(200, &g, "POST", path+"/color", map[string]int{"color": i % 6}, "")
				c.must(200, &g, "POST", path+"/finish", nil, "")
			}
		}
		c.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	}
	// One left open, and swept.
	open := s.demoClient(t)
	open.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, open.key())
	if after := s.books(t); after != before {
		t.Fatalf("demo games changed the books:\nbefore %s\nafter  %s", before, after)
	}
	s.clock.Advance(5 * time.Hour)
	if err := s.svc.ForgetExpiredSessions(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := s.books(t); after != before {
		t.Fatalf("the sweep of demo sessions changed the books:\nbefore %s\nafter  %s", before, after)
	}
}

// A demo session is forgotten, its games with it, when it ends:
//   - at its logout;
//   - after Demo.Idle without a play or a move;
//   - Demo.Lifetime from its start, however busy: refused at once, then swept.
func TestDemoSessionEnds(t *testing.T) {
	s := newTestServerWith(t, 1, noDemoPolicy)
	ctx := context.Background()
	// Logout.
	c := s.demoClient(t)
	c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	h := c.demoHash(t)
	c.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	if _, err := s.db.DemoSession(ctx, h); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a demo session after its logout: %v", err)
	}
	if games, err := s.db.DemoGames(ctx, h, 10, 0); err != nil || len(games) != 0 {
		t.Fatalf("a demo session's games after its logout: %d, %v", len(games), err)
	}
	c.refused(401, "not_logged_in", "GET", "/api/v1/games", nil, "")

	// Idle: refused 30 minutes after its last play, though read meanwhile.
	idle := s.demoClient(t)
	idle.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, idle.key())
	s.clock.Advance(20 * time.Minute)
	idle.must(200, nil, "GET", "/api/v1/me", nil, "")
	s.clock.Advance(11 * time.Minute)
	idle.refused(401, "not_logged_in", "GET", "/api/v1/me", nil, "")
	if _, err := s.db.DemoSession(ctx, idle.demoHash(t)); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("an idle demo session is still stored once refused: %v", err)
	}

	// Too old: refused 4 hours after its start, however busy; the sweep forgets it meanwhile.
	busy := s.demoClient(t)
	swept := s.demoClient(t)
	for range 9 {
		s.clock.Advance(25 * time.Minute)
		busy.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, busy.key())
	}
	if err := s.svc.ForgetExpiredSessions(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.DemoSession(ctx, swept.demoHash(t)); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("an idle demo session after the sweep: %v", err)
	}
	busy.must(200, nil, "GET", "/api/v1/me", nil, "")
	s.clock.Advance(20 * time.Minute) // 4 h 5 min after its start, 20 min after its last game
	busy.refused(401, "not_logged_in", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, busy.key())
	left := s.demoClient(t)
	s.clock.Advance(4*time.Hour + time.Minute)
	if err := s.svc.ForgetExpiredSessions(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range [][]byte{busy.demoHash(t), left.demoHash(t)} {
		if _, err := s.db.DemoSession(ctx, h); !fault.Is(err, fault.NotLoggedIn) {
			t.Fatalf("a demo session too old after the sweep: %v", err)
		}
		if games, err := s.db.DemoGames(ctx, h, 10, 0); err != nil || len(games) != 0 {
			t.Fatalf("the games of a swept demo session: %d, %v", len(games), err)
		}
	}

	// The cookie lasts as long as a demo session may.
	resp, err := http.Post(s.url+"/api/v1/demo", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ck := resp.Cookies(); len(ck) != 1 || ck[0].MaxAge != int(game.DefaultDemo.Lifetime.Seconds()) || !ck[0].HttpOnly {
		t.Fatalf("the demo cookie: %+v", ck)
	}
}

// demoHash is the hash of the client's demo session's token, as the store knows it.
func (c *client) demoHash(t *testing.T) []byte {
	t.Helper()
	u, _ := url.Parse(c.base)
	for _, k := range c.http.Jar.Cookies(u) {
		if game.IsDemoToken(k.Value) {
			h := session.Hash(k.Value)
			return h[:]
		}
	}
	t.Fatal("no demo session's cookie")
	return nil
}

// What a visitor can make the server hold is bounded: the games of a demo session, and the demo
// sessions at once. A new demo session replaces the client's last one.
func TestDemoBounds(t *testing.T) {
	s := newTestServerWith(t, 1, func(cfg *game.Config, _ *clock) {
		cfg.Demo.Rate, cfg.Demo.MaxGames, cfg.Demo.MaxSessions = throttle.Rate{}, 3, 2
	})
	c := s.demoClient(t)
	for range 3 {
		c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	c.refused(429, "too_many_attempts", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	first := c.demoHash(t)
	c.must(201, nil, "POST", "/api/v1/demo", nil, "")
	if _, err := s.db.DemoSession(context.Background(), first); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("the demo session a new one replaced: %v", err)
	}
	c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	s.demoClient(t)
	if st, raw := s.client(t).call("POST", "/api/v1/demo", nil, ""); st != 503 || !strings.Contains(string(raw), `"code":"unavailable"`) {
		t.Fatalf("a demo session past the bound: %d %s", st, raw)
	}
}

// New demo sessions have a rate of their own per address, apart from the logins':
//   - the 4th of a burst of 3 is a 429 with Retry-After and the usual error;
//   - another address is not slowed;
//   - the logins of the same address are not either.
//
// The demo moves of an address have their cap.
func TestDemoRateLimits(t *testing.T) {
	s := newTestServerWith(t, 1, func(cfg *game.Config, _ *clock) {
		cfg.Demo.Rate = throttle.Rate{Burst: 3, Every: 20 * time.Second}
		cfg.Demo.MoveRate = throttle.Rate{Burst: 6, Every: 10 * time.Second}
		cfg.AuthRate = throttle.Rate{Burst: 2, Every: time.Hour}
	})
	for range 3 {
		s.demoClient(t)
	}
	start := func(hc *http.Client) (*http.Response, []byte) {
		resp, err := hc.Post(s.url+"/api/v1/demo", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	resp, raw := start(http.DefaultClient)
	var e struct {
		Error struct{ Code, Message string }
	}
	if json.Unmarshal(raw, &e); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "20" || e.Error.Code != "too_many_attempts" || e.Error.Message == "" {
		t.Fatalf("the 4th demo session from one address: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
	if resp, raw := start(clientFrom(t, "127.0.0.2")); resp.StatusCode != 201 {
		t.Fatalf("a demo session from another address: %d %s", resp.StatusCode, raw)
	}
	if !walletSuite {
		// The logins' limiter is not the demo's: the address still has its logins.
		if st, raw := s.client(t).call("POST", "/api/v1/session", map[string]string{"username": "nobody", "password": "whatever-1"}, ""); st != 401 {
			t.Fatalf("a login from the address out of demo sessions: %d %s", st, raw)
		}
		for range 2 {
			s.client(t).call("POST", "/api/v1/session", map[string]string{"username": "nobody", "password": "whatever-1"}, "")
		}
		s.clock.Advance(20 * time.Second)
		s.demoClient(t) // the address out of logins has its demo sessions
	} else {
		s.clock.Advance(20 * time.Second)
	}

	// Moves: 6 at once (a sale, a colour, four refused reveals: refused moves count too), then
	// one every 10 s; the one refused for the cap changes nothing.
	c := s.client(t)
	c.http = clientFrom(t, "127.0.0.3")
	c.http.Jar, _ = cookiejar.New(nil)
	c.must(201, nil, "POST", "/api/v1/demo", nil, "")
	var g demoGame
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	path := fmt.Sprintf("/api/v1/games/%d", g.ID)
	c.must(200, &g, "POST", path+"/color", map[string]int{"color": 1}, "")
	other, mine := -1, -1
	for i, col := range g.Boards[0].Colors {
		switch {
		case col != 1 && other < 0:
			other = i
		case col == 1 && mine < 0:
			mine = i
		}
	}
	for range 4 {
		c.refused(409, "invalid_move", "POST", path+"/reveal", map[string]int{"cell": other}, "")
	}
	var before, after json.RawMessage
	c.must(200, &before, "GET", path, nil, "")
	c.refused(429, "too_many_attempts", "POST", path+"/reveal", map[string]int{"cell": mine}, "")
	if c.must(200, &after, "GET", path, nil, ""); string(after) != string(before) {
		t.Fatalf("a move refused for the cap changed the game:\n%s\n%s", before, after)
	}
	s.clock.Advance(10 * time.Second)
	c.must(200, &g, "POST", path+"/reveal", map[string]int{"cell": mine}, "")
}

// Moves sent at once on one demo game answer as on a real game:
//   - of the same reveal, or of the finish, sent 12 times at once, one is played and the others
//     are 409 invalid_move;
//   - the same sale sent 12 times at once under one key sells one game.
//
// 40 games of each kind, so that the moves meet in every order (on PostgreSQL, on three servers).
func TestDemoConcurrentMoves(t *testing.T) {
	// The tests' clock stands still: the caps on demo sessions and moves would never refill.
	servers := newTestServersWith(t, 1, 3, func(cfg *game.Config, _ *clock) { cfg.Demo.Rate, cfg.Demo.MoveRate = throttle.Rate{}, throttle.Rate{} })
	base := servers[0]
	real := base.client(t)
	real.signUp("racer", 100_000)
	demo := base.demoClient(t)
	// The clients of one session on each server: the same cookie.
	on := func(c *client) []*client {
		out := []*client{c}
		for _, s := range servers[1:] {
			o := s.client(t)
			u, _ := url.Parse(c.base)
			ou, _ := url.Parse(o.base)
			o.http.Jar.SetCookies(ou, c.http.Jar.Cookies(u))
			out = append(out, o)
		}
		return out
	}
	race := func(cs []*client, path string, body any) (ok, conflict int) {
		var wg sync.WaitGroup
		codes := make([]int, 12)
		raws := make([][]byte, 12)
		for i := range codes {
			wg.Go(func() { codes[i], raws[i] = cs[i%len(cs)].call("POST", path, body, "") })
		}
		wg.Wait()
		for i, st := range codes {
			switch {
			case st == 200:
				ok++
			case st == 409 && strings.Contains(string(raws[i]), `"code":"invalid_move"`):
				conflict++
			default:
				t.Fatalf("POST %s at once: %d %s", path, st, raws[i])
			}
		}
		return ok, conflict
	}
	for _, who := range []struct {
		name string
		c    *client
	}{{"a real game", real}, {"a demo game", demo}} {
		cs := on(who.c)
		for n := range 40 {
			var g demoGame
			who.c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, who.c.key())
			path := fmt.Sprintf("/api/v1/games/%d", g.ID)
			who.c.must(200, &g, "POST", path+"/color", map[string]int{"color": n % 6}, "")
			if g.Demo != (who.c == demo) {
				t.Fatalf("%s marked demo %v", who.name, g.Demo)
			}
			cell := slices.Index(g.Boards[0].Colors, n%6)
			if ok, conflict := race(cs, path+"/reveal", map[string]int{"cell": cell}); ok != 1 || conflict != 11 {
				t.Fatalf("%s: the same reveal 12 times at once: %d played, %d refused; want 1 and 11", who.name, ok, conflict)
			}
			var now demoGame
			who.c.must(200, &now, "GET", path, nil, "")
			if now.Status != "finished" {
				if ok, conflict := race(cs, path+"/finish", nil); ok != 1 || conflict != 11 {
					t.Fatalf("%s: the finish 12 times at once: %d played, %d refused; want 1 and 11", who.name, ok, conflict)
				}
			}
		}
		// The same sale 12 times at once under one key: one game, one answer.
		key := who.c.key()
		var wg sync.WaitGroup
		answers := make([]string, 12)
		for i := range answers {
			wg.Go(func() {
				st, raw := cs[i%len(cs)].call("POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, key)
				answers[i] = fmt.Sprint(st, " ", string(raw))
			})
		}
		wg.Wait()
		for _, a := range answers[1:] {
			if a != answers[0] || !strings.HasPrefix(a, "201 ") {
				t.Fatalf("%s: one sale sent 12 times answered differently:\n%s\n%s", who.name, answers[0], a)
			}
		}
		var list struct{ Games []demoGame }
		who.c.must(200, &list, "GET", "/api/v1/games?limit=100", nil, "")
		if len(list.Games) != 41 {
			t.Fatalf("%s: %d games, want 41", who.name, len(list.Games))
		}
	}
}

// On several servers of one database (PostgreSQL), a demo session works whichever server
// answers. It is opened on one, played on another, moved on a third, ended on the first, and then
// refused on all of them.
func TestDemoAcrossServers(t *testing.T) {
	servers := newTestServers(t, 1, 3)
	c := servers[0].demoClient(t)
	at := func(i int) *client {
		o := servers[i].client(t)
		u, _ := url.Parse(c.base)
		ou, _ := url.Parse(o.base)
		o.http.Jar.SetCookies(ou, c.http.Jar.Cookies(u))
		return o
	}
	var g demoGame
	at(1).must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	path := fmt.Sprintf("/api/v1/games/%d", g.ID)
	at(2).must(200, &g, "POST", path+"/color", map[string]int{"color": 3}, "")
	at(0).must(200, &g, "POST", path+"/finish", nil, "")
	var list struct{ Games []demoGame }
	at(1).must(200, &list, "GET", "/api/v1/games", nil, "")
	if len(list.Games) != 1 || list.Games[0].Status != "finished" || !list.Games[0].Demo {
		t.Fatalf("the demo history on another server: %+v", list.Games)
	}
	var me struct{ Balance int64 }
	at(2).must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Balance != g.Balance {
		t.Fatalf("the play money on a third server %d, want %d", me.Balance, g.Balance)
	}
	c.must(204, nil, "DELETE", "/api/v1/session", nil, "")
	for i := range servers {
		at(i).refused(401, "not_logged_in", "GET", "/api/v1/games", nil, "")
	}
}
