package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The wallet's outbox:
//
//   - a call is kept once under its transaction id and never changed;
//   - it is claimed when due, by one claimer at a time (a claimed call is not due again until
//     its lease ends);
//   - it is settled as acknowledged, disputed, or due again later;
//   - the calls are counted for the back office.
func testWalletOutbox(t *testing.T, h Harness) {
	f := newFixture(t, h)
	call := func(i int) lottery.WalletCall {
		return lottery.WalletCall{Call: "credit", TransactionID: fmt.Sprintf("c-%d", i), Player: "op-7", RoundID: fmt.Sprint(i), Amount: int64(i),
			Body: fmt.Appendf(nil, `{"transaction_id":"c-%d","amount":%d}`, i, i)}
	}
	var calls []lottery.WalletCall
	for i := range 40 {
		calls = append(calls, call(i))
	}
	if err := f.s.AddWalletCalls(f.ctx, calls, f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddWalletCalls(f.ctx, calls[:1], f.now); err != nil {
		t.Fatalf("the same call kept again: %v", err)
	}
	changed := call(0)
	changed.Body = []byte(`{"transaction_id":"c-0","amount":999}`)
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{changed}, f.now); err == nil {
		t.Fatal("a kept call changed")
	}
	if s, err := f.s.OutboxState(f.ctx, f.now); err != nil || s.Pending != 40 || !s.Oldest.Equal(f.now.Truncate(time.Millisecond)) {
		t.Fatalf("the outbox: %+v %v", s, err)
	}
	// Two claimers at once: each call once.
	seen := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := f.s.ClaimWalletCalls(f.ctx, f.now, time.Minute, 15)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range got {
				seen[c.TransactionID]++
				if c.Attempts != 1 || string(c.Body) != string(call(int(c.Amount)).Body) {
					t.Errorf("a claimed call: %+v", c)
				}
			}
		})
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Fatalf("%d calls claimed, want 40", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s claimed %d times", id, n)
		}
	}
	if got, _ := f.s.ClaimWalletCalls(f.ctx, f.now.Add(59*time.Second), time.Minute, 100); len(got) != 0 {
		t.Fatalf("%d calls claimed again within their lease", len(got))
	}
	got, _ := f.s.ClaimWalletCalls(f.ctx, f.now.Add(time.Minute), time.Minute, 3)
	if len(got) != 3 || got[0].Attempts != 2 {
		t.Fatalf("after the lease: %+v", got)
	}
	later := f.now.Add(2 * time.Minute)
	if err := f.s.SettleWalletCalls(f.ctx, map[string]lottery.CallOutcome{got[0].TransactionID: {Acked: true},
		got[1].TransactionID: {Disputed: true, Error: "409 duplicate_transaction"}, got[2].TransactionID: {Retry: f.now.Add(time.Hour), Error: "503"}}, later); err != nil {
		t.Fatal(err)
	}
	f.s.SettleWalletCalls(f.ctx, map[string]lottery.CallOutcome{got[0].TransactionID: {Retry: f.now.Add(time.Hour), Error: "a late answer"}}, later)
	if s, _ := f.s.OutboxState(f.ctx, f.now); s.Pending != 38 || s.Disputed != 1 {
		t.Fatalf("after settling: %+v", s)
	}
	due, _ := f.s.ClaimWalletCalls(f.ctx, f.now.Add(59*time.Minute), time.Minute, 100)
	for _, c := range due {
		if c.ID == got[0].ID || c.ID == got[1].ID || c.ID == got[2].ID {
			t.Fatalf("a settled call due again: %+v", c)
		}
	}
	if len(due) != 37 {
		t.Fatalf("%d due, want 37", len(due))
	}
}

