package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"starcolor/internal/lottery"
)

// metric reads one metric's value from /metrics (-1: absent).
func (s *testServer) metric(t *testing.T, name string) float64 {
	t.Helper()
	resp, err := http.Get(s.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `(?:\{[^}]*\})? (\S+)$`).FindSubmatch(body)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// /metrics counts the sales and shows the wallet's outbox: the calls not yet acknowledged, the
// oldest's age, the disputed ones. Without a wallet, calls are put in the outbox by hand; in
// wallet mode, they are the credits of games finished while the wallet is down.
func TestMetricsSalesAndOutbox(t *testing.T) {
	srv := newTestServer(t, 1)
	c := srv.client(t)
	c.signUp("mila", 1000)
	if srv.wallet != nil {
		// The games are sold 90 s ago, by the server's clock, which dates the wallet's calls;
		// the age of the oldest call is by the real clock.
		srv.clock.Advance(-90 * time.Second)
	}
	for range 3 {
		c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	if got := srv.metric(t, "starcolor_sales_total"); got != 3 {
		t.Errorf("starcolor_sales_total %v, want 3", got)
	}
	if srv.wallet != nil {
		srv.drained(t) // the games' credits are sent
	}
	if got := srv.metric(t, "starcolor_wallet_calls_pending"); got != 0 {
		t.Errorf("starcolor_wallet_calls_pending %v, want 0", got)
	}
	if w := srv.wallet; w != nil {
		// In wallet mode the calls owed are real ones: the credits of four « Jouer » games
		// finished while the wallet is down wait in the outbox, shown, until it is back (the
		// games sold 90 s ago: see above).
		var games [4]gameJSON
		for i := range games {
			c.must(201, &games[i], "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "manual"}, c.key())
		}
		w.proxy.set(intact, intact, true)
		for _, g := range games {
			c.must(200, nil, "POST", fmt.Sprintf("/api/v1/games/%d/finish", g.ID), nil, "")
		}
		if got := srv.metric(t, "starcolor_wallet_calls_pending"); got != 4 {
			t.Errorf("starcolor_wallet_calls_pending %v with the wallet down, want 4", got)
		}
		if got := srv.metric(t, "starcolor_wallet_calls_oldest_age_seconds"); got < 89 {
			t.Errorf("starcolor_wallet_calls_oldest_age_seconds %v, want 90 or so", got)
		}
		if got := srv.metric(t, "starcolor_wallet_calls_disputed"); got != 0 {
			t.Errorf("starcolor_wallet_calls_disputed %v", got)
		}
		w.proxy.set(intact, intact, false)
		srv.clock.Advance(2 * time.Minute) // their next sending is due (after 2 s at most)
		srv.drained(t)
		if got := srv.metric(t, "starcolor_wallet_calls_pending"); got != 0 {
			t.Errorf("starcolor_wallet_calls_pending %v once the wallet is back, want 0", got)
		}
		if got := srv.metric(t, "starcolor_sales_total"); got != 7 {
			t.Errorf("starcolor_sales_total %v, want 7", got)
		}
		return
	}
	var calls []lottery.WalletCall
	for i := range 4 {
		calls = append(calls, lottery.WalletCall{Call: "credit", TransactionID: fmt.Sprint("c", i), Player: "p", RoundID: fmt.Sprint(i), Body: []byte("{}")})
	}
	if err := srv.db.AddWalletCalls(t.Context(), calls, srv.clock.Now().Add(-90e9)); err != nil {
		t.Fatal(err)
	}
	if got := srv.metric(t, "starcolor_wallet_calls_pending"); got != 4 {
		t.Errorf("starcolor_wallet_calls_pending %v, want 4", got)
	}
	if got := srv.metric(t, "starcolor_wallet_calls_oldest_age_seconds"); got < 89 {
		t.Errorf("starcolor_wallet_calls_oldest_age_seconds %v, want 90 or so", got)
	}
	if got := srv.metric(t, "starcolor_wallet_calls_disputed"); got != 0 {
		t.Errorf("starcolor_wallet_calls_disputed %v", got)
	}
}

// The metrics are not on the player's port: with sparse sales they would give anyone each sale's
// prize, and they show the wallet's disputes (issue 19). The API answers 404 there, like any
// unknown path; the metrics' own server has them.
func TestMetricsNotOnThePlayersPort(t *testing.T) {
	srv := newTestServer(t, 1)
	resp, err := http.Get(srv.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || regexp.MustCompile(`starcolor_|process_cpu`).Match(body) {
		t.Fatalf("GET /metrics on the player's port: %d %s", resp.StatusCode, body)
	}
	if got := srv.metric(t, "starcolor_store_problems"); got != 0 {
		t.Fatalf("the metrics' own server: starcolor_store_problems %v, want 0", got)
	}
}
