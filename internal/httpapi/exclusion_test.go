package httpapi_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"starcolor/internal/game"
	"starcolor/internal/httpapi"
	"starcolor/internal/lottery"
)

// Self-exclusion (docs/spec/API.md 1.1): every session of the player ends at once; logging in is refused
// until it ends, saying until when; no account opens meanwhile with the same identity, however
// written; it cannot be shortened; it ends by itself.
func TestSelfExclusion(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	start := srv.clock.Now()
	sign := func(c *client, name, last, first string) (int, []byte) {
		return c.call("POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": last, "first_names": first, "birth_date": "1985-07-14"}, "")
	}
	login := func(c *client, name string) (int, []byte) {
		return c.call("POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
	}
	a, b := srv.client(t), srv.client(t) // one player on two devices
	if st, raw := sign(a, "hélène", "Lefèvre", "Hélène"); st != 201 {
		t.Fatalf("sign up: %d %s", st, raw)
	}
	for _, c := range []*client{a, b} {
		if st, raw := login(c, "hélène"); st != 200 {
			t.Fatalf("login: %d %s", st, raw)
		}
	}
	for _, days := range []any{0, 366, -1, "7", nil} {
		if st, raw := a.call("POST", "/api/v1/me/exclusion", map[string]any{"days": days}, ""); st != 400 {
			t.Errorf("%v days: %d %s, want 400", days, st, raw)
		}
	}
	var ex struct{ Until string }
	a.must(201, &ex, "POST", "/api/v1/me/exclusion", map[string]int{"days": 30}, "")
	until, err := time.Parse(time.RFC3339, ex.Until)
	if want := start.Add(30 * 24 * time.Hour); err != nil || until.Sub(want).Abs() > time.Second {
		t.Fatalf("until %q, want %s", ex.Until, want)
	}
	// Both sessions ended at once, for reads and writes.
	for i, c := range []*client{a, b} {
		if st, raw := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
			t.Errorf("device %d after the exclusion: %d %s", i, st, raw)
		}
		if st, raw := c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 100}, c.key()); st != 401 {
			t.Errorf("device %d deposits after the exclusion: %d %s", i, st, raw)
		}
	}
	// Login refused, saying until when.
	if st, raw := login(a, "hélène"); st != 403 || !strings.Contains(string(raw), `"code":"excluded"`) || !strings.Contains(string(raw), ex.Until) {
		t.Errorf("login while excluded: %d %s", st, raw)
	}
	// No new account with the same identity, written otherwise: refused without a reason or a
	// date (docs/spec/API.md 1.2).
	c := srv.client(t)
	for _, first := range []string{"helene", "Hélène Marie"} {
		if st, raw := sign(c, "helene2", "LEFEVRE", first); st != 403 || !strings.Contains(string(raw), `"code":"registration_refused"`) || strings.Contains(string(raw), ex.Until[:10]) {
			t.Errorf("a new account of the excluded person as %q: %d %s", first, st, raw)
		}
	}
	if st, raw := sign(c, "helene3", "Lefèvre", "Marie"); st != 201 {
		t.Errorf("another person: %d %s", st, raw)
	}
	// It cannot be shortened: a shorter one asked later leaves it (asked from a session opened
	// before the exclusion ends, which only an exclusion's end allows, so through the store).
	if got, _, err := srv.svc.Exclude(t.Context(), playerOf(t, srv, "hélène"), 2); err != nil || got.Sub(until).Abs() >= time.Second {
		t.Errorf("a shorter exclusion: ends %s, %v; want %s still", got, err, until)
	}
	// It ends by itself.
	srv.clock.Advance(30*24*time.Hour + time.Second)
	if st, raw := login(a, "hélène"); st != 200 {
		t.Errorf("login after the exclusion: %d %s", st, raw)
	}
	if st, raw := sign(c, "helene4", "Lefèvre", "Hélène"); st != 201 {
		t.Errorf("an account of the same person after the exclusion: %d %s", st, raw)
	}
}

// An exclusion and requests with the session race: once the exclusion has answered, no request
// with the session succeeds.
func TestExclusionEndsSessionsUnderConcurrentRequests(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	for trial := range 40 {
		c := srv.client(t)
		name := "race" + string(rune('a'+trial%26)) + string(rune('a'+trial/26))
		// Each a person of their own: an excluded identity may not sign up again.
		c.must(201, nil, "POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": "Course", "first_names": name, "birth_date": "1990-01-01"}, "")
		c.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
		var wg sync.WaitGroup
		done := make(chan struct{})
		for range 6 {
			wg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					c.call("GET", "/api/v1/me", nil, "")
				}
			})
		}
		time.Sleep(5 * time.Millisecond)
		st, raw := c.call("POST", "/api/v1/me/exclusion", map[string]int{"days": 1}, "")
		if st != 201 {
			t.Fatalf("exclusion: %d %s", st, raw)
		}
		// A request started after the exclusion answered.
		if st, raw := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
			t.Fatalf("trial %d: /me after the exclusion answered: %d %s", trial, st, raw)
		}
		close(done)
		wg.Wait()
	}
}

