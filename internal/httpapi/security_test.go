package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/httpapi"
	"starcolor/internal/passhash"
	"starcolor/internal/storetest"
	"starcolor/internal/throttle"
)

// raw sends a request with the session token given outright (not through a cookie jar, which a
// logout empties), and returns its status.
func (s *testServer) raw(t testing.TB, hc *http.Client, method, path, token, body, key string) int {
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: httpapi.CookieName, Value: token})
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// login opens a session for a player and returns its token: with the password, or in wallet mode
// with the operator's launch.
func (s *testServer) login(t testing.TB, name string) string {
	t.Helper()
	if s.wallet != nil {
		return s.launchSession(t, name)
	}
	token, _, err := s.svc.Login(context.Background(), name, "secret-"+name, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// After a logout returns, no request with its token succeeds: not a read, not a movement of
// money. The movement is a deposit, or in wallet mode, where deposits are the operator's, a sale.
// It holds whether the server had the session in memory already (warm) or reads it for the first
// time while the logout runs (cold). Requests race the logout from several goroutines, in 150
// trials of each kind. Before the fix, most trials let a request through.
func TestLogoutEndsTheSessionUnderConcurrentRequests(t *testing.T) {
	s := newTestServer(t, 1)
	s.client(t).signUp("lena", 1_000_000)
	path, body := "/api/v1/deposits", `{"amount":1}`
	if walletSuite {
		path, body = "/api/v1/games", `{"stake":100,"mode":"auto"}`
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 30 * time.Second}
	trials := 150
	if testing.Short() {
		trials = 30
	} else if walletSuite {
		trials = 50 // the race is the session's, tried 150 times in the suite's other runs
	}
	for _, warm := range []bool{true, false} {
		leaked := 0
		for trial := range trials {
			token := s.login(t, "lena")
			if warm {
				if st := s.raw(t, hc, "GET", "/api/v1/me", token, "", ""); st != 200 {
					t.Fatalf("a fresh session: %d", st)
				}
			}
			var loggedOut atomic.Bool
			var after atomic.Int64 // requests sent after the logout returned that succeeded
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						sentAfter := loggedOut.Load()
						var st int
						if g%2 == 0 {
							st = s.raw(t, hc, "GET", "/api/v1/me", token, "", "")
						} else {
							st = s.raw(t, hc, "POST", path, token, body, fmt.Sprintf("t%d-g%d-%d", trial, g, i))
						}
						if sentAfter && st != 401 {
							after.Add(1)
						}
					}
				})
			}
			if st := s.raw(t, hc, "DELETE", "/api/v1/session", token, "", ""); st != 204 {
				t.Fatalf("logout: %d", st)
			}
			loggedOut.Store(true)
			time.Sleep(2 * time.Millisecond)
			close(stop)
			wg.Wait()
			if after.Load() > 0 {
				leaked++
			}
		}
		if leaked > 0 {
			t.Errorf("warm=%v: in %d of %d trials a request sent after the logout returned succeeded", warm, leaked, trials)
		}
	}
}

