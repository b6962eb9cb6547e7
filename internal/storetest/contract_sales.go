package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
)

// One key sent at once to two servers (PostgreSQL; one store twice elsewhere), round after round:
// it sells once, the others are lottery.ErrKeyTaken, and the books balance. On PostgreSQL each
// server's batch reads the keys, then writes them with its COMMIT in one round trip: a key the
// other batch wrote meanwhile fails that write, and the batch is made again, finding it taken.
func testKeyRacedAcrossServers(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	p := f.player(t, "raced", 100_000)
	for round := range 25 {
		key := fmt.Sprint("raced-", round)
		results := make([]error, 6)
		var wg sync.WaitGroup
		for i := range results {
			s := servers[i%2]
			wg.Go(func() { _, results[i] = s.Sell(f.ctx, f.sale(p, key), f.now) })
		}
		wg.Wait()
		soldOnce(t, fmt.Sprint("round ", round), results)
	}
	if games := raw.Int(t, `SELECT count(*) FROM games`); games != 25 {
		t.Fatalf("%d games for 25 keys", games)
	}
	f.ledgerOK(t)
}

// soldOnce checks the results of sales of one key: one sold, every other lottery.ErrKeyTaken.
func soldOnce(t *testing.T, what string, results []error) {
	t.Helper()
	sold := 0
	for _, err := range results {
		switch {
		case err == nil:
			sold++
		case !errors.Is(err, lottery.ErrKeyTaken):
			t.Fatalf("%s: %v", what, err)
		}
	}
	if sold != 1 {
		t.Fatalf("%s: the key sold %d times", what, sold)
	}
}