// playerOf is a player as the game service names them.
func playerOf(t *testing.T, srv *testServer, name string) game.Player {
	t.Helper()
	p, err := srv.db.PlayerByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return game.Player{ID: p.ID, Username: p.Username, AccountID: p.AccountID}
}

// A self-exclusion pays the balance out first (docs/spec/API.md 1.2): 201 with paid_out in cents, the
// balance at zero, the payout a withdrawal to the bank that the books mark as the exclusion's,
// and the books balance.
func TestSelfExclusionPaysOut(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	c := srv.client(t)
	c.signUp("eliane", 200_00)
	var ex map[string]any
	c.must(201, &ex, "POST", "/api/v1/me/exclusion", map[string]int{"days": 7}, "")
	if ex["paid_out"] != float64(200_00) || ex["until"] == nil {
		t.Fatalf("the exclusion's answer: %v, want paid_out 20000", ex)
	}
	// The answer is what openapi.json says it is: its fields, each required.
	var doc struct {
		Components struct {
			Schemas struct {
				Exclusion struct {
					Required   []string
					Properties map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas.Exclusion
	if len(schema.Properties) != len(ex) || len(schema.Required) != len(ex) {
		t.Errorf("the exclusion's answer %v, its schema %+v", ex, schema)
	}
	for _, k := range schema.Required {
		if _, ok := ex[k]; !ok || schema.Properties[k] == nil {
			t.Errorf("the exclusion's answer %v lacks %q, or its schema does: %+v", ex, k, schema)
		}
	}
	p, err := srv.db.PlayerByName(t.Context(), "eliane")
	if err != nil || p.Balance != 0 {
		t.Fatalf("after the exclusion: %+v %v", p, err)
	}
	lastPayout(t, srv, p, 200_00, lottery.PaidAtExclusion)
	ledgerOK(t, srv)
}

// lastPayout fails the test unless the player's latest transfer is the payout of amount to the
// bank, marked with its reason.
func lastPayout(t *testing.T, srv *testServer, p lottery.Player, amount int64, reason string) {
	t.Helper()
	ts, err := srv.db.PlayerTransfers(t.Context(), p, 1, 0)
	if err != nil || len(ts) != 1 || ts[0].Kind != lottery.Withdrawal || ts[0].From != p.AccountID || ts[0].To != lottery.BankAccount ||
		ts[0].Amount != amount || ts[0].Reason != reason {
		t.Fatalf("the latest transfer of %s: %+v %v; want the payout of %d (%s)", p.Username, ts, err, amount, reason)
	}
}

// ledgerOK fails the test unless the ledger check finds nothing.
func ledgerOK(t *testing.T, srv *testServer) {
	t.Helper()
	if c, err := srv.db.CheckLedger(t.Context()); err != nil || len(c.Problems) > 0 {
		t.Fatalf("ledger: %+v %v", c, err)
	}
}

// A login racing a self-exclusion of the same player (from another device), 40 times: the login
// may be answered 200 only if its session ended with the exclusion. A login reads the account
// before it hashes the password, and opens its session after: an exclusion committed between
// the two must not leave a session to deposit and play with.
func TestLoginRacingExclusion(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	logins := 0
	for trial := range 40 {
		letters := string(rune('a'+trial%26)) + string(rune('a'+trial/26))
		name := "login" + letters
		a := srv.client(t)
		a.must(201, nil, "POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": "Course", "first_names": "Lou" + letters, "birth_date": "1990-01-01"}, "") // no first name shared: another person
		a.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
		b := srv.client(t)
		var st int
		var raw []byte
		var wg sync.WaitGroup
		wg.Go(func() {
			st, raw = b.call("POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
		})
		time.Sleep(time.Duration(trial%8) * 250 * time.Microsecond) // the exclusion lands at places along the login
		a.must(201, nil, "POST", "/api/v1/me/exclusion", map[string]int{"days": 1}, "")
		wg.Wait()
		switch {
		case st == 200:
			logins++
			if st, raw := b.call("GET", "/api/v1/me", nil, ""); st != 401 {
				t.Fatalf("trial %d: a login answered during the exclusion left a session: /me %d %s", trial, st, raw)
			}
		case st != 403 || !strings.Contains(string(raw), `"code":"excluded"`):
			t.Fatalf("trial %d: the login racing the exclusion: %d %s", trial, st, raw)
		}
	}
	t.Logf("%d of 40 logins went through before their exclusion", logins)
}