// A request that was let in before a logout, but whose movement of money reaches the writer
// after the logout has committed, moves nothing. The session is checked in the write's own
// transaction.
func TestLogoutRefusesWritesAuthenticatedBefore(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("mona", 10_000)
	var g gameJSON
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	before := c.balance()
	token := s.login(t, "mona")
	ctx := context.Background()
	p, err := s.svc.Authenticate(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Logout(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.svc.Play(ctx, p, game.Request{Key: "late-sale", Call: "POST /api/v1/games", Body: []byte(`{"stake":100,"mode":"auto"}`)}, 100, "auto"); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a sale authenticated before the logout, made after it: %v", err)
	}
	if _, err := s.svc.Move(ctx, p, g.ID, game.Move{Finish: true}); !fault.Is(err, fault.NotLoggedIn) {
		t.Errorf("a move authenticated before the logout, made after it: %v", err)
	}
	if !walletSuite { // in wallet mode there are no deposits here
		_, err = s.svc.Deposit(ctx, p, game.Request{Key: "late-deposit", Call: "POST /api/v1/deposits", Body: []byte(`{"amount":5}`)}, 5)
		if !fault.Is(err, fault.NotLoggedIn) {
			t.Errorf("a deposit authenticated before the logout, made after it: %v", err)
		}
	}
	if got := c.balance(); got != before {
		t.Errorf("balance %d after refused writes, want %d", got, before)
	}
}

// An Idempotency-Key is bound to its call as well as to its body. The same key and body sent to
// another call is refused (422), not answered with the first call's answer.
func TestIdempotencyKeyBoundToItsCall(t *testing.T) {
	skipInWalletMode(t, noMoney+": the only call under a key is the sale")
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("nina", 0)
	c.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 500}, "K")
	if st, raw := c.call("POST", "/api/v1/withdrawals", map[string]int64{"amount": 500}, "K"); st != 422 || !strings.Contains(string(raw), "idempotency_key_reused") {
		t.Errorf("a deposit's key and body sent as a withdrawal: %d %s", st, raw)
	}
	c.must(201, nil, "POST", "/api/v1/withdrawals", map[string]int64{"amount": 200}, "W")
	if st, raw := c.call("POST", "/api/v1/deposits", map[string]int64{"amount": 200}, "W"); st != 422 {
		t.Errorf("a withdrawal's key and body sent as a deposit: %d %s", st, raw)
	}
	if got := c.balance(); got != 300 {
		t.Errorf("balance %d, want 300", got)
	}
	// The call it was made for still gets its answer back.
	var again struct{ Balance int64 }
	c.must(201, &again, "POST", "/api/v1/deposits", map[string]int64{"amount": 500}, "K")
	if again.Balance != 500 {
		t.Errorf("the deposit's retry: balance %d, want the first answer's 500", again.Balance)
	}
}

// A client that hangs up while its sale waits for the writer fails nothing but, at most, its own
// sale. Work inside the writer does not depend on any one request's context. Here the writer is
// held while sales queue behind it: one whose client then hangs up, and honest ones. The first
// of them must read a page of units inside the writer.
func TestHungUpSaleDoesNotFailOthers(t *testing.T) {
	s := newTestServer(t, 1)
	ctx := context.Background()
	players := make([]game.Player, 5)
	for i := range players {
		name := fmt.Sprintf("hang%d", i)
		s.client(t).signUp(name, 1000)
		p, err := s.svc.Authenticate(ctx, s.login(t, name))
		if err != nil {
			t.Fatal(err)
		}
		players[i] = p
	}
	release := storetest.Hold(t, s.db)
	sale := func(ctx context.Context, p game.Player, key string) error {
		_, _, err := s.svc.Play(ctx, p, game.Request{Key: key, Call: "POST /api/v1/games", Body: []byte(key)}, 100, "auto")
		return err
	}
	hungUp, hangUp := context.WithCancel(ctx)
	go sale(hungUp, players[0], "hung-up") // its own answer may fail: nobody waits for it
	time.Sleep(20 * time.Millisecond)      // queued first
	errs := make(chan error, len(players)-1)
	for i, p := range players[1:] {
		go func() { errs <- sale(ctx, p, fmt.Sprintf("honest-%d", i)) }()
	}
	time.Sleep(20 * time.Millisecond)
	hangUp()
	release()
	for range players[1:] {
		if err := <-errs; err != nil {
			t.Errorf("an honest sale failed: %v", err)
		}
	}
}

