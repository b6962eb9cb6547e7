package storetest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Weekly limits (docs/spec/API.md 1.1): none by default, asked for before the first deposit and the first
// stake; a deposit or a sale past one is refused and changes nothing; a lowering holds at once, a
// raise 48 hours later; the week rolls; every change is kept.
func testLimits(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p, err := f.s.CreatePlayer(f.ctx, "lucie", "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := f.s.Limits(f.ctx, p.ID, f.now); err != nil || l.Deposit.Set || l.Stake.Set || l.RealityCheck != 0 {
		t.Fatalf("limits before any is set: %+v %v", l, err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 100, "d0", f.now); !fault.Is(err, fault.LimitsRequired) {
		t.Fatalf("a deposit before a deposit limit: %v", err)
	}
	dep := int64(1000)
	if _, err := f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Deposit: &dep}, "player", f.now); err != nil {
		t.Fatal(err)
	}
	at := func(h time.Duration) time.Time { return f.now.Add(h) }
	if _, err := f.tryPay(p, lottery.Deposit, 600, "d1", at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 401, "d2", at(2*time.Hour)); !fault.Is(err, fault.LimitReached) {
		t.Fatalf("a deposit a cent past the limit: %v", err)
	}
	if _, found, _ := f.s.KeptAnswer(f.ctx, p.ID, "d2"); found || f.balance(t, p) != 600 {
		t.Fatal("a refused deposit changed something")
	}
	if _, err := f.tryPay(p, lottery.Deposit, 400, "d3", at(3*time.Hour)); err != nil {
		t.Fatalf("a deposit up to the limit: %v", err)
	}
	// Withdrawals are not limited, and do not give the week's deposits back.
	f.pay(t, p, lottery.Withdrawal, 500, "w1")
	if _, err := f.tryPay(p, lottery.Deposit, 1, "d4", at(4*time.Hour)); !fault.Is(err, fault.LimitReached) {
		t.Fatalf("a deposit past the limit after a withdrawal: %v", err)
	}
	// The stake limit.
	if _, err := f.s.Sell(f.ctx, f.sale(p, "s0"), at(4*time.Hour)); !fault.Is(err, fault.LimitsRequired) {
		t.Fatalf("a sale before a stake limit: %v", err)
	}
	stake := int64(250)
	if _, err := f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Stake: &stake}, "player", at(4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []fault.Code{"", "", fault.LimitReached} {
		_, err := f.s.Sell(f.ctx, f.sale(p, fmt.Sprint("s", i+1)), at(5*time.Hour))
		if (want == "" && err != nil) || (want != "" && !fault.Is(err, want)) {
			t.Fatalf("sale %d at a limit of 250: %v", i+1, err)
		}
	}
	// A raise waits 48 hours, shown as pending; the old limit holds meanwhile.
	raise := int64(1000)
	l, err := f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Stake: &raise, RealityCheck: 30, SetRealityCheck: true}, "player", at(6*time.Hour))
	if err != nil || l.Stake.Amount != 250 || l.Stake.Pending == nil || l.Stake.Pending.Amount != 1000 ||
		!l.Stake.Pending.EffectiveAt.Equal(at(54*time.Hour)) || l.Staked != 200 || l.Deposited != 1000 || l.RealityCheck != 30 {
		t.Fatalf("after a raise: %+v %v", l, err)
	}
	if _, err := f.s.Sell(f.ctx, f.sale(p, "s4"), at(54*time.Hour-time.Second)); !fault.Is(err, fault.LimitReached) {
		t.Fatalf("a sale under a raise not yet in force: %v", err)
	}
	if _, err := f.s.Sell(f.ctx, f.sale(p, "s5"), at(54*time.Hour)); err != nil {
		t.Fatalf("a sale once the raise holds: %v", err)
	}
	// A lowering holds at once and cancels a pending raise.
	more, less := int64(5000), int64(300)
	f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Stake: &more}, "player", at(55*time.Hour))
	l, err = f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Stake: &less}, "player", at(56*time.Hour))
	if err != nil || l.Stake.Amount != 300 || l.Stake.Pending != nil {
		t.Fatalf("a lowering: %+v %v", l, err)
	}
	if _, err := f.s.Sell(f.ctx, f.sale(p, "s6"), at(200*time.Hour)); err != nil { // the first stakes have left the week
		t.Fatalf("a sale a week later: %v", err)
	}
	// The week rolls: the deposits of the first hours leave it 7 × 24 hours after they were made.
	if _, err := f.tryPay(p, lottery.Deposit, 600, "d5", at(lottery.Week+time.Hour-time.Second)); !fault.Is(err, fault.LimitReached) {
		t.Fatalf("a deposit a second before the first leaves the week: %v", err)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 600, "d6", at(lottery.Week+time.Hour)); err != nil {
		t.Fatalf("a deposit once the first has left the week: %v", err)
	}
	l, _ = f.s.Limits(f.ctx, p.ID, at(lottery.Week+time.Hour))
	if l.Deposited != 1000 || l.Staked != 200 {
		t.Fatalf("the week's sums: deposited %d (want 1000), staked %d (want 200)", l.Deposited, l.Staked)
	}
	// Every change kept, the latest first.
	cs, err := f.s.LimitChanges(f.ctx, p.ID)
	if err != nil || len(cs) != 5 {
		t.Fatalf("%d changes kept: %+v %v", len(cs), cs, err)
	}
	if c := cs[0]; c.Limit != lottery.StakeWeekly || *c.Old != 1000 || c.New != 300 || !c.EffectiveAt.Equal(at(56*time.Hour)) || c.By != "player" {
		t.Errorf("the last change: %+v", c)
	}
	if c := cs[4]; c.Limit != lottery.DepositWeekly || c.Old != nil || c.New != 1000 {
		t.Errorf("the first change: %+v", c)
	}
	f.ledgerOK(t)
}

