package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
)

// The sales' totals that the back office reads (by hour, by day, by price, by open block) are
// kept by the sales themselves. They equal the sums over the games after sales spread over two
// days and two prices, and after concurrent sales that sell a block out into the next.
func testSalesTotals(t *testing.T, h Harness) {
	f := newFixture(t, h)
	def := gamedeftest.Mini(t) // its one table, also sold at 2 €
	at2 := def.Tables[0]
	at2.Price = 200
	def.Tables = append(def.Tables, at2)
	e2 := CreateEmission(t, f.s, def, "T", 200, 1, 't')
	r2, err := emission.NewReader(e2, f.s)
	if err != nil {
		t.Fatal(err)
	}
	var players []lottery.Player
	sellAt := func(p lottery.Player, key string, price int64, at time.Time) error {
		r := f.reader
		if price == 200 {
			r = r2
		}
		_, err := f.s.Sell(f.ctx, f.saleOf(p, key, price, r), at)
		return err
	}
	p := f.player(t, "hours", 100_000_000)
	players = append(players, p)
	start := f.now
	n := 0
	for h := range 30 { // two calendar days, an hour apart, some hours at both prices
		at := start.Add(time.Duration(h)*time.Hour + time.Duration(h)*time.Minute)
		for i := range 1 + h%4 {
			price := int64(100)
			if i == 2 {
				price = 200
			}
			if err := sellAt(p, fmt.Sprintf("k%d", n), price, at); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	checkTotals(t, f, players, start.Add(10*time.Hour))

	// Sales at once, in shared batches, until the first block at 1 € is sold out into the second.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for g := range 16 {
		q := f.player(t, fmt.Sprintf("c%d", g), 100_000_000)
		players = append(players, q)
		wg.Go(func() {
			for i := range 70 {
				if err := sellAt(q, fmt.Sprintf("c%d-%d", g, i), 100, start.Add(40*time.Hour)); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	e, err := f.s.Emission(f.ctx, "S")
	if err != nil || e.Blocks[0].Sold != 1000 || e.Blocks[1].Sold == 0 {
		t.Fatalf("the emission at 1 €: %+v, %v; want its first block sold out into the second", e, err)
	}
	checkTotals(t, f, players, start)
}

// checkTotals compares the kept totals with sums over the players' games, read one by one, and
// checks the ledger.
func checkTotals(t *testing.T, f *fixture, players []lottery.Player, since time.Time) {
	t.Helper()
	var games []lottery.Game
	for _, p := range players {
		gs, err := f.s.Games(f.ctx, p.ID, 100_000, 0)
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, gs...)
	}
	// fromGames sums the games from a time until another, by period (none: in all) and price.
	fromGames := func(p lottery.Period, from, until time.Time) []lottery.Sales {
		byKey := map[lottery.HourKey]*lottery.Sales{}
		for _, g := range games {
			if g.CreatedAt.Before(from) || !g.CreatedAt.Before(until) {
				continue
			}
			k := lottery.HourKey{Price: g.Stake}
			if p != "" {
				k.Hour = p.Start(g.CreatedAt)
			}
			s := byKey[k]
			if s == nil {
				s = &lottery.Sales{Period: k.Hour, Price: k.Price}
				byKey[k] = s
			}
			s.Add(lottery.Sales{Units: 1, Stakes: g.Stake, Prizes: g.Prize, Winners: map[bool]int64{true: 1}[g.Prize > 0], Top: g.Prize})
		}
		var out []lottery.Sales
		for _, s := range byKey {
			out = append(out, *s)
		}
		slices.SortFunc(out, func(a, b lottery.Sales) int {
			if c := a.Period.Compare(b.Period); c != 0 {
				return c
			}
			return int(a.Price - b.Price)
		})
		return out
	}
	never := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		p     lottery.Period
		since time.Time
	}{{lottery.Hour, time.Time{}}, {lottery.Hour, since}, {lottery.Day, time.Time{}}, {lottery.Day, since}} {
		got, err := f.s.SalesOver(f.ctx, c.p, c.since)
		if err != nil {
			t.Fatal(err)
		}
		want := fromGames(c.p, c.p.Start(c.since), never)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("sales by %s since %v:\n got %+v\nwant %+v", c.p, c.since, got, want)
		}
	}
	from, until := since.Add(-3*time.Hour), since.Add(5*time.Hour)
	between, err := f.s.SalesBetween(f.ctx, lottery.Hour, from, until)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromGames(lottery.Hour, lottery.Hour.Start(from), lottery.Hour.Start(until)); !reflect.DeepEqual(between, want) {
		t.Fatalf("sales by hour from %v until %v:\n got %+v\nwant %+v", from, until, between, want)
	}
	got, err := f.s.SalesTotals(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromGames("", time.Time{}, never); !reflect.DeepEqual(got, want) {
		t.Fatalf("sales totals:\n got %+v\nwant %+v", got, want)
	}
	open, err := f.s.OpenBlockSales(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) == 0 {
		t.Fatal("no open block")
	}
	for _, b := range open {
		var want lottery.BlockSales
		for _, g := range games {
			if g.Emission == b.Emission && g.Block == b.Block {
				want.Sold++
				want.Prizes += g.Prize
				if g.Prize > 0 {
					want.Winners++
				}
			}
		}
		if b.Sold != want.Sold || b.Prizes != want.Prizes || b.Winners != want.Winners || b.Units != 1000 {
			t.Fatalf("block %d of %s: sold %d, prizes %d, winners %d; its games: %d, %d, %d",
				b.Block, b.Emission, b.Sold, b.Prizes, b.Winners, want.Sold, want.Prizes, want.Winners)
		}
	}
	f.ledgerOK(t)
}

// A player's transfers are exactly the latest movements into or out of their account, newest
// first, at any limit, and page by page all of them.
func testPlayerTransfers(t *testing.T, h Harness) {
	f := newFixture(t, h)
	players := []lottery.Player{f.player(t, "rich", 100_000), f.player(t, "poor", 700), f.player(t, "idle", 1000)}
	// What each player did, in order: their transfers as they must read, oldest first.
	done := make([][]lottery.Transfer, len(players))
	for n, p := range players {
		done[n] = []lottery.Transfer{{From: lottery.BankAccount, To: p.AccountID, Amount: []int64{100_000, 700, 1000}[n], Kind: lottery.Deposit}}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for n, p := range players[:2] {
		wg.Go(func() {
			for i := range 250 {
				var err error
				switch {
				case i%7 == 0:
					if _, err = f.tryPay(p, lottery.Deposit, 100, "", f.now); err == nil {
						done[n] = append(done[n], lottery.Transfer{From: lottery.BankAccount, To: p.AccountID, Amount: 100, Kind: lottery.Deposit})
					}
				case i%11 == 0:
					if _, err = f.tryPay(p, lottery.Withdrawal, 150, "", f.now); err == nil {
						done[n] = append(done[n], lottery.Transfer{From: p.AccountID, To: lottery.BankAccount, Amount: 150, Kind: lottery.Withdrawal})
					}
				default:
					var g lottery.Game
					if g, err = f.sell(p, fmt.Sprintf("%d-%d", n, i)); err == nil {
						done[n] = append(done[n], lottery.Transfer{From: p.AccountID, To: lottery.PrizeFundAccount, Amount: g.Stake, Kind: lottery.Stake, GameID: g.ID})
						if g.Prize > 0 {
							done[n] = append(done[n], lottery.Transfer{From: lottery.PrizeFundAccount, To: p.AccountID, Amount: g.Prize, Kind: lottery.Prize, GameID: g.ID})
						}
					}
				}
				if err != nil && fault.CodeOf(err) != fault.InsufficientFunds {
					errs[n] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// without ids and times, newest first
	plain := func(ts []lottery.Transfer) []lottery.Transfer {
		out := make([]lottery.Transfer, len(ts))
		for i, tr := range ts {
			out[i] = lottery.Transfer{From: tr.From, To: tr.To, Amount: tr.Amount, Kind: tr.Kind, GameID: tr.GameID}
		}
		return out
	}
	for n, p := range players {
		want := slices.Clone(done[n])
		slices.Reverse(want)
		for _, limit := range []int{1, 2, 5, 100, 1000} {
			got, err := f.s.PlayerTransfers(f.ctx, p, limit, 0)
			if err != nil {
				t.Fatal(err)
			}
			w := want[:min(limit, len(want))]
			if !reflect.DeepEqual(plain(got), w) {
				t.Fatalf("%s's latest %d transfers:\n got %+v\nwant %+v", p.Username, limit, plain(got), w)
			}
			for i := 1; i < len(got); i++ {
				if got[i].ID >= got[i-1].ID || !got[i].CreatedAt.Equal(f.now) {
					t.Fatalf("%s's transfers not newest first, or their times wrong: %+v", p.Username, got)
				}
			}
		}
		// Page by page (7 at a time, each before the last one seen), the same transfers, all of them.
		var paged []lottery.Transfer
		for before := int64(0); ; {
			page, err := f.s.PlayerTransfers(f.ctx, p, 7, before)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if len(page) < 7 {
				break
			}
			before = page[len(page)-1].ID
		}
		if !reflect.DeepEqual(plain(paged), want) {
			t.Fatalf("%s's transfers page by page: %d, want %d", p.Username, len(paged), len(want))
		}
		// A game's stake transfer is the one its game names, and its prize's the next.
		for _, tr := range paged {
			if tr.Kind != lottery.Stake {
				continue
			}
			g, err := f.s.Game(f.ctx, p.ID, tr.GameID)
			if err != nil || g.StakeTransfer != tr.ID {
				t.Fatalf("game %d names stake transfer %d, its stake is %d (%v)", tr.GameID, g.StakeTransfer, tr.ID, err)
			}
		}
	}
	f.ledgerOK(t)
}
