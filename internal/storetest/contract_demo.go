package storetest

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// Demo sessions and their games (docs/spec/API.md 1.2) live apart from everything else:
//
//   - a demo sale takes the stake from the session's play money and adds the prize, once per
//     key;
//   - it refuses a session ended, short of play money or at its count of games;
//   - moves are written once from a state;
//   - ending or sweeping a session forgets its games;
//   - no figure of the ledger, the sales or the emissions moves meanwhile.
func testDemo(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "real", 500)
	if _, err := f.sell(p, "real-1"); err != nil {
		t.Fatal(err)
	}
	journaled := journalSize(t, f.s) // demo play journals nothing
	books := func() string {
		c := f.ledgerOK(t)
		totals, err := f.s.SalesTotals(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		open, err := f.s.OpenBlockSales(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var sold []lottery.Game
		if err := f.s.SoldUnits(f.ctx, math.MaxInt64, func(g lottery.Game) error { sold = append(sold, g); return nil }); err != nil {
			t.Fatal(err)
		}
		es, err := f.s.Emissions(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal([]any{c, totals, open, sold, es, f.balance(t, p)})
		return string(raw)
	}
	before := books()

	hash := func(name string) []byte { h := sha256.Sum256([]byte(name)); return h[:] }
	now := f.now
	a := hash("demo-a")
	if err := f.s.CreateDemoSession(f.ctx, lottery.DemoSession{Hash: a, Balance: 250, CreatedAt: now.Unix(), LastSeen: now.Unix()}, 2); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.DemoSession(f.ctx, a)
	if err != nil || got.Balance != 250 || got.Games != 0 || got.CreatedAt != now.Unix() {
		t.Fatalf("a demo session read back: %+v, %v", got, err)
	}
	if _, err := f.s.DemoSession(f.ctx, hash("nobody")); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("an unknown demo session: %v", err)
	}
	// Live: seen in the last 30 minutes, started in the last 4 hours.
	live := lottery.DemoAlive{IdleBefore: now.Add(-30 * time.Minute).Unix(), CreatedBefore: now.Add(-4 * time.Hour).Unix()}
	sale := func(session []byte, key string, stake, prize int64) lottery.DemoSale {
		return lottery.DemoSale{Session: session, Alive: live, Key: key, RequestHash: []byte("body " + key), Stake: stake, Mode: lottery.Manual,
			Prize: prize, Color: -1, Status: lottery.ChooseColor, Line: []byte("line " + key), MaxGames: 3}
	}
	g1, kept, err := f.s.SellDemo(f.ctx, sale(a, "k1", 100, 500), now.Add(time.Minute))
	if err != nil || kept || g1.ID <= 0 || g1.BalanceAfter != 650 || g1.Prize != 500 || g1.Color != -1 || string(g1.Line) != "line k1" {
		t.Fatalf("a demo sale: %+v, %v, %v", g1, kept, err)
	}
	// The same key: the same game, and nothing taken again.
	again, kept, err := f.s.SellDemo(f.ctx, sale(a, "k1", 300, 0), now.Add(2*time.Minute))
	if err != nil || !kept || again.ID != g1.ID || string(again.RequestHash) != "body k1" || again.Stake != 100 {
		t.Fatalf("a demo sale again under its key: %+v, %v, %v", again, kept, err)
	}
	if s, _ := f.s.DemoSession(f.ctx, a); s.Balance != 650 || s.Games != 1 || s.LastSeen != now.Add(time.Minute).Unix() {
		t.Fatalf("the demo session after its sale: %+v", s)
	}
	if _, _, err := f.s.SellDemo(f.ctx, sale(a, "k2", 700, 0), now); !fault.Is(err, fault.InsufficientFunds) {
		t.Fatalf("a stake above the play money: %v", err)
	}
	g2, _, err := f.s.SellDemo(f.ctx, sale(a, "k2", 300, 0), now.Add(3*time.Minute))
	if err != nil || g2.BalanceAfter != 350 {
		t.Fatalf("a second demo sale: %+v, %v", g2, err)
	}
	if _, _, err := f.s.SellDemo(f.ctx, sale(a, "k3", 100, 0), now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.SellDemo(f.ctx, sale(a, "k4", 100, 0), now); !fault.Is(err, fault.TooManyAttempts) {
		t.Fatalf("a sale past the session's games: %v", err)
	}
	// A retry is answered whatever the session can pay now.
	if again, kept, err := f.s.SellDemo(f.ctx, sale(a, "k1", 100, 500), now); err != nil || !kept || again.ID != g1.ID {
		t.Fatalf("a retry once the session is at its games: %+v, %v, %v", again, kept, err)
	}
	if s, _ := f.s.DemoSession(f.ctx, a); s.Balance != 250 || s.Games != 3 {
		t.Fatalf("the demo session after refusals and retries: %+v", s)
	}
	list, err := f.s.DemoGames(f.ctx, a, 10, 0)
	if err != nil || len(list) != 3 || list[0].ID <= list[1].ID || list[2].ID != g1.ID {
		t.Fatalf("the demo session's games: %+v, %v", list, err)
	}
	if page, _ := f.s.DemoGames(f.ctx, a, 1, g2.ID); len(page) != 1 || page[0].ID != g1.ID {
		t.Fatalf("the games before the second: %+v", page)
	}

	// Another session sees none of them, and the full store refuses a third session.
	b := hash("demo-b")
	if err := f.s.CreateDemoSession(f.ctx, lottery.DemoSession{Hash: b, Balance: 100, CreatedAt: now.Unix(), LastSeen: now.Unix()}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.DemoGame(f.ctx, b, g1.ID); !fault.Is(err, fault.NotFound) {
		t.Fatalf("another session's demo game: %v", err)
	}
	if err := f.s.CreateDemoSession(f.ctx, lottery.DemoSession{Hash: hash("demo-c"), Balance: 100, CreatedAt: now.Unix(), LastSeen: now.Unix()}, 2); !errors.Is(err, lottery.ErrDemoFull) {
		t.Fatalf("a session past the bound: %v", err)
	}

	// Moves from one state: one written.
	was := g1.Moves()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = f.s.SaveDemoMoves(f.ctx, lottery.MoveUpdate{GameID: g1.ID, Session: a, Was: was,
				Now: lottery.Moves{Color: i % 6, Status: lottery.Playing}}, live, now.Add(10*time.Minute))
		})
	}
	wg.Wait()
	written := 0
	for _, err := range errs {
		switch {
		case err == nil:
			written++
		case !errors.Is(err, lottery.ErrMoved):
			t.Fatalf("a demo move: %v", err)
		}
	}
	if written != 1 {
		t.Fatalf("%d of 8 demo moves from the same state written, want 1", written)
	}
	moved, err := f.s.DemoGame(f.ctx, a, g1.ID)
	next := moved.Moves()
	next.Clicks = []byte{4, 17}
	if err != nil || moved.Status != lottery.Playing || moved.UpdatedAt != now.Add(10*time.Minute).Unix() {
		t.Fatalf("the demo game after its move: %+v, %v", moved, err)
	}
	if err := f.s.SaveDemoMoves(f.ctx, lottery.MoveUpdate{GameID: g1.ID, Session: a, Was: moved.Moves(), Now: next}, live, now.Add(11*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if g, _ := f.s.DemoGame(f.ctx, a, g1.ID); string(g.Clicks) != "\x04\x11" {
		t.Fatalf("clicks read back %v", g.Clicks)
	}
	if err := f.s.SaveDemoMoves(f.ctx, lottery.MoveUpdate{GameID: g1.ID, Session: b, Was: next, Now: was}, live, now); !fault.Is(err, fault.NotLoggedIn) && !errors.Is(err, lottery.ErrMoved) {
		t.Fatalf("a move of a game from another session: %v", err)
	}
	// A session idle, or too old, is refused by the write itself.
	for _, alive := range []lottery.DemoAlive{{IdleBefore: now.Add(12 * time.Minute).Unix()}, {CreatedBefore: now.Add(time.Second).Unix()}} {
		if _, _, err := f.s.SellDemo(f.ctx, lottery.DemoSale{Session: b, Alive: alive, Key: "late", Stake: 100, Mode: lottery.Auto,
			Status: lottery.Finished, Color: 1, Line: []byte("x"), MaxGames: 3}, now.Add(13*time.Minute)); !fault.Is(err, fault.NotLoggedIn) {
			t.Fatalf("a sale to a demo session ended (%+v): %v", alive, err)
		}
		if err := f.s.SaveDemoMoves(f.ctx, lottery.MoveUpdate{GameID: g1.ID, Session: a, Was: next, Now: was}, alive, now.Add(13*time.Minute)); !fault.Is(err, fault.NotLoggedIn) {
			t.Fatalf("a move in a demo session ended (%+v): %v", alive, err)
		}
	}
	if g, _ := f.s.DemoGame(f.ctx, a, g1.ID); string(g.Clicks) != "\x04\x11" {
		t.Fatalf("a refused move changed the game: %v", g.Clicks)
	}
	if after := books(); after != before {
		t.Fatalf("demo play changed the books:\nbefore %s\nafter  %s", before, after)
	}

	// Ending a session forgets its games; the sweep forgets the sessions idle or too old.
	if err := f.s.EndDemoSession(f.ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.DemoSession(f.ctx, a); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("an ended demo session: %v", err)
	}
	if _, err := f.s.DemoGame(f.ctx, a, g1.ID); !fault.Is(err, fault.NotFound) {
		t.Fatalf("a game of an ended demo session: %v", err)
	}
	if _, _, err := f.s.SellDemo(f.ctx, sale(a, "k9", 100, 0), now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a sale to an ended demo session: %v", err)
	}
	if err := f.s.SaveDemoMoves(f.ctx, lottery.MoveUpdate{GameID: g1.ID, Session: a, Was: next, Now: was}, live, now); !fault.Is(err, fault.NotLoggedIn) {
		t.Fatalf("a move in an ended demo session: %v", err)
	}
	if f.raw.Int(t, `SELECT count(*) FROM demo_games`) != 0 {
		t.Fatal("the games of an ended demo session are still stored")
	}
	for i, s := range []struct {
		created, lastSeen time.Duration // before now
	}{{time.Minute, time.Minute}, {2 * time.Hour, 31 * time.Minute}, {5 * time.Hour, time.Minute}} {
		h := hash(string(rune('x' + i)))
		if err := f.s.CreateDemoSession(f.ctx, lottery.DemoSession{Hash: h, Balance: 500, CreatedAt: now.Add(-s.created).Unix(),
			LastSeen: now.Add(-s.lastSeen).Unix()}, 10); err != nil {
			t.Fatal(err)
		}
		old := sale(h, "k", 100, 0)
		old.Alive = lottery.DemoAlive{} // sold when it was live
		if _, _, err := f.s.SellDemo(f.ctx, old, now.Add(-s.lastSeen)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := f.s.ForgetDemoSessions(f.ctx, now.Add(-30*time.Minute), now.Add(-4*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("the sweep forgot %d demo sessions (%v), want 2", n, err)
	}
	if _, err := f.s.DemoSession(f.ctx, hash("x")); err != nil {
		t.Fatalf("the live demo session was swept: %v", err)
	}
	if got := f.raw.Int(t, `SELECT count(*) FROM demo_games`); got != 1 {
		t.Fatalf("%d demo games left after the sweep, want the live session's 1", got)
	}
	if after := books(); after != before {
		t.Fatalf("demo play changed the books:\nbefore %s\nafter  %s", before, after)
	}
	if n := journalSize(t, f.s); n != journaled {
		t.Fatalf("demo play appended %d entries to the journal", n-journaled)
	}
}
