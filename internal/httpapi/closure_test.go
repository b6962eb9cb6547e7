package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"starcolor/internal/lottery"
)

// Closing an account (docs/spec/API.md 1.1) pays its balance out first, ends every session of the player
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
	// The payout is the player's last transfer: a withdrawal of the whole balance, marked as the
	// closure's.
	lastPayout(t, srv, p, me.Balance, lottery.PaidAtClosure)
	ledgerOK(t, srv)
}

// A closure racing the player's sales, 50 times. On PostgreSQL it runs on two servers: the sales
// are sent to both, the closure to the second. Each closure answers 204 and closes the account,
// whose balance is zero. What it paid out is the whole balance once the sales before it are in
// (deposit − stakes + prizes of the sales answered 201). Every other sale is refused 401.
func TestClosureRacingSales(t *testing.T) {
	skipInWalletMode(t, noProtection)
	raceShut(t, "DELETE", "/api/v1/me", nil, 204, lottery.PaidAtClosure)
}

// A self-exclusion racing the player's sales, as TestClosureRacingSales. Each answers 201 with
// paid_out the whole balance once the sales before it are in. Nothing reaches the account after
// it: a sale in flight is in the payout, or refused.
func TestExclusionRacingSales(t *testing.T) {
	skipInWalletMode(t, noProtection)
	raceShut(t, "POST", "/api/v1/me/exclusion", map[string]int{"days": 1}, 201, lottery.PaidAtExclusion)
}

// raceShut runs 50 trials of a shut of the account (the call, answering status). Each races 3
// concurrent streams of 3 « Auto » sales, alternating between two servers of one game.
func raceShut(t *testing.T, method, path string, body any, status int, reason string) {
	servers := newTestServers(t, 2, 2)
	const trials, streams, sales = 50, 3, 3 // at most 450 units a kind of shut, of 2,000
	var sold, refused int
	for trial := range trials {
		letters := string(rune('a'+trial%26)) + string(rune('a'+trial/26))
		name := reason + letters // each a person of their own: an excluded identity may not sign up again
		a := servers[0].client(t)
		a.must(201, nil, "POST", "/api/v1/players", map[string]string{"username": name, "password": "secret-" + name,
			"last_name": "Course", "first_names": "Anne" + letters, "birth_date": "1990-01-01"}, "") // no first name shared: another person
		a.must(200, nil, "POST", "/api/v1/session", map[string]string{"username": name, "password": "secret-" + name}, "")
		a.must(200, nil, "PUT", "/api/v1/me/limits", map[string]int64{"deposit_weekly": lottery.MaxLimit, "stake_weekly": lottery.MaxLimit}, "")
		a.must(201, nil, "POST", "/api/v1/deposits", map[string]int64{"amount": 20_00}, "deposit-"+name)
		b := *a // the same session (cookies do not tell ports apart), on the other server
		b.base, b.srv = servers[1].url, servers[1]
		var mu sync.Mutex
		var staked, won int64
		first := make(chan struct{}) // the first sale is in: the shut goes while the others run
		var once sync.Once
		var wg sync.WaitGroup
		for i := range streams {
			wg.Go(func() {
				defer once.Do(func() { close(first) })
				c := []*client{a, &b}[i%2]
				for n := range sales {
					st, raw := c.call("POST", "/api/v1/games", map[string]any{"stake": 100, "mode": "auto"}, fmt.Sprintf("%s-%d-%d", name, i, n))
					mu.Lock()
					switch st {
					case 201:
						var g gameJSON
						json.Unmarshal(raw, &g)
						staked, won, sold = staked+g.Stake, won+g.Prize, sold+1
					case 401:
						refused++
					default:
						t.Errorf("%s: a sale: %d %s", name, st, raw)
					}
					mu.Unlock()
					if st != 201 {
						return
					}
					once.Do(func() { close(first) })
				}
			})
		}
		<-first
		st, raw := b.call(method, path, body, "")
		wg.Wait()
		if st != status {
			t.Fatalf("%s: the shut racing sales: %d %s, want %d", name, st, raw, status)
		}
		p, err := servers[0].db.PlayerByName(t.Context(), name)
		if err != nil || p.Balance != 0 || (p.ClosedAt.IsZero() && reason == lottery.PaidAtClosure) || (p.ExcludedUntil.IsZero() && reason == lottery.PaidAtExclusion) {
			t.Fatalf("%s: after the shut: %+v %v", name, p, err)
		}
		paid := 20_00 - staked + won
		lastPayout(t, servers[0], p, paid, reason)
		if reason == lottery.PaidAtExclusion {
			var ex struct {
				PaidOut int64 `json:"paid_out"`
			}
			if json.Unmarshal(raw, &ex); ex.PaidOut != paid {
				t.Fatalf("%s: paid_out %d, want %d (20 € less %d staked, plus %d won)", name, ex.PaidOut, paid, staked, won)
			}
		}
	}
	t.Logf("%d sales before their shut, %d refused after it", sold, refused)
	ledgerOK(t, servers[0])
}