// A call kept without its body (its body is made from its fields when sent) is the same call
// kept again only with the same fields: another amount, player or round under its id is an
// error, and the first stays. A call kept claimed (its first attempt, due again at the end of
// its lease) is not claimed before that end, then is, as its second attempt; it is settled by
// its transaction id.
func testWalletOutboxWithoutBodies(t *testing.T, h Harness) {
	f := newFixture(t, h)
	credit := lottery.WalletCall{Call: "credit", TransactionID: "credit-s1", Player: "op-7", RoundID: "11", Amount: 500,
		Attempts: 1, NextAt: f.now.Add(time.Minute)}
	rollback := lottery.WalletCall{Call: "rollback", TransactionID: "rollback-s2", Player: "op-7", RoundID: "12", Amount: 200}
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{credit, rollback}, f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{credit, rollback}, f.now); err != nil {
		t.Fatalf("the same calls kept again: %v", err)
	}
	for _, change := range []func(c *lottery.WalletCall){
		func(c *lottery.WalletCall) { c.Amount = 5000 },
		func(c *lottery.WalletCall) { c.Player = "op-8" },
		func(c *lottery.WalletCall) { c.RoundID = "99" },
		func(c *lottery.WalletCall) { c.Body = []byte(`{"transaction_id":"credit-s1"}`) },
	} {
		c := credit
		change(&c)
		if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{rollback, c}, f.now); err == nil {
			t.Errorf("a kept call changed to %+v", c)
		}
	}
	got, err := f.s.ClaimWalletCalls(f.ctx, f.now.Add(59*time.Second), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].TransactionID != "rollback-s2" || len(got[0].Body) != 0 || got[0].Amount != 200 {
		t.Fatalf("within the credit's lease, the calls claimed: %+v %v", got, err)
	}
	got, err = f.s.ClaimWalletCalls(f.ctx, f.now.Add(time.Minute), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].TransactionID != "credit-s1" || got[0].Attempts != 2 || len(got[0].Body) != 0 || got[0].Amount != 500 {
		t.Fatalf("after the credit's lease, the calls claimed: %+v %v", got, err)
	}
	if err := f.s.SettleWalletCalls(f.ctx, map[string]lottery.CallOutcome{"credit-s1": {Acked: true}, "rollback-s2": {Disputed: true, Error: "404"}}, f.now); err != nil {
		t.Fatal(err)
	}
	if st, err := f.s.OutboxState(f.ctx, f.now); err != nil || st.Pending != 0 || st.Disputed != 1 {
		t.Fatalf("after settling: %+v %v", st, err)
	}
	acked, err := f.s.WalletCalls(f.ctx, lottery.CallAcked, 10)
	if err != nil || len(acked) != 1 || acked[0].TransactionID != "credit-s1" || acked[0].Amount != 500 {
		t.Fatalf("acknowledged: %+v %v", acked, err)
	}
}

