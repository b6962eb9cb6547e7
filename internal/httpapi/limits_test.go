package httpapi_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// limitsView is GET /api/v1/me/limits as docs/spec/API.md 1.1 says it.
type limitsView struct {
	DepositWeekly *int64 `json:"deposit_weekly"`
	StakeWeekly   *int64 `json:"stake_weekly"`
	Deposited7d   int64  `json:"deposited_7d"`
	Staked7d      int64  `json:"staked_7d"`
	Pending       []struct {
		Limit       string `json:"limit"`
		Amount      int64  `json:"amount"`
		EffectiveAt string `json:"effective_at"`
	} `json:"pending"`
	RealityCheck *int `json:"reality_check_minutes"`
}

// bare signs a player up and logs in, setting no limit.
func (s *testServer) bare(t *testing.T, name string) *client {
	c := s.client(t)
	c.must(201, nil, "POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01",
		"username": name, "password": "secret-" + name}, "")
	c.login(name)
	return c
}

// login opens a new session of the player in the client: with the password, or in wallet mode
// with the operator's launch.
func (c *client) login(name string) {
	c.t.Helper()
	if w := c.wallet(); w != nil {
		launchInto(c.t, c.base, walletSecret, name, c.http, c.srv.clock.Now)
		c.who = name
		return
	}
	c.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
}

// refused checks that a call is refused with a status and a code.
func (c *client) refused(status int, code, method, path string, body any, key string) {
	c.t.Helper()
	if st, raw := c.call(method, path, body, key); st != status || !strings.Contains(string(raw), `"code":"`+code+`"`) {
		c.t.Fatalf("%s %s %v: %d %s, want %d %s", method, path, body, st, raw, status, code)
	}
}