// Sales and deposits sent at once at the edge of a limit: exactly as many pass as the limit
// allows, whether they meet in one batch or not.
func testLimitEdgeConcurrent(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "edith", 0)
	f.limits(t, p, 1000, 700)
	var wg sync.WaitGroup
	var mu sync.Mutex
	deposits, sales := 0, 0
	for i := range 30 {
		wg.Go(func() {
			_, err := f.tryPay(p, lottery.Deposit, 100, fmt.Sprint("d", i), f.now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				deposits++
			case !fault.Is(err, fault.LimitReached):
				t.Errorf("a deposit: %v", err)
			}
		})
	}
	wg.Wait()
	release := f.s.Hold()
	for i := range 30 {
		wg.Go(func() {
			_, err := f.sell(p, fmt.Sprint("s", i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sales++
			case !fault.Is(err, fault.LimitReached):
				t.Errorf("a sale: %v", err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // the sales queue behind the hold, to meet in one batch
	release()
	wg.Wait()
	if deposits != 10 || sales != 7 {
		t.Fatalf("%d deposits of 1 € passed a limit of 10 €, %d sales of 1 € a limit of 7 €", deposits, sales)
	}
	if l, _ := f.s.Limits(f.ctx, p.ID, f.now); l.Deposited != 1000 || l.Staked != 700 {
		t.Fatalf("the week's sums: %+v", l)
	}
	f.ledgerOK(t)
}

// Over random deposits and sales at random times across weeks, by several players, the sums the
// limits bound always equal the ledger's: the deposits and the stakes of the last 7 × 24 hours.
func testRollingSumsEqualLedger(t *testing.T, h Harness) {
	f := newFixture(t, h)
	r := rand.New(rand.NewPCG(12, 7))
	players := []lottery.Player{f.player(t, "ana", 0), f.player(t, "bea", 0), f.player(t, "cyd", 0)}
	now := f.now
	sold, swept := 0, 0
	for step := range 120 {
		now = now.Add(time.Duration(r.Int64N(int64(36 * time.Hour))))
		p := players[r.IntN(len(players))]
		if r.IntN(3) == 0 || sold >= 150 {
			if _, err := f.tryPay(p, lottery.Deposit, 1+r.Int64N(3000), fmt.Sprint("d", step), now); err != nil && !fault.Is(err, fault.LimitReached) {
				t.Fatal(err)
			}
		} else {
			for i := range 1 + r.IntN(3) {
				if _, err := f.s.Sell(f.ctx, f.sale(p, fmt.Sprint("s", step, "-", i)), now); err == nil {
					sold++
				} else if !fault.Is(err, fault.InsufficientFunds) && !fault.Is(err, fault.LimitReached) {
					t.Fatal(err)
				}
			}
		}
		// The sweep of stale windows (MoveStakeWindows) moves them as a sale would: the sums stay
		// the ledger's, and the books balance. Two at most, then the rest, then none is left.
		if r.IntN(3) == 0 {
			var moved [3]int
			for i, n := range []int{2, 10, 10} {
				var err error
				if moved[i], err = f.s.MoveStakeWindows(f.ctx, now, n); err != nil || moved[i] > n {
					t.Fatalf("step %d: MoveStakeWindows(%d) moved %d: %v", step, n, moved[i], err)
				}
			}
			if moved[2] != 0 {
				t.Fatalf("step %d: a sweep after a sweep moved %d windows", step, moved[2])
			}
			swept += moved[0] + moved[1]
		}
		f.limitsAreLedger(t, fmt.Sprint("step ", step), players, now)
	}
	if sold < 50 || swept < 5 {
		t.Fatalf("only %d sales and %d windows swept: the test did not test much", sold, swept)
	}
	f.ledgerOK(t)
}

// limitsAreLedger checks that each player's limits, at now, sum the deposits and the stakes of
// the week as the ledger lists them.
func (f *fixture) limitsAreLedger(t testing.TB, at string, players []lottery.Player, now time.Time) {
	t.Helper()
	for _, p := range players {
		l, err := f.s.Limits(f.ctx, p.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if d, s := f.week(t, p, lottery.Deposit, now), f.week(t, p, lottery.Stake, now); l.Deposited != d || l.Staked != s {
			t.Fatalf("%s, %s: the limits say deposited %d, staked %d; the ledger %d, %d", at, p.Username, l.Deposited, l.Staked, d, s)
		}
	}
}

// week is the sum of a player's transfers of a kind in the week up to now, as the ledger lists
// them: what the limits' sums must equal.
func (f *fixture) week(t testing.TB, p lottery.Player, kind string, now time.Time) int64 {
	t.Helper()
	var n int64
	for _, tr := range f.transfers(t, p) {
		if tr.Kind == kind && tr.CreatedAt.After(now.Add(-lottery.Week)) && !tr.CreatedAt.After(now) {
			n += tr.Amount
		}
	}
	return n
}

// transfers are all of a player's transfers, as the store lists them.
func (f *fixture) transfers(t testing.TB, p lottery.Player) []lottery.Transfer {
	t.Helper()
	var all []lottery.Transfer
	before := int64(0)
	for {
		page, err := f.s.PlayerTransfers(f.ctx, p, 100, before)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < 100 {
			return all
		}
		before = page[len(page)-1].ID
	}
}

// A sweep that may move fewer windows than are due moves the stalest first, whatever the order
// of the accounts: the first players' windows, due again and again, do not keep the others'
// stale. The players' accounts are made in one order, their sales in the reverse.
func testSweepStalestFirst(t *testing.T, h Harness) {
	f := newFixture(t, h)
	players := make([]lottery.Player, 3)
	for i := range players {
		players[i] = f.player(t, fmt.Sprint("stale", i), 10_000)
	}
	for i := range players {
		at := f.now.Add(time.Duration(len(players)-i) * time.Hour)
		if _, err := f.s.Sell(f.ctx, f.sale(players[i], "k"), at); err != nil {
			t.Fatal(err)
		}
	}
	now := f.now.Add(lottery.Week + 5*time.Hour) // every sale has left the week
	expired := func(p lottery.Player) int64 {
		return f.raw.Int(t, `SELECT a.staked_expired FROM accounts a JOIN players p ON p.account_id = a.id WHERE p.id = $1`, p.ID)
	}
	for round := range players {
		if n, err := f.s.MoveStakeWindows(f.ctx, now, 1); err != nil || n != 1 {
			t.Fatalf("round %d: moved %d: %v", round, n, err)
		}
		for i, p := range players {
			// Sold in the reverse order: the last player's window is the stalest.
			want := int64(0)
			if i >= len(players)-1-round {
				want = 100
			}
			if got := expired(p); got != want {
				t.Fatalf("round %d: %s's window has %d cents expired, want %d", round, p.Username, got, want)
			}
		}
	}
	f.limitsAreLedger(t, "after the sweeps", players, now)
}

// Sweeps of stale windows (MoveStakeWindows) racing the sales of the same players, on two servers
// where there can be two: a sweep writes a window only as it read it. A sale that moved the window
// between the sweep's reading and its write, and counted its own stake from then on, keeps what
// it wrote; else the sale's stake would never leave the week. Each round, every window is due
// (the players' last sales are more than a week old), and the sweeps read them all before they
// write: the sales commit meanwhile. The sales start 0, 3 or 6 ms after the sweeps, and every
// fourth round once they are done, so that some sweeps write first and some after.
func testSweepRacesSales(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	players := make([]lottery.Player, 40)
	for i := range players {
		players[i] = f.player(t, fmt.Sprint("swept", i), 100_000)
	}
	now, swept := f.now, 0
	for round := range 8 {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range 2 {
			wg.Go(func() {
				n, err := servers[i].MoveStakeWindows(f.ctx, now, len(players))
				if err != nil {
					t.Errorf("round %d: a sweep: %v", round, err)
				}
				mu.Lock()
				swept += n
				mu.Unlock()
			})
		}
		if round%4 == 3 {
			wg.Wait() // the sweeps write first, however slow the machine
		} else {
			time.Sleep(time.Duration(round%4) * 3 * time.Millisecond)
		}
		for i, p := range players {
			wg.Go(func() {
				if _, err := servers[i%2].Sell(f.ctx, f.sale(p, fmt.Sprint("r", round)), now); err != nil {
					t.Errorf("round %d, a sale of %s: %v", round, p.Username, err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		f.limitsAreLedger(t, fmt.Sprint("round ", round), players, now)
		now = now.Add(lottery.Week + time.Hour)
		f.limitsAreLedger(t, fmt.Sprint("a week after round ", round), players, now)
	}
	if swept == 0 {
		t.Fatal("no sweep moved a window: the test did not test much")
	}
	t.Logf("%d windows swept", swept)
	f.ledgerOK(t)
}