// The sweep of abandoned games decides inside the writer, on the game as it stands there. A move
// that lands between its list and its write is kept, and a game moved since is no longer
// abandoned. Here the player's click is queued (the writer held) before the sweep lists the
// game. So the sweep's list holds the game as it was before the click.
func TestAbandonedSweepKeepsAConcurrentMove(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("olga", 1000)
	var g gameJSON
	c.must(201, &g, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
	c.must(200, &g, "POST", fmt.Sprintf("/api/v1/games/%d/color", g.ID), map[string]int{"color": 4}, "")
	cell := -1
	for i, col := range g.Boards[0].Colors {
		if col == 4 {
			cell = i
			break
		}
	}
	s.clock.Advance(25 * time.Hour)
	ctx := context.Background()
	p, err := s.svc.Authenticate(ctx, s.login(t, "olga"))
	if err != nil {
		t.Fatal(err)
	}
	release := storetest.Hold(t, s.db)
	moved := make(chan error, 1)
	go func() {
		_, err := s.svc.Move(ctx, p, g.ID, game.Move{Cell: &cell})
		moved <- err
	}()
	time.Sleep(20 * time.Millisecond) // the click is queued
	swept := make(chan error, 1)
	go func() {
		_, err := s.svc.FinishAbandoned(ctx)
		swept <- err
	}()
	time.Sleep(20 * time.Millisecond) // the sweep has listed the game and queued its write
	release()
	if err := <-moved; err != nil {
		t.Fatalf("the click: %v", err)
	}
	if err := <-swept; err != nil {
		t.Fatalf("the sweep: %v", err)
	}
	var now gameJSON
	c.login("olga")
	c.must(200, &now, "GET", fmt.Sprintf("/api/v1/games/%d", g.ID), nil, "")
	if now.Status != "playing" || *now.Color != 4 || len(now.Events) == 0 || now.Events[0].Cell != cell || now.Events[0].Cause != "click" {
		t.Fatalf("after a click and a sweep that raced it: status %s, colour %d, events %+v", now.Status, *now.Color, now.Events)
	}
}

// Every answer of the API says nosniff; a body that is not JSON by its Content-Type is refused
// (415) before anything is read or done. The body is a deposit's; in wallet mode, where deposits
// are the operator's, a sale's.
func TestContentTypes(t *testing.T) {
	s := newTestServer(t, 1)
	c := s.client(t)
	c.signUp("pia", 1000)
	target, body, moved := "/api/v1/deposits", `{"amount":100}`, int64(100)
	if walletSuite {
		target, body, moved = "/api/v1/games", `{"stake":100,"mode":"auto"}`, -100
	}
	var prizes int64
	for _, path := range []string{"/api/v1/me", "/api/v1/nothing-here", "/healthz"} {
		resp, err := c.http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q", path, got)
		}
	}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"} {
		req, _ := http.NewRequest("POST", s.url+target, strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set("Idempotency-Key", "ct-"+ct)
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 415 || !strings.Contains(string(raw), "unsupported_media_type") {
			t.Errorf("POST %s sent as %q: %d %s", target, ct, resp.StatusCode, raw)
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		req, _ := http.NewRequest("POST", s.url+target, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Idempotency-Key", "ok-"+ct)
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct{ Prize int64 }
		json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		prizes += answer.Prize
		if resp.StatusCode != 201 {
			t.Errorf("POST %s sent as %q: %d", target, ct, resp.StatusCode)
		}
	}
	if got, want := c.balance(), 1000+3*moved+prizes; got != want {
		t.Errorf("balance %d, want %d: only the JSON requests moved money", got, want)
	}
}

// A player's password is 8 characters or more and not among the most common ones; a refused
// one creates nothing.
func TestWeakPasswordsRefused(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	c := s.client(t)
	for _, pw := range []string{"abcd", "1234567", "password", "Password", "12345678", "sunshine", "qwertyuiop", "quentin1"} {
		st, raw := c.call("POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "quentin1", "password": pw}, "")
		if st != 400 || !strings.Contains(string(raw), "weak_password") {
			t.Errorf("password %q: %d %s", pw, st, raw)
		}
	}
	c.must(201, nil, "POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "quentin1", "password": "a less common one"}, "")
}

// Guesses sent at once at an account are counted as they arrive, before any is evaluated. Of 40
// parallel wrong guesses, no more than the free attempts are evaluated, and the others get 429.
// The right password sent after them is refused too. Repeated on fresh accounts.
func TestParallelGuessesAreCounted(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	for trial := range 5 {
		name := fmt.Sprintf("rosa%d", trial)
		s.client(t).signUp(name, 0)
		var evaluated, locked atomic.Int64
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				st, _ := s.client(t).call("POST", "/api/v1/session", map[string]string{"username": name, "password": fmt.Sprintf("guess-number-%d", i)}, "")
				switch st {
				case 401:
					evaluated.Add(1)
				case 429:
					locked.Add(1)
				default:
					t.Errorf("guess %d: %d", i, st)
				}
			})
		}
		wg.Wait()
		if evaluated.Load() > 5 {
			t.Fatalf("trial %d: %d of 40 parallel guesses were evaluated (%d refused), want at most 5", trial, evaluated.Load(), locked.Load())
		}
		if st, _ := s.client(t).call("POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, ""); st != 429 {
			t.Fatalf("trial %d: the right password after 40 guesses: %d, want 429", trial, st)
		}
	}
}

// A name that does not exist is answered as one that does: the same 401s, then the same 429s.
func TestUnknownNamesAnsweredAlike(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	s.client(t).signUp("sara", 0)
	codes := func(name string) []int {
		var out []int
		c := s.client(t)
		for range 7 {
			st, _ := c.call("POST", "/api/v1/session", map[string]string{"username": name, "password": "not-the-password"}, "")
			out = append(out, st)
		}
		return out
	}
	known, unknown := codes("sara"), codes("nobody-here")
	if fmt.Sprint(known) != fmt.Sprint(unknown) || known[len(known)-1] != 429 {
		t.Fatalf("failed logins answered %v for a known name, %v for an unknown one", known, unknown)
	}
}

// Failed logins lock a name from the address they come from only: the player, from their own
// address, still logs in.
func TestLockoutIsPerAddress(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	s.client(t).signUp("tess", 0)
	ctx := context.Background()
	attacker, victim := "192.0.2.66", "198.51.100.7"
	var last error
	for range 7 {
		_, _, last = s.svc.Login(ctx, "tess", "guessing-again", attacker)
	}
	if !fault.Is(last, fault.TooManyAttempts) {
		t.Fatalf("the 7th guess from one address: %v, want too_many_attempts", last)
	}
	if _, _, err := s.svc.Login(ctx, "tess", "secret-tess", victim); err != nil {
		t.Fatalf("the player from another address: %v", err)
	}
	if _, _, err := s.svc.Login(ctx, "tess", "secret-tess", attacker); !fault.Is(err, fault.TooManyAttempts) {
		t.Fatalf("the right password from the locked address: %v", err)
	}
	// Quiet for the lock's length, the address may try again; a success there clears its count.
	s.clock.Advance(5 * time.Second)
	if _, _, err := s.svc.Login(ctx, "tess", "secret-tess", attacker); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
	if _, _, err := s.svc.Login(ctx, "tess", "wrong-again-1", attacker); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a failure after a success starts a new count: %v", err)
	}
}