// The weekly limits through the API, on an injected clock:
//   - none by default, and each asked for before the first deposit and stake;
//   - up to a limit and not a cent past, refusals changing nothing;
//   - a raise pending for 48 hours, and a lowering holding at once and cancelling the raise;
//   - the week rolling.
func TestWeeklyLimits(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	c := srv.bare(t, "léa")
	var l limitsView
	c.must(200, &l, "GET", "/api/v1/me/limits", nil, "")
	if l.DepositWeekly != nil || l.StakeWeekly != nil || l.RealityCheck != nil || l.Pending == nil || len(l.Pending) != 0 {
		t.Fatalf("limits at first: %+v", l)
	}
	c.refused(403, "limits_required", "POST", "/api/v1/deposits", map[string]int64{"amount": 100}, c.key())
	for _, bad := range []string{`{}`, `{"deposit_weekly":-1}`, `{"deposit_weekly":100000001}`, `{"deposit_weekly":null}`, `{"stake_weekly":1.5}`,
		`{"stake_weekly":"100"}`, `{"reality_check_minutes":10}`, `{"reality_check_minutes":121}`, `{"reality_check_minutes":0}`} {
		c.refused(400, "invalid_input", "PUT", "/api/v1/me/limits", bad, "")
	}
	for _, bad := range []string{`{"daily":5}`, `{"Deposit_Weekly":5}`, `{"deposit_weekly":5,"deposit_weekly":9}`, `{"deposit_weekly":5} 1`} {
		c.refused(400, "invalid_request", "PUT", "/api/v1/me/limits", bad, "")
	}
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"deposit_weekly": 2000, "reality_check_minutes": 30}, "")
	if *l.DepositWeekly != 2000 || l.StakeWeekly != nil || *l.RealityCheck != 30 {
		t.Fatalf("after setting the deposit limit: %+v", l)
	}
	c.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 1500}, c.key())
	c.refused(403, "limit_reached", "POST", "/api/v1/deposits", map[string]int64{"amount": 501}, c.key())
	c.refused(403, "limits_required", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	if c.balance() != 1500 {
		t.Fatalf("balance %d after refusals", c.balance())
	}
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 300}, "")
	for range 3 {
		c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	before := c.balance()
	c.refused(403, "limit_reached", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	var games struct{ Games []any }
	c.must(200, &games, "GET", "/api/v1/games", nil, "")
	if c.balance() != before || len(games.Games) != 3 {
		t.Fatalf("a refused sale changed something: balance %d (was %d), %d games", c.balance(), before, len(games.Games))
	}
	c.must(200, &l, "GET", "/api/v1/me/limits", nil, "")
	if l.Deposited7d != 1500 || l.Staked7d != 300 {
		t.Fatalf("the week's sums: %+v", l)
	}
	// A raise: pending for 48 hours, the old limit holding meanwhile.
	asked := srv.clock.Now()
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 500}, "")
	if *l.StakeWeekly != 300 || len(l.Pending) != 1 || l.Pending[0].Limit != "stake_weekly" || l.Pending[0].Amount != 500 ||
		l.Pending[0].EffectiveAt != asked.Add(48*time.Hour).UTC().Format(time.RFC3339) {
		t.Fatalf("a raise: %+v", l)
	}
	c.refused(403, "limit_reached", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	// The same raise sent again an hour later (a client sending all its limits each time) keeps
	// its time.
	srv.clock.Advance(time.Hour)
	c.login("léa")
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 500, "deposit_weekly": 2000}, "")
	if len(l.Pending) != 1 || l.Pending[0].EffectiveAt != asked.Add(48*time.Hour).UTC().Format(time.RFC3339) || *l.DepositWeekly != 2000 {
		t.Fatalf("the raise sent again: %+v", l)
	}
	srv.clock.Advance(46 * time.Hour)
	c.login("léa") // the session ended meanwhile
	c.refused(403, "limit_reached", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	srv.clock.Advance(time.Hour)
	c.login("léa")
	c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	c.must(200, &l, "GET", "/api/v1/me/limits", nil, "")
	if *l.StakeWeekly != 500 || len(l.Pending) != 0 || l.Staked7d != 400 {
		t.Fatalf("48 hours after the raise: %+v", l)
	}
	// A raise cancelled by a later lowering, which holds at once.
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 5000}, "")
	c.must(200, &l, "PUT", "/api/v1/me/limits", map[string]any{"stake_weekly": 400}, "")
	if *l.StakeWeekly != 400 || len(l.Pending) != 0 {
		t.Fatalf("a lowering after a raise: %+v", l)
	}
	c.refused(403, "limit_reached", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	// The week rolls: 7 × 24 hours after the first stakes and the deposit, they no longer count.
	srv.clock.Advance(5*24*time.Hour + time.Minute)
	c.login("léa")
	c.must(200, &l, "GET", "/api/v1/me/limits", nil, "")
	if l.Deposited7d != 0 || l.Staked7d != 100 {
		t.Fatalf("a week later: %+v", l)
	}
	c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	c.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 2000}, c.key())
}

// Concurrent sales and deposits of one player at the edge of a limit: exactly as many pass as it
// allows, the others are refused with limit_reached, and the books balance.
func TestLimitEdgeUnderConcurrentRequests(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	c := srv.bare(t, "noé")
	c.must(200, nil, "PUT", "/api/v1/me/limits", map[string]any{"deposit_weekly": 1000, "stake_weekly": 700}, "")
	count := func(n int, call func(i int) (int, []byte)) (ok int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range n {
			wg.Go(func() {
				st, raw := call(i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case st == 201:
					ok++
				case st != 403 || !strings.Contains(string(raw), "limit_reached"):
					t.Errorf("%d %s", st, raw)
				}
			})
		}
		wg.Wait()
		return ok
	}
	deposits := count(30, func(i int) (int, []byte) {
		return c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 100}, fmt.Sprint("dep-", i))
	})
	sales := count(30, func(i int) (int, []byte) {
		return c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, fmt.Sprint("play-", i))
	})
	if deposits != 10 || sales != 7 {
		t.Fatalf("%d deposits of 1 € passed a weekly limit of 10 €, %d sales of 1 € one of 7 €", deposits, sales)
	}
	var l limitsView
	c.must(200, &l, "GET", "/api/v1/me/limits", nil, "")
	if l.Deposited7d != 1000 || l.Staked7d != 700 {
		t.Fatalf("the week's sums: %+v", l)
	}
	if chk, err := srv.db.CheckLedger(t.Context()); err != nil || len(chk.Problems) != 0 {
		t.Fatalf("ledger: %+v %v", chk, err)
	}
}
