package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"starcolor/internal/app"
	"starcolor/internal/app/apptest"
	"starcolor/internal/fakewallet"
	"starcolor/internal/fault"
	"starcolor/internal/game"
	"starcolor/internal/lottery"
	"starcolor/internal/wallet"
)

// The findings of issue 19's audit against docs/spec/WALLET.md 1.0, each refused by 1.1's binding: a
// signature covers the call, the time and, for an answer, the request it answers.

// drainedBooks are the wallet's books in total, once the outbox has drained.
func (e *walletEnv) drainedBooks(t *testing.T) fakewallet.PlayerBooks {
	t.Helper()
	e.drained(t)
	b, err := e.fw.Books(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b.Total
}

// games counts the games in the player's history.
func (c *client) games() int {
	c.t.Helper()
	var list struct{ Games []any }
	c.must(200, &list, "GET", "/api/v1/games", nil, "")
	return len(list.Games)
}

// anotherServer is a second server of the same game over the same store (as another server on
// PostgreSQL, or this one started again): nothing of the first's memory.
func (e *walletEnv) anotherServer(t *testing.T) string {
	t.Helper()
	cfg := game.DefaultConfig
	cfg.Argon2 = apptest.Fast
	a, err := app.New(t.Context(), e.env.Store, app.Config{Game: cfg, Definition: e.env.Def, Now: e.now,
		Wallet: &app.WalletConfig{URL: e.fwURL, Secret: e.secret}, Journal: e.env.JournalKey})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// A launch is good once: the same launch posted again, as it was (its signature still within
// the 300 s), or another body with its nonce signed afresh, is 409 duplicate_launch and opens
// no session, on this server and on another over the same store. A launch body with a field
// unknown is 400 invalid_request, one without a good nonce 400 invalid_input.
func TestLaunchReplayed(t *testing.T) {
	e := newWalletEnv(t, fakewallet.Faults{})
	key := wallet.NewKey(e.secret)
	nonce := wallet.NewNonce()
	body := `{"player":"op-once","operator_session":"s-1","currency":"EUR","nonce":"` + nonce + `"}`
	var first http.Header
	stamp := func(req *http.Request) {
		if first == nil {
			key.Stamp(req, []byte(body), e.now())
			first = req.Header.Clone()
			return
		}
		for k, v := range first {
			req.Header[k] = v
		}
	}
	st, answer := e.post(t, e.url, wallet.LaunchPath, body, stamp)
	if st != 201 {
		t.Fatalf("the launch: %d %s", st, answer)
	}
	var link struct{ URL string }
	json.Unmarshal([]byte(answer), &link)
	other := e.anotherServer(t)
	for _, c := range []struct {
		name, base, body string
	}{
		{"the same launch again", e.url, body},
		{"the same launch again, to another server", other, body},
		{"its nonce with another player", e.url, `{"player":"op-thief","operator_session":"s-2","currency":"EUR","nonce":"` + nonce + `"}`},
		{"its nonce with another session, to another server", other, `{"player":"op-once","operator_session":"s-2","currency":"EUR","nonce":"` + nonce + `"}`},
	} {
		sign := stamp
		if c.body != body {
			sign = func(req *http.Request) { key.Stamp(req, []byte(c.body), e.now()) }
		}
		st, answer := e.post(t, c.base, wallet.LaunchPath, c.body, sign)
		if st != http.StatusConflict || !strings.Contains(answer, `"code":"duplicate_launch"`) || strings.Contains(answer, "launch=") {
			t.Errorf("%s: %d %s, want 409 duplicate_launch", c.name, st, answer)
		}
	}
	if _, err := e.env.Store.PlayerByName(t.Context(), lottery.WalletUsername("op-thief")); !fault.Is(err, fault.NotFound) {
		t.Errorf("a launch refused made its player: %v", err)
	}
	// The first launch's link opens one session, once.
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for i, want := range []int{http.StatusSeeOther, http.StatusUnauthorized} {
		resp, err := hc.Get(link.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("the link opened a %s time: %d, want %d", []string{"first", "second"}[i], resp.StatusCode, want)
		}
	}

	for _, c := range []struct {
		body string
		code string
	}{
		{`{"player":"op-x","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `","amount":100}`, "invalid_request"},
		{`{"player":"op-x","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `","Player":"op-y"}`, "invalid_request"},
		{`{"player":"op-x","player":"op-y","operator_session":"s","currency":"EUR","nonce":"` + wallet.NewNonce() + `"}`, "invalid_request"},
		{`{"player":"op-x","operator_session":"s","currency":"EUR"}`, "invalid_input"},
		{`{"player":"op-x","operator_session":"s","currency":"EUR","nonce":"short"}`, "invalid_input"},
		{`{"player":"op-x","operator_session":"s","currency":"EUR","nonce":"` + strings.Repeat("n", 65) + `"}`, "invalid_input"},
		{`{"player":"op-x","operator_session":"s","currency":"EUR","nonce":"not/a/nonce+0123456789"}`, "invalid_input"},
	} {
		if st, answer := e.launch(t, c.body, e.secret); st != 400 || !strings.Contains(answer, `"code":"`+c.code+`"`) {
			t.Errorf("a launch %s: %d %s, want 400 %s", c.body, st, answer, c.code)
		}
	}
	if _, err := e.env.Store.PlayerByName(t.Context(), lottery.WalletUsername("op-x")); !fault.Is(err, fault.NotFound) {
		t.Errorf("a launch refused made its player: %v", err)
	}
}

// Star Color's own signed calls to the wallet, posted to its launch call with their headers as
// they were sent, open no session: a debit's and a credit's signatures are for their own paths
// (401 bad_signature).
func TestWalletCallsAreNoLaunch(t *testing.T) {
	e := newWalletEnv(t, fakewallet.Faults{})
	p := e.player(t, "op-victim")
	p.must(200, nil, "GET", "/api/v1/me", nil, "")
	p.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	e.drained(t)
	for _, call := range []string{wallet.CallDebit, wallet.CallCredit, wallet.CallBalance} {
		sent := e.proxy.sent("/" + call)
		if len(sent) == 0 {
			t.Fatalf("no %s was sent", call)
		}
		r := sent[0]
		st, answer := e.post(t, e.url, wallet.LaunchPath, string(r.body), func(req *http.Request) {
			for _, h := range []string{wallet.TimestampHeader, wallet.SignatureHeader} {
				req.Header.Set(h, r.header.Get(h))
			}
		})
		if st != http.StatusUnauthorized || !strings.Contains(answer, `"code":"bad_signature"`) || strings.Contains(answer, "launch=") {
			t.Errorf("Star Color's %s %s posted to the launch call: %d %s, want 401 bad_signature", call, r.body, st, answer)
		}
	}
}

// The audit's attack: a wallet (or anyone on its path) that answers debits with a captured,
// validly signed answer of an earlier debit. That answer is not signed for these requests: each
// is an unknown outcome, the sale is refused 503 wallet_unavailable, nothing is sold, and the
// debit is rolled back. Thirty such debits sell nothing (under 1.0 they sold thirty games whose
// stakes were never debited, and credited their prizes).
func TestReplayedAnswerSellsNothing(t *testing.T) {
	e := newWalletEnvWith(t, fakewallet.Faults{}, app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond})
	ctx := context.Background()
	p := e.player(t, "op-replayed")
	sale := map[string]any{"stake": 100, "mode": "auto"}
	e.proxy.replayDebits()
	p.must(201, nil, "POST", "/api/v1/games", sale, p.key()) // the debit whose answer is captured
	for i := range 30 {
		p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", sale, p.key())
		if i == 0 {
			if st, _ := e.env.Store.OutboxState(ctx, e.now()); st.Pending == 0 {
				t.Errorf("a sale refused on a replayed answer left no rollback to send: %+v", st)
			}
		}
	}
	if n := p.games(); n != 1 {
		t.Fatalf("%d games sold, want the first only", n)
	}
	e.proxy.set(intact, intact, false)
	if b := e.drainedBooks(t); b.Debits.Count != 1 || b.Staked.Amount != 100 || b.Rollbacks.Count != 30 || b.Credits.Count != 1 {
		t.Fatalf("the wallet's books: %+v; want the first debit standing, a rollback for each of the 30 refused, one credit", b)
	}
	(&testServer{db: e.env.Store, wallet: &refWallet{fw: e.fw}}).checkWalletBooks(t)
}

// An answer signed for its request but echoing another transaction_id is an unknown outcome
// too: the sale is refused, and the debit (applied at the wallet) rolled back.
func TestAnswerEchoingAnotherTransaction(t *testing.T) {
	e := newWalletEnvWith(t, fakewallet.Faults{}, app.WalletConfig{Timeout: 300 * time.Millisecond, DebitWait: 100 * time.Millisecond, RetryBase: 50 * time.Millisecond})
	p := e.player(t, "op-echo")
	var me struct{ Balance int64 }
	p.must(200, &me, "GET", "/api/v1/me", nil, "")
	e.proxy.echoing("debit-someone-else")
	p.refused(503, "wallet_unavailable", "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, p.key())
	e.proxy.set(intact, intact, false)
	if b := e.drainedBooks(t); b.Debits.Count != 1 || b.Staked.Amount != 0 || b.Rollbacks.Amount != 100 || b.Balance != me.Balance {
		t.Fatalf("the wallet's books: %+v; want the debit rolled back", b)
	}
	if n := p.games(); n != 0 {
		t.Fatalf("%d games sold on an answer for another transaction", n)
	}
}

// Two launches of one player: each session sends its own launch's operator_session in its
// balance and debit calls, before and after the other's, on this server and on another over
// the same store; a later launch never changes what an earlier session sends.
func TestLaunchKeepsItsOperatorSession(t *testing.T) {
	clk := &clock{now: time.Now()}
	e := newWalletEnvAt(t, fakewallet.Faults{}, app.WalletConfig{}, clk.Now)
	first := e.playerIn(t, "op-twice", "op-session-1")
	second := e.playerIn(t, "op-twice", "op-session-2") // before the first plays
	other := e.anotherServer(t)
	sale := map[string]any{"stake": 100, "mode": "auto"}
	sessions := func(call string, from int) []string {
		var out []string
		for _, r := range e.proxy.sent("/" + call)[from:] {
			var b struct {
				OperatorSession string `json:"operator_session"`
			}
			json.Unmarshal(r.body, &b)
			out = append(out, b.OperatorSession)
		}
		return out
	}
	for _, c := range []struct {
		name string
		p    *client
		base string
		want string
	}{
		{"the first session", first, e.url, "op-session-1"},
		{"the second session", second, e.url, "op-session-2"},
		{"the first session again", first, e.url, "op-session-1"},
		{"the first session on another server", first, other, "op-session-1"},
		{"the second session on another server", second, other, "op-session-2"},
	} {
		c.p.base = c.base
		debits, balances := len(e.proxy.sent("/debit")), len(e.proxy.sent("/balance"))
		c.p.must(201, nil, "POST", "/api/v1/games", sale, c.p.key())
		// The sale's credit is sent in the background, and its answer's balance is kept as the
		// player's for a second: once it is acknowledged, the clock moves past that second, so
		// that the balance is asked of the wallet, by this session.
		e.drained(t)
		clk.Advance(2 * time.Second)
		c.p.must(200, nil, "GET", "/api/v1/me", nil, "")
		got := append(sessions("debit", debits), sessions("balance", balances)...)
		if len(got) != 2 || got[0] != c.want || got[1] != c.want {
			t.Errorf("%s sent the operator's sessions %q in its debit and balance, want %q", c.name, got, c.want)
		}
	}
	// Credits and rollbacks carry none.
	e.drained(t)
	for _, r := range e.proxy.sent("/credit") {
		if strings.Contains(string(r.body), "operator_session") {
			t.Errorf("a credit names an operator's session: %s", r.body)
		}
	}
	(&testServer{db: e.env.Store, wallet: &refWallet{fw: e.fw}}).checkWalletBooks(t)
}