// The calls to the wallet listed by status for the back office, the longest kept first, up to a
// limit. Each comes with:
//
//   - its player's account here (none for a player the operator never launched);
//   - its round's game (none for a round never sold, as a rollback's);
//   - its attempts and last error.
func testWalletCallsListed(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p, err := f.s.LaunchPlayer(f.ctx, lottery.Launch{WalletPlayer: "op-7", OperatorSession: "s", Nonce: "nonce-of-op-7-0000", TokenHash: []byte("token"),
		Expires: f.now.Add(time.Minute)}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: "r-lost", Player: "op-7", RoundID: "999999",
		Amount: 100, Body: []byte(`{"r":1}`)}}, f.now.Add(-2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "credit", TransactionID: "c-stray", Player: "op-unknown", RoundID: "not-a-number",
		Amount: 0, Body: []byte(`{"c":1}`)}}, f.now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	id, err := f.s.ReserveGameID(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Its rollback held before the debit (as game.walletSale does), deleted by the sale.
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: "r-sold", Player: "op-7", RoundID: fmt.Sprint(id),
		Amount: 100, Body: []byte(`{"r":2}`), Status: lottery.CallHeld}}, f.now); err != nil {
		t.Fatal(err)
	}
	r := f.sale(p, "sold")
	r.GameID = id
	r.Wallet = &lottery.WalletSale{Balance: 5000, Rollback: "r-sold", Credit: creditFunc(func(g *lottery.Game) lottery.WalletCall {
		return lottery.WalletCall{Call: "credit", TransactionID: "c-sold", Player: "op-7", RoundID: fmt.Sprint(g.ID), Amount: g.Prize, Body: []byte(`{"c":2}`)}
	})}
	g, err := f.s.Sell(f.ctx, r, f.now)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		tx           string
		player, game int64
		amount       int64
		attempts     int
		lastError    string
		created      time.Time
	}
	list := func(status string, limit int) []row {
		t.Helper()
		calls, err := f.s.WalletCalls(f.ctx, status, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []row
		for _, c := range calls {
			if c.Status != status {
				t.Fatalf("%s listed as %s: %+v", c.TransactionID, status, c)
			}
			out = append(out, row{c.TransactionID, c.PlayerID, c.GameID, c.Amount, c.Attempts, c.LastError, c.CreatedAt})
		}
		return out
	}
	ms := func(d time.Duration) time.Time { return f.now.Add(d).Truncate(time.Millisecond) }
	want := []row{{"r-lost", p.ID, 0, 100, 0, "", ms(-2 * time.Minute)}, {"c-stray", 0, 0, 0, 0, "", ms(-time.Minute)},
		{"c-sold", p.ID, g.ID, g.Prize, 0, "", ms(0)}}
	if got := list(lottery.CallPending, 10); !slices.Equal(got, want) {
		t.Fatalf("the pending calls:\n got %+v\nwant %+v", got, want)
	}
	if got := list(lottery.CallPending, 2); !slices.Equal(got, want[:2]) {
		t.Fatalf("the two longest pending: %+v", got)
	}
	claimed, err := f.s.ClaimWalletCalls(f.ctx, f.now, time.Minute, 10)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claimed %d calls: %v", len(claimed), err)
	}
	outcomes := map[string]lottery.CallOutcome{}
	for _, c := range claimed {
		switch c.TransactionID {
		case "r-lost":
			outcomes[c.TransactionID] = lottery.CallOutcome{Retry: f.now.Add(time.Hour), Error: "503 Service Unavailable"}
		case "c-stray":
			outcomes[c.TransactionID] = lottery.CallOutcome{Disputed: true, Error: "404 unknown_player"}
		default:
			outcomes[c.TransactionID] = lottery.CallOutcome{Acked: true}
		}
	}
	if err := f.s.SettleWalletCalls(f.ctx, outcomes, f.now); err != nil {
		t.Fatal(err)
	}
	want[0].attempts, want[0].lastError = 1, "503 Service Unavailable"
	want[1].attempts, want[1].lastError = 1, "404 unknown_player"
	want[2].attempts = 1
	for _, c := range []struct {
		status string
		want   []row
	}{{lottery.CallPending, want[:1]}, {lottery.CallDisputed, want[1:2]}, {lottery.CallAcked, want[2:]}, {lottery.CallHeld, nil}} {
		if got := list(c.status, 10); !slices.Equal(got, c.want) {
			t.Errorf("the %s calls:\n got %+v\nwant %+v", c.status, got, c.want)
		}
	}
}

