package storetest

import (
	"fmt"
	"sync"
	"testing"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// A closure, or a self-exclusion, racing sales and deposits of the same player, on two servers
// where the store allows several (sales sent to both, the shut to the second): 50 trials of each.
// Every shut succeeds and pays out the whole balance as it stands once what came before it is
// in; nothing lands after it. So each sale and each deposit either went through before it, and
// is in what was paid out, or was refused (its session ended, or the account shut). The account
// ends at zero, and to the cent: deposits = stakes − prizes + payout.
func testShutRacingSales(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	const trials, sellers, sales = 50, 3, 3 // at most 900 units of the fixture's 2,000
	var sold, refused, deposits, late int   // over all trials: what went through, what came too late
	for _, exclude := range []bool{false, true} {
		for trial := range trials {
			name := fmt.Sprintf("shut-%v-%d", exclude, trial)
			p := f.player(t, name, 20_00)
			hash := []byte(name)
			if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: hash, Kind: lottery.PlayerSession, OwnerID: p.ID,
				CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			deposited, staked, won := int64(20_00), int64(0), int64(0)
			first := make(chan struct{}) // the first sale is in: the shut goes while the others run
			var once sync.Once
			var wg sync.WaitGroup
			for i := range sellers {
				wg.Go(func() {
					defer once.Do(func() { close(first) }) // even if no sale goes through
					for n := range sales {
						r := f.sale(p, fmt.Sprintf("%s-%d-%d", name, i, n))
						r.Session = hash
						g, err := servers[i%2].Sell(f.ctx, r, f.now)
						if fault.Is(err, fault.NotLoggedIn) {
							mu.Lock()
							refused++
							mu.Unlock()
							return // after the shut
						}
						if err != nil {
							t.Errorf("%s: a sale: %v", name, err)
							return
						}
						mu.Lock()
						staked, won, sold = staked+g.Stake, won+g.Prize, sold+1
						mu.Unlock()
						once.Do(func() { close(first) })
					}
				})
			}
			failed := make(chan struct{}) // the shut failed: the deposits stop
			wg.Go(func() {
				for n := 0; ; n++ {
					select {
					case <-failed:
						return
					default:
					}
					_, err := servers[n%2].Pay(f.ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Session: hash, Kind: lottery.Deposit,
						Amount: 100}, f.now)
					switch {
					case fault.Is(err, fault.NotLoggedIn), fault.Is(err, fault.Excluded), fault.Is(err, fault.AccountClosed):
						mu.Lock()
						late++
						mu.Unlock()
						return
					case err != nil:
						t.Errorf("%s: a deposit: %v", name, err)
						return
					}
					mu.Lock()
					deposited, deposits = deposited+100, deposits+1
					mu.Unlock()
				}
			})
			<-first
			var paid int64
			var err error
			if exclude {
				_, paid, err = servers[1].ExcludePlayer(f.ctx, p.ID, hash, f.now.AddDate(0, 0, 7), f.now)
			} else {
				paid, err = servers[1].ClosePlayer(f.ctx, p.ID, hash, f.now)
			}
			if err != nil {
				close(failed)
				wg.Wait()
				t.Fatalf("%s: the shut racing sales: %v", name, err)
			}
			wg.Wait()
			got, err := f.s.PlayerByID(f.ctx, p.ID)
			if err != nil || got.Balance != 0 || (got.ClosedAt.IsZero() && !exclude) || (got.ExcludedUntil.IsZero() && exclude) {
				t.Fatalf("%s: after the shut: %+v, %v", name, got, err)
			}
			if deposited != staked-won+paid {
				t.Fatalf("%s: deposited %d, staked %d, won %d, paid out %d: %d cents unaccounted for", name, deposited, staked, won, paid,
					deposited-(staked-won+paid))
			}
			f.lastPayout(t, p, paid, map[bool]string{false: lottery.PaidAtClosure, true: lottery.PaidAtExclusion}[exclude])
		}
	}
	t.Logf("%d sales and %d deposits went through before their shut, %d sales and %d deposits came after it and were refused", sold, deposits, refused, late)
	f.ledgerOK(t)
}

// lastPayout fails the test unless the player's latest transfer is the payout of amount to the
// bank, marked with its reason.
func (f *fixture) lastPayout(t testing.TB, p lottery.Player, amount int64, reason string) {
	t.Helper()
	ts, err := f.s.PlayerTransfers(f.ctx, p, 1, 0)
	if err != nil || len(ts) != 1 {
		t.Fatalf("the latest transfer of %s: %+v, %v", p.Username, ts, err)
	}
	if got := ts[0]; got.Kind != lottery.Withdrawal || got.From != p.AccountID || got.To != lottery.BankAccount ||
		got.Amount != amount || got.Reason != reason {
		t.Fatalf("the latest transfer of %s: %+v; want the payout of %d (%s)", p.Username, got, amount, reason)
	}
}

// A new session racing a shut of the account, 50 trials each of a closure and a self-exclusion.
// The session is a login's, as it opens its session after checking the account, on two servers
// where the store allows several. The session is refused, or made before the shut and ended by
// it; none is left.
func testSessionRacingShut(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	made := 0
	for _, exclude := range []bool{false, true} {
		for trial := range 50 {
			name := fmt.Sprintf("login-%v-%d", exclude, trial)
			p := f.player(t, name, 0)
			hash := []byte(name)
			var err error
			var wg sync.WaitGroup
			wg.Go(func() {
				err = servers[0].CreateSession(f.ctx, lottery.Session{Hash: hash, Kind: lottery.PlayerSession, OwnerID: p.ID,
					CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()})
			})
			var shutErr error
			if exclude {
				_, _, shutErr = servers[1].ExcludePlayer(f.ctx, p.ID, nil, f.now.AddDate(0, 0, 7), f.now)
			} else {
				_, shutErr = servers[1].ClosePlayer(f.ctx, p.ID, nil, f.now)
			}
			wg.Wait()
			switch {
			case shutErr != nil:
				t.Fatalf("%s: the shut: %v", name, shutErr)
			case err == nil:
				made++
			case !fault.Is(err, fault.Excluded) && !fault.Is(err, fault.AccountClosed):
				t.Fatalf("%s: the session racing the shut: %v", name, err)
			}
			if _, err := f.s.Session(f.ctx, hash); !fault.Is(err, fault.NotLoggedIn) {
				t.Fatalf("%s: a session outlived the shut of its account: %v", name, err)
			}
		}
	}
	t.Logf("%d of 100 sessions were made before their shut (and ended by it), the others refused", made)
	f.ledgerOK(t)
}