// Sales made at once share batches, and each is decided against the batch's earlier ones:
//
//   - a key used many times at once sells once;
//   - a player runs out of money exactly when the stakes exceed what they hold (prizes
//     included);
//   - the first block sells out into the second, and the emission sells out;
//   - every unit is sold once, and the books balance.
func testSalesInBatches(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "dup", 10_000)
	var wg sync.WaitGroup
	results := make([]error, 32)
	for i := range results {
		wg.Go(func() { _, results[i] = f.sell(p, "same-key") })
	}
	wg.Wait()
	soldOnce(t, "one key at once", results)

	// Many players at once until the emission (2 × 1000 units) is sold out. Half of them hold
	// 1.50 €, half 100 €, and each plays until refused: every refusal is either too little money,
	// with the balance under the stake, or sold out.
	const players = 48
	units := map[[2]int]bool{}
	var mu sync.Mutex
	soldOut := 0
	for i := range players {
		p := f.player(t, fmt.Sprintf("p%d", i), []int64{150, 10_000}[i%2])
		wg.Go(func() {
			for n := 0; ; n++ {
				g, err := f.sell(p, fmt.Sprintf("k%d", n))
				if err != nil {
					mu.Lock()
					defer mu.Unlock()
					switch {
					case fault.Is(err, fault.SoldOut):
						soldOut++
					case fault.Is(err, fault.InsufficientFunds):
						if bal := f.balance(t, p); bal >= 100 {
							t.Errorf("player %d refused for money with %d cents", p.ID, bal)
						}
					default:
						t.Errorf("sale: %v", err)
					}
					return
				}
				mu.Lock()
				if units[[2]int{g.Block, g.Unit}] {
					t.Errorf("unit %d of block %d sold twice", g.Unit, g.Block)
				}
				units[[2]int{g.Block, g.Unit}] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st := f.s.WriteStats()
	t.Logf("%d units sold, %d players stopped by the sell-out, %d write batches of %d operations", len(units)+1, soldOut, st.Batches, st.Ops)
	if st.Ops < 2*st.Batches {
		t.Errorf("sales were not batched: %d operations in %d batches", st.Ops, st.Batches)
	}
	if soldOut < players/2 || len(units)+1 != 2000 {
		t.Errorf("%d players stopped by the sell-out after %d units of 2000", soldOut, len(units)+1)
	}
	if c := f.ledgerOK(t); c.Games != len(units)+1 {
		t.Fatalf("ledger sees %d games, %d sold", c.Games, len(units)+1)
	}
	// The emission is sold out, and says so.
	if open, err := f.s.OpenEmissionPrices(f.ctx); err != nil || open[100] {
		t.Fatalf("open prices after the sell-out: %v, %v", open, err)
	}
	// The answer kept under a key names its game.
	a, found, err := f.s.KeptAnswer(f.ctx, p.ID, "same-key")
	if err != nil || !found || a.Status != 201 || string(a.RequestHash) != "body" {
		t.Fatalf("kept answer: %+v %v %v", a, found, err)
	}
	if _, found, err := f.s.KeptAnswer(f.ctx, p.ID, "no-such-key"); err != nil || found {
		t.Fatalf("an unknown key: found %v, %v", found, err)
	}
}

// A sale whose unit cannot be read (its page failed its check, say) fails alone with its price.
// The other sales of its batch are made, and the unit stays unsold. The next sale at that price
// gets it once it can be read.
func testUnreadablePrize(t *testing.T, h Harness) {
	f := newFixture(t, h)
	def := gamedeftest.Mini(t)
	table, _ := def.Table(100)
	// An emission sold at 2 €, its units built from the 1 € table: only its price matters here.
	e := &emission.Emission{ID: "T2", Price: 200, Definition: def.Version, Table: *table, CreatedAt: f.now}
	err := f.s.CreateEmission(f.ctx, e, [32]byte{2}, lottery.ByCommandLine, func(put func(emission.Page) error) ([]emission.Block, error) {
		return emission.Build(f.ctx, emission.Plan{Definition: def, Price: 100, Blocks: 1, Seed: [32]byte{2}}, put, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	p := f.player(t, "petra", 10_000)
	broken := errors.New("page unreadable")
	sale := func(key string, price int64, prizeErr error) (lottery.Game, error) {
		r := f.sale(p, key)
		r.Price = price
		r.Prizes = failedPrizes{prizeErr}
		return f.s.Sell(f.ctx, r, f.now)
	}
	release := f.s.Hold()
	errs := make(chan error, 3)
	go func() { _, err := sale("a", 200, broken); errs <- err }()
	time.Sleep(20 * time.Millisecond)
	go func() { _, err := sale("b", 200, broken); errs <- err }()
	go func() { _, err := sale("c", 100, nil); errs <- err }()
	time.Sleep(50 * time.Millisecond)
	release()
	var failed, made int
	for range 3 {
		switch err := <-errs; {
		case errors.Is(err, broken):
			failed++
		case err == nil:
			made++
		default:
			t.Fatalf("a sale: %v", err)
		}
	}
	if failed != 2 || made != 1 {
		t.Fatalf("%d sales failed and %d made, want the 2 at 2 € failed and the one at 1 € made", failed, made)
	}
	g, err := sale("d", 200, nil)
	if err != nil || g.Emission != "T2" || g.Unit != 0 {
		t.Fatalf("the next sale at 2 €: %+v, %v; want unit 0 of T2", g, err)
	}
	f.ledgerOK(t)
}

// A sale, a payment or a move whose session has ended by the time it is written is refused and
// changes nothing; with the session open, they go through.
func testSessionEndedRefusesSales(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "sid", 1000)
	live, gone := []byte("live-session-hash-0123456789abcdef"), []byte("ended-session-hash-0123456789abcd")
	for _, hash := range [][]byte{live, gone} {
		if err := f.s.CreateSession(f.ctx, lottery.Session{Hash: hash, Kind: lottery.PlayerSession, OwnerID: p.ID, CreatedAt: f.now.Unix(), LastSeen: f.now.Unix()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.DeleteSession(f.ctx, gone); err != nil {
		t.Fatal(err)
	}
	r := f.sale(p, "k-gone")
	r.Session = gone
	if _, err := f.s.Sell(f.ctx, r, f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a sale after its session ended: %v", err)
	}
	_, err := f.s.Pay(f.ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Session: gone, Kind: lottery.Withdrawal, Amount: 10,
		Key: "w-gone"}, f.now)
	if !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a payment after its session ended: %v", err)
	}
	if got := f.balance(t, p); got != 1000 {
		t.Fatalf("balance %d after refused writes, want 1000", got)
	}
	r = f.sale(p, "k-live")
	r.Session = live
	r.Mode, r.Status, r.Color = lottery.Manual, lottery.ChooseColor, -1
	g, err := f.s.Sell(f.ctx, r, f.now)
	if err != nil {
		t.Fatal(err)
	}
	u := lottery.MoveUpdate{PlayerID: p.ID, GameID: g.ID, Session: gone, Was: g.Moves(), Now: lottery.Moves{Color: 2, Status: lottery.Playing}}
	if err := f.s.SaveMoves(f.ctx, u, f.now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a move after its session ended: %v", err)
	}
	if _, found, _ := f.s.KeptAnswer(f.ctx, p.ID, "k-gone"); found {
		t.Fatal("a refused sale kept an answer under its key")
	}
	f.ledgerOK(t)
}

// Payments move money between the bank and a player once per key. Too little money is refused
// and changes nothing. A key used again is lottery.ErrKeyTaken and moves nothing, and the answer
// kept under the key is the first one.
func testPayments(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "paula", 0)
	if bal := f.pay(t, p, lottery.Deposit, 500, "d1"); bal != 500 {
		t.Fatalf("balance after a deposit: %d", bal)
	}
	if _, err := f.tryPay(p, lottery.Deposit, 500, "d1", f.now); !errors.Is(err, lottery.ErrKeyTaken) {
		t.Fatalf("a key used again: %v", err)
	}
	if _, err := f.tryPay(p, lottery.Withdrawal, 501, "w1", f.now); !fault.Is(err, fault.InsufficientFunds) {
		t.Fatalf("an overdraft: %v", err)
	}
	if _, found, _ := f.s.KeptAnswer(f.ctx, p.ID, "w1"); found {
		t.Fatal("a refused payment kept an answer")
	}
	if _, err := f.tryPay(p, lottery.Withdrawal, 0, "w0", f.now); !fault.Is(err, fault.Invalid) {
		t.Fatalf("a payment of nothing: %v", err)
	}
	if bal := f.pay(t, p, lottery.Withdrawal, 200, "w2"); bal != 300 {
		t.Fatalf("balance after a withdrawal: %d", bal)
	}
	a, found, err := f.s.KeptAnswer(f.ctx, p.ID, "d1")
	if err != nil || !found || string(a.Body) != `{"balance":500}` || string(a.RequestHash) != "pay d1" {
		t.Fatalf("the answer kept under d1: %+v %v %v", a, found, err)
	}
	if c := f.ledgerOK(t); c.Players != 300 || c.Bank != -300 || c.Transfers != 2 {
		t.Fatalf("ledger after the payments: %+v", c)
	}
}

// One key sent many times at once, to sales and payments on the same store (as two servers
// would), has one effect: one sale, one deposit.
func testConcurrentDuplicateKeys(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "twin", 1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	deposits, sales := 0, 0
	for range 16 {
		wg.Go(func() {
			_, err := f.tryPay(p, lottery.Deposit, 100, "dep", f.now)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				deposits++
			case !errors.Is(err, lottery.ErrKeyTaken):
				t.Errorf("a deposit: %v", err)
			}
		})
		wg.Go(func() {
			_, err := f.sell(p, "buy")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sales++
			case !errors.Is(err, lottery.ErrKeyTaken):
				t.Errorf("a sale: %v", err)
			}
		})
	}
	wg.Wait()
	if deposits != 1 || sales != 1 {
		t.Fatalf("%d deposits and %d sales under one key each, want one of each", deposits, sales)
	}
	if c := f.ledgerOK(t); c.Games != 1 || c.Transfers < 3 {
		t.Fatalf("ledger: %+v", c)
	}
}

// A game's moves are written only if the game still stands as they were read. Of two moves made
// at once from the same state, one is written and the other is told lottery.ErrMoved. A sweep's
// move is written only if the game has not moved since its cutoff.
func testMoves(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "mover", 1000)
	r := f.sale(p, "m1")
	r.Mode, r.Status, r.Color = lottery.Manual, lottery.ChooseColor, -1
	g, err := f.s.Sell(f.ctx, r, f.now)
	if err != nil {
		t.Fatal(err)
	}
	was := g.Moves()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = f.s.SaveMoves(f.ctx, lottery.MoveUpdate{PlayerID: p.ID, GameID: g.ID, Was: was,
				Now: lottery.Moves{Color: i % 6, Status: lottery.Playing}}, f.now.Add(time.Minute))
		})
	}
	wg.Wait()
	written := 0
	for _, err := range errs {
		switch {
		case err == nil:
			written++
		case !errors.Is(err, lottery.ErrMoved):
			t.Fatalf("a move: %v", err)
		}
	}
	if written != 1 {
		t.Fatalf("%d of 8 moves from the same state written, want 1", written)
	}
	got, err := f.s.Game(f.ctx, p.ID, g.ID)
	if err != nil || got.Status != lottery.Playing || got.Color < 0 || got.UpdatedAt != f.now.Add(time.Minute).Unix() {
		t.Fatalf("the game after its move: %+v, %v", got, err)
	}
	// Clicks, then the end.
	next := got.Moves()
	next.Clicks = []byte{4, 17}
	if err := f.s.SaveMoves(f.ctx, lottery.MoveUpdate{PlayerID: p.ID, GameID: g.ID, Was: got.Moves(), Now: next}, f.now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// A sweep with a cutoff before the last move leaves the game alone.
	end := next
	end.Status = lottery.Finished
	err = f.s.SaveMoves(f.ctx, lottery.MoveUpdate{PlayerID: p.ID, GameID: g.ID, Was: next, Now: end, Before: f.now.Add(90 * time.Second).Unix()}, f.now.Add(3*time.Minute))
	if !errors.Is(err, lottery.ErrMoved) {
		t.Fatalf("a sweep's move on a game played since its cutoff: %v", err)
	}
	// Another player's game is not theirs to move, nor to read.
	q := f.player(t, "other", 0)
	if err := f.s.SaveMoves(f.ctx, lottery.MoveUpdate{PlayerID: q.ID, GameID: g.ID, Was: next, Now: end}, f.now); !errors.Is(err, lottery.ErrMoved) {
		t.Fatalf("another player's move: %v", err)
	}
	if _, err := f.s.Game(f.ctx, q.ID, g.ID); !fault.Is(err, fault.NotFound) {
		t.Fatalf("another player's game read: %v", err)
	}
	got, err = f.s.Game(f.ctx, p.ID, g.ID)
	if err != nil || !reflect.DeepEqual(got.Clicks, []byte{4, 17}) || got.Status != lottery.Playing {
		t.Fatalf("the game: %+v, %v", got, err)
	}
	// Abandoned lists unfinished games untouched since a time, oldest first.
	if gs, err := f.s.Abandoned(f.ctx, f.now.Add(3*time.Minute), 10); err != nil || len(gs) != 1 || gs[0].ID != g.ID {
		t.Fatalf("abandoned games: %+v, %v", gs, err)
	}
	if gs, err := f.s.Abandoned(f.ctx, f.now.Add(time.Minute), 10); err != nil || len(gs) != 0 {
		t.Fatalf("abandoned before its last move: %+v, %v", gs, err)
	}
	if err := f.s.SaveMoves(f.ctx, lottery.MoveUpdate{PlayerID: p.ID, GameID: g.ID, Was: next, Now: end, Before: f.now.Add(3 * time.Minute).Unix()}, f.now.Add(4*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if by, err := f.s.GameByID(f.ctx, g.ID); err != nil || by.Status != lottery.Finished || by.PlayerID != p.ID {
		t.Fatalf("the game by its number: %+v, %v", by, err)
	}
}

// Old idempotency keys are found by reading the key table in pages, in key order, and deleted by
// their key: exactly the old ones go, whatever the page size.
func testForgetKeys(t *testing.T, h Harness) {
	f := newFixture(t, h)
	now := f.now
	var players []lottery.Player
	for i := range 5 {
		players = append(players, f.player(t, fmt.Sprintf("k%d", i), 0))
	}
	old := map[lottery.KeyRef]bool{}
	kept := map[lottery.KeyRef]bool{}
	for i := range 120 {
		k := lottery.KeyRef{PlayerID: players[i%5].ID, Key: fmt.Sprintf("key-%03d", (i*37)%120/5)} // the same keys across players
		at := now.Add(-time.Hour)
		if i%3 != 0 {
			at = now.Add(-50 * time.Hour)
			old[k] = true
		} else {
			kept[k] = true
		}
		if _, err := f.tryPay(players[i%5], lottery.Deposit, 1, k.Key, at); err != nil {
			t.Fatal(err)
		}
	}
	cutoff := now.Add(-48 * time.Hour)
	for _, page := range []int{1, 7, 1000} {
		var after lottery.KeyRef
		var found []lottery.KeyRef
		for reads := 0; ; reads++ {
			o, last, done, err := f.s.OldKeys(f.ctx, after, page, cutoff)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, o...)
			if done {
				break
			}
			if reads > 200 {
				t.Fatalf("page %d: the sweep does not end", page)
			}
			after = last
		}
		if len(found) != len(old) {
			t.Fatalf("page %d: %d old keys found, want %d", page, len(found), len(old))
		}
		for _, k := range found {
			if !old[k] {
				t.Fatalf("page %d: %+v found old, it is not", page, k)
			}
		}
	}
	o, _, done, err := f.s.OldKeys(f.ctx, lottery.KeyRef{}, 1000, cutoff)
	if err != nil || !done {
		t.Fatal(err, done)
	}
	var deleted int64
	for len(o) > 0 {
		n := min(len(o), 3)
		d, err := f.s.ForgetKeys(f.ctx, o[:n])
		if err != nil {
			t.Fatal(err)
		}
		deleted += d
		o = o[n:]
	}
	if deleted != int64(len(old)) {
		t.Fatalf("%d keys deleted, want %d", deleted, len(old))
	}
	for k := range old {
		if _, found, _ := f.s.KeptAnswer(f.ctx, k.PlayerID, k.Key); found {
			t.Fatalf("old key %+v kept", k)
		}
	}
	for k := range kept {
		if _, found, _ := f.s.KeptAnswer(f.ctx, k.PlayerID, k.Key); !found {
			t.Fatalf("recent key %+v forgotten", k)
		}
	}
	if n := f.raw.Int(t, `SELECT count(*) FROM idempotency`); n != int64(len(kept)) {
		t.Fatalf("%d keys left, want %d", n, len(kept))
	}
}

// A sale made Unkept (the fill tool's, lottery.SaleRequest.Unkept) keeps no answer under its key
// and does not look its key up: two such sales under one key both sell, and a request's sale
// under it afterwards sells too, keeping its answer, after which the key is taken. The books
// balance, with no kept answer but that one.
func testUnkeptSales(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "filled", 100_000)
	before := f.raw.Int(t, `SELECT count(*) FROM idempotency`)
	for range 2 {
		r := f.sale(p, "fill-1")
		r.Unkept = true
		if _, err := f.s.Sell(f.ctx, r, f.now); err != nil {
			t.Fatalf("an unkept sale: %v", err)
		}
	}
	if _, found, err := f.s.KeptAnswer(f.ctx, p.ID, "fill-1"); err != nil || found {
		t.Fatalf("an unkept sale's answer: found %v, %v", found, err)
	}
	if n := f.raw.Int(t, `SELECT count(*) FROM idempotency`); n != before {
		t.Fatalf("%d kept answers after unkept sales, %d before", n, before)
	}
	if _, err := f.sell(p, "fill-1"); err != nil {
		t.Fatalf("a request's sale under an unkept sale's key: %v", err)
	}
	if _, err := f.sell(p, "fill-1"); !errors.Is(err, lottery.ErrKeyTaken) {
		t.Fatalf("the key once a request's sale kept its answer: %v, want %v", err, lottery.ErrKeyTaken)
	}
	if c := f.ledgerOK(t); c.Games != 3 {
		t.Fatalf("ledger sees %d games, 3 sold", c.Games)
	}
}
