package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"starcolor/internal/lottery"
)

// metric reads one metric's value from /metrics (-1: absent).
func (s *testServer) metric(t *testing.T, name string) float64 {
	t.Helper()
	resp, err := http.Get(s.url + "/metrics")
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
// oldest's age, the disputed ones.
func TestMetricsSalesAndOutbox(t *testing.T) {
	srv := newTestServer(t, 1)
	c := srv.client(t)
	c.signUp("mila", 1000)
	for range 3 {
		c.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, c.key())
	}
	if got := srv.metric(t, "starcolor_sales_total"); got != 3 {
		t.Errorf("starcolor_sales_total %v, want 3", got)
	}
	if got := srv.metric(t, "starcolor_wallet_calls_pending"); got != 0 {
		t.Errorf("starcolor_wallet_calls_pending %v, want 0", got)
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