// Logins and sign-ups are limited by address: past the burst, 429 with Retry-After; another
// address is not affected.
func TestAuthRatePerAddress(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServerWith(t, 1, func(cfg *game.Config, clk *clock) {
		cfg.AuthRate = throttle.Rate{Burst: 3, Every: 20 * time.Second}
	})
	c := s.client(t)
	for i := range 3 {
		c.must(201, nil, "POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": fmt.Sprintf("ulla%d", i), "password": "secret-ulla"}, "")
	}
	req, _ := http.NewRequest("POST", s.url+"/api/v1/session", strings.NewReader(`{"username":"ulla0","password":"secret-ulla"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "20" {
		t.Fatalf("the 4th request from one address: %d, Retry-After %q; want 429 and 20", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if _, _, err := s.svc.Login(context.Background(), "ulla0", "secret-ulla", "198.51.100.7"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	s.clock.Advance(20 * time.Second)
	c.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "ulla0", "password": "secret-ulla"}, "")
}

// When every hash slot and the queue are taken, a login is refused at once with 503 and
// Retry-After, not queued without bound.
func TestHashesBusy(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	gate := passhash.NewGate(1, 0, time.Second)
	s := newTestServerWith(t, 1, func(cfg *game.Config, _ *clock) { cfg.Hashes = gate })
	s.client(t).signUp("vera", 0)
	hold, held := make(chan struct{}), make(chan struct{})
	go gate.Run(context.Background(), func() { close(held); <-hold })
	<-held
	defer close(hold)
	c := s.client(t)
	req, _ := http.NewRequest("POST", s.url+"/api/v1/session", strings.NewReader(`{"username":"vera","password":"secret-vera"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"unavailable"`) {
		t.Fatalf("a login while the hashes are all taken: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// clientFrom is an HTTP client whose connections come from a given local address (any of
// 127.0.0.0/8 reaches the test server on loopback).
func clientFrom(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
}

// The same as TestLockoutIsPerAddress, over HTTP from two real addresses: guesses from one
// lock the name there only (429 with Retry-After), and the player logs in from the other.
func TestLockoutFromAnotherAddress(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	s.client(t).signUp("wanda", 0)
	login := func(hc *http.Client, pw string) *http.Response {
		req, _ := http.NewRequest("POST", s.url+"/api/v1/session", strings.NewReader(fmt.Sprintf(`{"username":"wanda","password":%q}`, pw)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	attacker := clientFrom(t, "127.0.0.2")
	var last *http.Response
	for range 7 {
		last = login(attacker, "a-wrong-guess")
	}
	if last.StatusCode != 429 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("the 7th guess: %d, Retry-After %q", last.StatusCode, last.Header.Get("Retry-After"))
	}
	if resp := login(attacker, "secret-wanda"); resp.StatusCode != 429 {
		t.Fatalf("the right password from the guessing address: %d", resp.StatusCode)
	}
	if resp := login(clientFrom(t, "127.0.0.1"), "secret-wanda"); resp.StatusCode != 200 {
		t.Fatalf("the player from their own address: %d, want 200", resp.StatusCode)
	}
}

// A username may hold accented letters and other alphabets; it is one account whatever its case
// or the way its accents were typed, and no other may read like it.
func TestAccentedUsernames(t *testing.T) {
	skipInWalletMode(t, noAccounts)
	s := newTestServer(t, 1)
	c := s.client(t)
	c.must(201, nil, "POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "Élodie", "password": "secret-élodie"}, "")
	for _, same := range []string{"élodie", "ÉLODIE", "E\u0301lodie"} {
		if st, raw := c.call("POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": same, "password": "another-secret"}, ""); st != 409 {
			t.Errorf("%q, the same name: %d %s", same, st, raw)
		}
	}
	var me struct{ Username string }
	c.must(200, &me, "POST", "/api/v1/session", map[string]string{"username": "e\u0301LODIE", "password": "secret-élodie"}, "")
	if me.Username != "Élodie" {
		t.Errorf("logged in as %q", me.Username)
	}
	// A new name that reads like a taken one is taken too (docs/spec/API.md 1.2): without its accent.
	if st, raw := c.call("POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "elodie", "password": "secret-elodie"}, ""); st != 409 {
		t.Errorf("elodie beside Élodie: %d %s", st, raw)
	}
	if st, raw := c.call("POST", "/api/v1/players", map[string]string{"last_name": "Martin", "first_names": "Jeanne", "birth_date": "1990-01-01", "username": "Élo die", "password": "secret-élodie"}, ""); st != 400 || !strings.Contains(string(raw), "invalid_username") {
		t.Errorf("a space in a username: %d %s", st, raw)
	}
}

// A request that two readers could read differently is refused, as a body with a key twice is.
// Nothing changes. The requests carry:
//   - two Idempotency-Key or Content-Type headers (a proxy may read the last, the server reads
//     the first);
//   - a query parameter twice.
func TestAmbiguousRequestsRefused(t *testing.T) {
	srv := newTestServer(t, 1)
	c := srv.client(t)
	c.signUp("ambi", 1000)
	before := c.balance()
	for _, tt := range []struct {
		name, method, path, body string
		headers                  [][2]string
	}{
		{"two idempotency keys", "POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, [][2]string{{"Content-Type", "application/json"}, {"Idempotency-Key", "a"}, {"idempotency-key", "b"}}},
		{"two content types", "POST", "/api/v1/games", `{"stake":100,"mode":"auto"}`, [][2]string{{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}, {"Idempotency-Key", "c"}}},
		{"a query parameter twice", "GET", "/api/v1/games?limit=1&limit=100", "", nil},
		{"a query that cannot be read", "GET", "/api/v1/games?limit=%zz", "", nil},
	} {
		req, err := http.NewRequest(tt.method, srv.url+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range tt.headers {
			req.Header.Add(h[0], h[1])
		}
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), `"invalid_request"`) {
			t.Errorf("%s: %d %s, want 400 invalid_request", tt.name, resp.StatusCode, raw)
		}
	}
	if after := c.balance(); after != before {
		t.Fatalf("the balance moved from %d to %d", before, after)
	}
}
