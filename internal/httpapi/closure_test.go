package httpapi_test

import (
	"context"
	"strings"
	"testing"
)

// Closing an account (API.md 1.1) pays its balance out first, ends every session of the player
// and refuses logins afterwards; the books still balance.
func TestAccountClosure(t *testing.T) {
	skipInWalletMode(t, noProtection)
	srv := newTestServer(t, 1)
	a := srv.client(t)
	a.signUp("clotilde", 5000)
	b := srv.client(t) // another device
	b.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": "clotilde", "password": "secret-clotilde"}, "")
	a.must(201, nil, "POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, a.key())
	var me struct{ Balance int64 }
	a.must(200, &me, "GET", "/api/v1/me", nil, "")
	if me.Balance <= 0 {
		t.Fatalf("balance %d before closing", me.Balance)
	}
	a.must(204, nil, "DELETE", "/api/v1/me", nil, "")
	for i, c := range []*client{a, b} {
		if st, raw := c.call("GET", "/api/v1/me", nil, ""); st != 401 {
			t.Errorf("device %d after the closure: %d %s", i, st, raw)
		}
	}
	st, raw := a.call("POST", "/api/v1/session", map[string]string{"username": "clotilde", "password": "secret-clotilde"}, "")
	if st != 403 || !strings.Contains(string(raw), `"code":"account_closed"`) {
		t.Errorf("login after the closure: %d %s", st, raw)
	}
	p, err := srv.db.PlayerByName(context.Background(), "clotilde")
	if err != nil || p.Balance != 0 || p.ClosedAt.IsZero() {
		t.Fatalf("after the closure: %+v %v", p, err)
	}
	// The payout is the player's last transfer: a withdrawal of the whole balance.
	ts, err := srv.db.PlayerTransfers(context.Background(), p, 1, 0)
	if err != nil || len(ts) != 1 || ts[0].Kind != "withdrawal" || ts[0].Amount != me.Balance {
		t.Errorf("the last transfer: %+v %v, want a withdrawal of %d", ts, err, me.Balance)
	}
	c, err := srv.db.CheckLedger(context.Background())
	if err != nil || len(c.Problems) > 0 {
		t.Fatalf("ledger: %v %v", c.Problems, err)
	}
}