// Game ids reserved ahead of their sales, from many goroutines while others sell. Each id is
// handed out once, the reserved sales get theirs, and no other sale takes one of them.
func testReservedGameIDs(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "rosa", 100_000)
	var mu sync.Mutex
	reserved := map[int64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				id, err := f.s.ReserveGameID(f.ctx)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if reserved[id] {
					t.Errorf("id %d handed out twice", id)
				}
				reserved[id] = true
				mu.Unlock()
			}
		})
	}
	sold := map[int64]bool{}
	for i := range 20 {
		wg.Go(func() {
			g, err := f.sell(p, fmt.Sprint("plain-", i))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sold[g.ID] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	for id := range sold {
		if reserved[id] {
			t.Fatalf("a sale took the reserved id %d", id)
		}
	}
	n := 0
	for id := range reserved {
		if n == 5 {
			break
		}
		n++
		r := f.sale(p, fmt.Sprint("reserved-", id))
		r.GameID = id
		g, err := f.s.Sell(f.ctx, r, f.now)
		if err != nil || g.ID != id {
			t.Fatalf("a sale with the reserved id %d: %+v %v", id, g, err)
		}
		if got, err := f.s.Game(f.ctx, p.ID, id); err != nil || got.ID != id {
			t.Fatalf("the game %d read back: %+v %v", id, got, err)
		}
	}
	f.ledgerOK(t)
}

// A sale in wallet mode:
//
//   - the stake is the wallet's (a player with no money and no limits buys);
//   - the books show it as a deposit from the bank and the prize as a withdrawal to it;
//   - the player's account is left as it was;
//   - the game's credit is kept with it (held for a game not finished);
//   - the rollback held before the debit is no longer owed.
//
// A crash's leftovers are released.
func testWalletSales(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p, err := f.s.CreatePlayer(f.ctx, "wanda", "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	credit := creditFunc(func(g *lottery.Game) lottery.WalletCall {
		c := lottery.WalletCall{Call: "credit", TransactionID: fmt.Sprint("c-", g.ID), Player: "op-1", RoundID: fmt.Sprint(g.ID), Amount: g.Prize,
			Body: fmt.Appendf(nil, `{"transaction_id":"c-%d","amount":%d}`, g.ID, g.Prize)}
		if g.Status != lottery.Finished {
			c.Status = lottery.CallHeld
		}
		return c
	})
	sell := func(key string, manual bool) lottery.Game {
		id, err := f.s.ReserveGameID(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		rb := fmt.Sprint("r-", id)
		if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: rb, Player: "op-1", RoundID: fmt.Sprint(id),
			Amount: 100, Body: []byte(`{}`), Status: lottery.CallHeld}}, f.now); err != nil {
			t.Fatal(err)
		}
		r := f.sale(p, key)
		r.GameID = id
		r.Wallet = &lottery.WalletSale{Balance: 5000, Credit: credit, Rollback: rb}
		if manual {
			r.Mode, r.Color, r.Status = lottery.Manual, -1, lottery.ChooseColor
		}
		g, err := f.s.Sell(f.ctx, r, f.now)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var won bool
	for i := range 12 {
		g := sell(fmt.Sprint("auto-", i), false)
		won = won || g.Prize > 0
		if g.BalanceAfter != 5000+g.Prize {
			t.Fatalf("the balance after a wallet sale: %d", g.BalanceAfter)
		}
	}
	if !won {
		t.Fatal("no winning game: the prize's withdrawal was not tested")
	}
	// The check of a sale's key and its rollback held, in one write: a key answered already gives
	// its answer and keeps nothing; a new key keeps the rollback held.
	if kept, found, err := f.s.HoldRollback(f.ctx, p.ID, "auto-0", lottery.WalletCall{Call: "rollback", TransactionID: "r-again",
		Player: "op-1", RoundID: "1", Amount: 100, Body: []byte(`{}`)}, f.now); err != nil || !found || kept.Status != 201 {
		t.Fatalf("a key answered: %+v %v %v", kept, found, err)
	}
	if _, found, err := f.s.HoldRollback(f.ctx, p.ID, "new-key", lottery.WalletCall{Call: "rollback", TransactionID: "r-new",
		Player: "op-1", RoundID: "1", Amount: 100, Body: []byte(`{}`)}, f.now); err != nil || found {
		t.Fatalf("a new key: %v %v", found, err)
	}
	if err := f.s.DropHeldWalletCalls(f.ctx, []string{"r-new"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 12 {
		t.Fatalf("after the checks of keys: %+v", st)
	}
	manual := sell("manual", true)
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 12 || st.Open != 1 {
		t.Fatalf("the outbox after 12 auto sales and a manual one: %+v (the rollbacks held must be gone, the manual credit held)", st)
	}
	if f.balance(t, p) != 0 {
		t.Fatalf("the player's account holds %d cents", f.balance(t, p))
	}
	if c := f.ledgerOK(t); c.Games != 13 {
		t.Fatalf("ledger: %+v", c)
	}
	// The manual game's credit, released when it finishes.
	if err := f.s.ReleaseWalletCalls(f.ctx, nil, []string{fmt.Sprint(manual.ID)}, f.now); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 13 || st.Open != 0 {
		t.Fatalf("after the manual game's release: %+v", st)
	}
	// A crash between a debit and its sale leaves the rollback held: released once stale.
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: "r-lost", Player: "op-1", RoundID: "999999",
		Amount: 100, Body: []byte(`{}`), Status: lottery.CallHeld}}, f.now); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.ReleaseStaleWalletCalls(f.ctx, f.now, f.now); err != nil || n != 0 {
		t.Fatalf("released before its time: %d %v", n, err)
	}
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 14 {
		t.Fatalf("a rollback held is owed, and counted: %+v", st)
	}
	if n, err := f.s.ReleaseStaleWalletCalls(f.ctx, f.now.Add(time.Minute), f.now); err != nil || n != 1 {
		t.Fatalf("the stale rollback: %d %v", n, err)
	}
	// A sale slower than the sweep: its rollback released (and so its debit being rolled back)
	// before its turn came, it is refused and writes nothing.
	id, err := f.s.ReserveGameID(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: "r-late", Player: "op-1", RoundID: fmt.Sprint(id),
		Amount: 100, Body: []byte(`{}`), Status: lottery.CallHeld}}, f.now); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.ReleaseStaleWalletCalls(f.ctx, f.now.Add(time.Minute), f.now); err != nil || n != 1 {
		t.Fatalf("the late sale's rollback: %d %v", n, err)
	}
	r := f.sale(p, "late")
	r.GameID = id
	r.Wallet = &lottery.WalletSale{Balance: 5000, Credit: credit, Rollback: "r-late"}
	if _, err := f.s.Sell(f.ctx, r, f.now); fault.CodeOf(err) != fault.WalletUnavailable {
		t.Fatalf("a sale whose debit is being rolled back: %v", err)
	}
	if c := f.ledgerOK(t); c.Games != 13 {
		t.Fatalf("the refused sale was written: %+v", c)
	}
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 15 {
		t.Fatalf("the late sale's rollback is still owed: %+v", st)
	}

	// A sale keeps with its game the rollback held ahead of the player's next sale (Next): not
	// owed before its NextAt, nor released by the sweep until stale from then. The next sale
	// deletes it; one that no sale came for is dropped, with others at once.
	held := func() map[string]bool {
		calls, err := f.s.WalletCalls(f.ctx, lottery.CallHeld, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range calls {
			out[c.TransactionID] = true
		}
		return out
	}
	until := f.now.Add(5 * time.Second)
	ahead := func(txid string) (int64, *lottery.WalletCall) {
		id, err := f.s.ReserveGameID(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return id, &lottery.WalletCall{Call: "rollback", TransactionID: txid, Player: "op-1", RoundID: fmt.Sprint(id), Body: []byte(`{"ahead":1}`),
			Status: lottery.CallHeld, NextAt: until}
	}
	sell("ahead-0", false) // its rollback held the usual way, deleted by the sale
	nextID, next := ahead("r-next")
	r = f.sale(p, "ahead-1")
	r.GameID, _ = f.s.ReserveGameID(f.ctx)
	if err := f.s.AddWalletCalls(f.ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: "r-this", Player: "op-1", RoundID: fmt.Sprint(r.GameID),
		Amount: 100, Body: []byte(`{}`), Status: lottery.CallHeld}}, f.now); err != nil {
		t.Fatal(err)
	}
	r.Wallet = &lottery.WalletSale{Balance: 5000, Credit: credit, Rollback: "r-this", Next: next}
	if _, err := f.s.Sell(f.ctx, r, f.now); err != nil {
		t.Fatal(err)
	}
	if h := held(); !h["r-next"] || h["r-this"] {
		t.Fatalf("after a sale holding the next one's rollback ahead, the calls held: %v", h)
	}
	if st, _ := f.s.OutboxState(f.ctx, f.now); st.Pending != 17 { // and the two sales' credits
		t.Fatalf("a rollback held ahead counted as owed before its time: %+v", st)
	}
	if st, _ := f.s.OutboxState(f.ctx, until); st.Pending != 18 {
		t.Fatalf("a rollback held ahead not counted from its time: %+v", st)
	}
	if n, err := f.s.ReleaseStaleWalletCalls(f.ctx, until, f.now); err != nil || n != 0 {
		t.Fatalf("a rollback held ahead released before it was stale from its time: %d %v", n, err)
	}
	_, unused := ahead("r-unused")
	r = f.sale(p, "ahead-2")
	r.GameID = nextID
	r.Wallet = &lottery.WalletSale{Balance: 5000, Credit: credit, Rollback: "r-next", Next: unused}
	if g, err := f.s.Sell(f.ctx, r, f.now); err != nil || g.ID != nextID {
		t.Fatalf("the sale of the round held ahead: %+v %v", g, err)
	}
	if h := held(); h["r-next"] || !h["r-unused"] {
		t.Fatalf("after the sale of the round held ahead, the calls held: %v", h)
	}
	if err := f.s.DropHeldWalletCalls(f.ctx, []string{"r-unused", "r-never-kept"}); err != nil {
		t.Fatal(err)
	}
	if h := held(); h["r-unused"] {
		t.Fatalf("a rollback held ahead of no sale is still held: %v", h)
	}
	if c := f.ledgerOK(t); c.Games != 16 {
		t.Fatalf("ledger: %+v", c)
	}
}

// creditFunc makes a sold game's credit with a function of the test's (lottery.WalletCredit).
type creditFunc func(g *lottery.Game) lottery.WalletCall

func (f creditFunc) CreditOf(g *lottery.Game) lottery.WalletCall { return f(g) }
