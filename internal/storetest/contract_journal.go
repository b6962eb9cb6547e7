package storetest

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/audit"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The journal (docs/spec/API.md 1.2): every write that records an event appends its entries in
// its own transaction, with seqs dense from 0 in the order of the commits, on every server; the
// tree's hashes and its checkpoints are written through journal.Store, each once.

// entry is the bytes journal.Encode makes of an event at a seq and a time, under the test key.
func entry(seq int64, at time.Time, ev journal.Event) []byte {
	return journal.Encode(uint64(seq), at, ev, AccountKey)
}

// leaf is the leaf hash of a unit's audit line, as a sale's entry names it.
func (f *fixture) leaf(t testing.TB, g lottery.Game) [32]byte {
	t.Helper()
	rec, err := f.reader.Unit(f.ctx, g.Block, g.Unit)
	if err != nil {
		t.Fatal(err)
	}
	return audit.LeafHash(audit.AppendLine(nil, &rec))
}

// saleEntries are the entries a game sold from the fixture's emission appends at seq, the sale
// and its prize, as the test rebuilds them from the game.
func (f *fixture) saleEntries(t testing.TB, seq int64, p lottery.Player, g lottery.Game) [][]byte {
	t.Helper()
	out := [][]byte{entry(seq, g.CreatedAt, journal.Sale{Game: g.ID, AccountID: p.AccountID, Stake: g.Stake, Prize: g.Prize,
		Emission: g.Emission, Block: g.Block, Index: g.Unit, Unit: f.leaf(t, g), Mode: g.Mode, Transfer: g.StakeTransfer})}
	if g.Prize > 0 {
		out = append(out, entry(seq+1, g.CreatedAt, journal.Prize{AccountID: p.AccountID, Game: g.ID, Amount: g.Prize, Transfer: g.StakeTransfer + 1}))
	}
	Sequence(t, f.s)
	if s, ok, err := f.s.SaleEntry(f.ctx, g.ID); err != nil || !ok || s != seq {
		t.Errorf("the sale entry of game %d: %d, %v, %v; want %d", g.ID, s, ok, err, seq)
	}
	return out
}

// lastTransfer is the id of the latest transfer.
func (f *fixture) lastTransfer(t testing.TB) int64 {
	return f.raw.Int(t, `SELECT max(id) FROM transfers`)
}

// Each write that records an event appends exactly its entries, with the bytes journal.Encode
// makes of what the test did: an emission created, limits set and raised, a deposit, sales in a
// batch (their prizes), a withdrawal, a self-exclusion and a closure with their payouts, an
// import of the register that closes an account, the operators' log, a sale in wallet mode. A
// sign-up and a closure of a closed account append nothing.
func testJournalWritePaths(t *testing.T, h Harness) {
	f := newFixture(t, h)
	ctx := f.ctx
	e, err := f.s.Emission(ctx, "S")
	if err != nil {
		t.Fatal(err)
	}
	roots := []string{hex.EncodeToString(e.Blocks[0].Root[:]), hex.EncodeToString(e.Blocks[1].Root[:])}
	sameEntries(t, "an emission created", journalSince(t, f.s, 0), [][]byte{entry(0, e.CreatedAt,
		journal.Emission{ID: "S", Event: "created", Price: 100, Definition: gamedeftest.Mini(t).Version, Roots: roots, Operator: lottery.ByCommandLine})})
	n := int64(1)
	step := func(what string, want ...[]byte) {
		t.Helper()
		sameEntries(t, what, journalSince(t, f.s, n), want)
		n += int64(len(want))
	}

	p, err := f.s.CreatePlayer(ctx, "jules", "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	step("a sign-up")
	f.limits(t, p, 500_00, 100_00)
	step("limits set", entry(n, f.now, journal.Limits{AccountID: p.AccountID, Limit: "deposit", New: 500_00, Effective: f.now, By: "player"}),
		entry(n+1, f.now, journal.Limits{AccountID: p.AccountID, Limit: "stake", New: 100_00, Effective: f.now, By: "player"}))
	raise, was := int64(600_00), int64(500_00)
	if _, err := f.s.SetLimits(ctx, p.ID, lottery.LimitsChange{Deposit: &raise}, "olga", f.now); err != nil {
		t.Fatal(err)
	}
	step("a limit raised by an operator", entry(n, f.now, journal.Limits{AccountID: p.AccountID, Limit: "deposit", Old: &was, New: raise,
		Effective: f.now.Add(lottery.RaiseDelay), By: "olga"}))
	f.pay(t, p, lottery.Deposit, 100_00, "dep")
	step("a deposit", entry(n, f.now, journal.Payment{AccountID: p.AccountID, Amount: 100_00, Transfer: f.lastTransfer(t)}))

	// Sales in one batch, until one wins: each its sale entry, and its prize's when it wins, in
	// the order of their transfers.
	var games []lottery.Game
	for len(games) < 40 && !slices.ContainsFunc(games, func(g lottery.Game) bool { return g.Prize > 0 }) {
		release := Hold(t, f.s)
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range 8 {
			key := fmt.Sprint("sale-", len(games), "-", i)
			wg.Go(func() {
				g, err := f.sell(p, key)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				games = append(games, g)
				mu.Unlock()
			})
		}
		time.Sleep(50 * time.Millisecond) // the sales queued behind the hold
		release()
		wg.Wait()
	}
	slices.SortFunc(games, func(a, b lottery.Game) int { return int(a.StakeTransfer - b.StakeTransfer) })
	// On PostgreSQL the entries are queued with the sales, and appended by the sequencer; SQLite's
	// writer seals them itself.
	if s, ok, err := f.s.SaleEntry(f.ctx, games[0].ID); err != nil || ok != (f.raw.Rebind == nil) {
		t.Errorf("the sale entry of game %d, before the sequencer ran: %d, %v, %v; want it only on SQLite", games[0].ID, s, ok, err)
	}
	if n := journalSince(t, f.s, n); len(n) == 0 {
		t.Error("the sequencer appended no entry of the sales")
	}
	var want [][]byte
	for _, g := range games {
		want = append(want, f.saleEntries(t, n+int64(len(want)), p, g)...)
	}
	step("sales in a batch", want...)
	f.pay(t, p, lottery.Withdrawal, 1_00, "wd")
	step("a withdrawal", entry(n, f.now, journal.Payment{Withdrawal: true, AccountID: p.AccountID, Amount: 1_00, Transfer: f.lastTransfer(t)}))

	// A self-exclusion and a closure pay the balance out, in the same write.
	until := f.now.Add(30 * 24 * time.Hour)
	end, paid, err := f.s.ExcludePlayer(ctx, p.ID, nil, until, f.now)
	if err != nil || paid != f.raw.Int(t, `SELECT amount FROM transfers WHERE id = ?`, f.lastTransfer(t)) {
		t.Fatalf("exclusion: paid %d, %v", paid, err)
	}
	step("a self-exclusion", entry(n, f.now, journal.Payment{Withdrawal: true, AccountID: p.AccountID, Amount: paid, Transfer: f.lastTransfer(t),
		Reason: lottery.PaidAtExclusion}), entry(n+1, f.now, journal.Exclusion{AccountID: p.AccountID, Until: end, Paid: paid}))
	q := f.player(t, "quentin", 7_00)
	n += 3 // its limits and its deposit
	if paid, err := f.s.ClosePlayer(ctx, q.ID, nil, f.now); err != nil || paid != 7_00 {
		t.Fatalf("closure: paid %d, %v", paid, err)
	}
	step("a closure", entry(n, f.now, journal.Payment{Withdrawal: true, AccountID: q.AccountID, Amount: 7_00, Transfer: f.lastTransfer(t),
		Reason: lottery.PaidAtClosure}), entry(n+1, f.now, journal.Closure{AccountID: q.AccountID, Paid: 7_00, By: lottery.ClosedByPlayer}))
	if _, err := f.s.ClosePlayer(ctx, q.ID, nil, f.now); err != nil {
		t.Fatal(err)
	}
	step("a closure of a closed account")

	// An import of the register closes a listed person's account.
	who, err := identity.ParsePerson("Lefèvre", "Hélène", "1985-07-14", f.now)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.s.CreatePlayer(ctx, "helene", "x", &who, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.limits(t, r, lottery.MaxLimit, lottery.MaxLimit)
	f.pay(t, r, lottery.Deposit, 12_34, "")
	n += 3
	imp, err := f.s.ImportRegister(ctx, []identity.Person{who}, lottery.RegisterImport{At: f.now, By: "olga", Source: "register.csv"})
	if err != nil {
		t.Fatal(err)
	}
	step("an import of the register", entry(n, f.now, journal.Payment{Withdrawal: true, AccountID: r.AccountID, Amount: 12_34,
		Transfer: f.lastTransfer(t), Reason: lottery.PaidAtRegister}),
		entry(n+1, f.now, journal.Closure{AccountID: r.AccountID, Paid: 12_34, By: lottery.ClosedByRegister}),
		entry(n+2, f.now, journal.RegisterImport{Import: imp.ID, Operator: "olga", Listed: 1, Added: 1, Closed: 1}))

	// The operators' log, never the address.
	olga, err := f.s.CreateOperator(ctx, "olga", "x", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", Detail: `{"by":"command line"}`,
		Remote: "192.0.2.1", CreatedAt: f.now})
	if err != nil {
		t.Fatal(err)
	}
	step("an operator created", entry(n, f.now, journal.Operator{Operator: "olga", Action: "operator_created", Detail: `{"by":"command line"}`}))
	if err := f.s.LogOperatorAction(ctx, lottery.OperatorAction{OperatorID: olga.ID, Name: "olga", Action: "login_failed", Remote: "192.0.2.1", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	step("a line of the operators' log", entry(n, f.now, journal.Operator{Operator: "olga", Action: "login_failed"}))
	// A failed login under a name no operator has: what was typed (a password, perhaps) stays
	// in the private log.
	if err := f.s.LogOperatorAction(ctx, lottery.OperatorAction{Name: "hunter2", Action: "login_failed", Remote: "192.0.2.1", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	step("a failed login under an unknown name")

	// Sales in wallet mode: the debit's deposit, the sale, its prize and the prize's withdrawal.
	w, err := f.s.CreatePlayer(ctx, "wanda", "x", nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	credit := creditFunc(func(g *lottery.Game) lottery.WalletCall {
		return lottery.WalletCall{Call: "credit", TransactionID: fmt.Sprint("c-", g.ID), Player: "op-1", RoundID: fmt.Sprint(g.ID), Amount: g.Prize, Body: []byte(`{}`)}
	})
	for won := false; !won; {
		id, err := f.s.ReserveGameID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rb := fmt.Sprint("r-", id)
		if err := f.s.AddWalletCalls(ctx, []lottery.WalletCall{{Call: "rollback", TransactionID: rb, Player: "op-1", RoundID: fmt.Sprint(id),
			Amount: 100, Body: []byte(`{}`), Status: lottery.CallHeld}}, f.now); err != nil {
			t.Fatal(err)
		}
		s := f.sale(w, rb)
		s.GameID, s.Wallet = id, &lottery.WalletSale{Balance: 5000, Credit: credit, Rollback: rb}
		g, err := f.s.Sell(ctx, s, f.now)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]byte{entry(n, g.CreatedAt, journal.Payment{AccountID: w.AccountID, Amount: 100, Transfer: f.raw.Int(t,
			`SELECT max(id) FROM transfers WHERE kind = 'deposit' AND to_account = ?`, w.AccountID)})}
		want = append(want, f.saleEntries(t, n+1, w, g)...)
		if won = g.Prize > 0; won {
			want = append(want, entry(n+3, g.CreatedAt, journal.Payment{Withdrawal: true, AccountID: w.AccountID, Amount: g.Prize,
				Transfer: f.raw.Int(t, `SELECT max(id) FROM transfers WHERE kind = 'withdrawal' AND from_account = ?`, w.AccountID)}))
		}
		step("a sale in wallet mode", want...)
	}
	if got := CheckJournal(t, f.s, AccountKey); int64(got) != n {
		t.Fatalf("the journal holds %d entries, the test made %d", got, n)
	}
}

// A write that fails appends nothing, and takes no seq: the next entry has the next seq. Each of
// these fails: a withdrawal of too much, a deposit past the limit, a sale under a key taken, a
// sale from an ended session, a limit out of bounds, an operator's name taken, an exclusion
// from an ended session, an emission of an id taken. On SQLite they fail in a batch beside
// writes that succeed (a savepoint each).
func testJournalFailedWrites(t *testing.T, h Harness) {
	f := newFixture(t, h)
	p := f.player(t, "fay", 10_00)
	if _, err := f.sell(p, "sold"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.CreateOperator(f.ctx, "olga", "x", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	ended := f.sale(p, "ended")
	ended.Session = []byte("no such session")
	huge := int64(lottery.MaxLimit + 1)
	failures := map[string]func() error{
		"a withdrawal of too much": func() error { _, err := f.tryPay(p, lottery.Withdrawal, 1_000_00, "too-much", f.now); return err },
		"a deposit past the limit": func() error {
			f.limits(t, p, 20_00, lottery.MaxLimit)
			_, err := f.tryPay(p, lottery.Deposit, 30_00, "past", f.now)
			return err
		},
		"a sale under a key taken":     func() error { _, err := f.sell(p, "sold"); return err },
		"a sale from an ended session": func() error { _, err := f.s.Sell(f.ctx, ended, f.now); return err },
		"a limit out of bounds": func() error {
			_, err := f.s.SetLimits(f.ctx, p.ID, lottery.LimitsChange{Stake: &huge}, "player", f.now)
			return err
		},
		"an operator's name taken": func() error {
			_, err := f.s.CreateOperator(f.ctx, "OLGA", "x", lottery.AllRoles, lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now})
			return err
		},
		"an exclusion from an ended session": func() error {
			_, _, err := f.s.ExcludePlayer(f.ctx, p.ID, []byte("no such session"), f.now.Add(time.Hour), f.now)
			return err
		},
		"an emission of an id taken": func() error {
			e := &emission.Emission{ID: "S", Price: 100, Definition: "x", CreatedAt: f.now}
			return f.s.CreateEmission(f.ctx, e, [32]byte{}, lottery.ByCommandLine, func(func(emission.Page) error) ([]emission.Block, error) { return nil, nil })
		},
	}
	for what, fail := range failures {
		before := journalSize(t, f.s)
		limits := f.raw.Int(t, `SELECT count(*) FROM limit_changes`)
		if err := fail(); err == nil {
			t.Fatalf("%s: no error", what)
		}
		after := journalSize(t, f.s)
		if what == "a deposit past the limit" {
			before += f.raw.Int(t, `SELECT count(*) FROM limit_changes`) - limits // the limit set first
		}
		if after != before {
			t.Errorf("%s appended %d entries", what, after-before)
		}
	}

	// In one batch of the SQLite writer: a failing withdrawal between two deposits, and a sale
	// under a key taken among sales. The seqs go on without a gap.
	release := Hold(t, f.s)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	wg.Go(func() { _, errs[0] = f.tryPay(p, lottery.Deposit, 1_00, "d1", f.now) })
	wg.Go(func() { _, errs[1] = f.tryPay(p, lottery.Withdrawal, 1_000_00, "w1", f.now) })
	wg.Go(func() { _, errs[2] = f.tryPay(p, lottery.Deposit, 2_00, "d2", f.now) })
	wg.Go(func() { _, errs[3] = f.sell(p, "sold") })
	wg.Go(func() { _, errs[4] = f.sell(p, "new-1") })
	wg.Go(func() { _, errs[5] = f.sell(p, "new-2") })
	time.Sleep(50 * time.Millisecond)
	release()
	wg.Wait()
	for i, failed := range []bool{false, true, false, true, false, false} {
		if (errs[i] != nil) != failed {
			t.Errorf("write %d of the batch: %v", i, errs[i])
		}
	}
	CheckJournal(t, f.s, AccountKey)
}

// Writes made one after the other on every server take seqs in that order; writes made at once
// take dense seqs, each entry once.
func testJournalDense(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	p := f.player(t, "dense", 1_000_00)
	last := journalSize(t, f.s) - 1
	for i := range 10 {
		s := servers[i%2]
		if _, err := s.Pay(f.ctx, lottery.Payment{PlayerID: p.ID, AccountID: p.AccountID, Kind: lottery.Deposit, Amount: 1}, f.now); err != nil {
			t.Fatal(err)
		}
		seq := journalSize(t, f.s) - 1
		if seq != last+1 {
			t.Fatalf("deposit %d on server %d took seq %d, after %d", i, i%2, seq, last)
		}
		last = seq
	}
	var wg sync.WaitGroup
	for i := range 8 {
		q := f.player(t, fmt.Sprint("at-once-", i), 50_00)
		s := servers[i%2]
		wg.Go(func() {
			for j := range 10 {
				var err error
				if j%3 == 2 {
					_, err = s.Pay(f.ctx, lottery.Payment{PlayerID: q.ID, AccountID: q.AccountID, Kind: lottery.Deposit, Amount: 1_00}, f.now)
				} else {
					_, err = s.Sell(f.ctx, f.sale(q, fmt.Sprint("k", j)), f.now)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	CheckJournal(t, f.s, AccountKey)
}

// Sales at once on three servers (PostgreSQL; one store three times elsewhere) until the fixture's
// emission sells out: one journal, its seqs dense, every game's sale entry in it once, as its row
// says (journal.game), the bytes rebuilt from the game's row.
func testJournalServers(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 3)
	f := fixtureOn(t, servers[0], raw)
	var wg sync.WaitGroup
	for i := range 24 {
		p := f.player(t, fmt.Sprint("seller-", i), 1_000_00)
		s := servers[i%3]
		wg.Go(func() {
			for n := 0; ; n++ {
				_, err := s.Sell(f.ctx, f.sale(p, fmt.Sprint("k", n)), f.now)
				if fault.Is(err, fault.SoldOut) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if games := raw.Int(t, `SELECT count(*) FROM games`); games != 2000 {
		t.Fatalf("%d games sold, want the emission's 2,000", games)
	}
	entries := CheckJournal(t, f.s, AccountKey)
	t.Logf("%d entries for 2,000 sales on %d servers", entries, len(servers))
}

// treeReader reads the tree's stored hashes through a store's tiles.
func treeReader(s journal.Store) tlog.HashReader {
	return journal.TileHashes(func(tiles []tlog.Tile) ([][]byte, error) { return s.JournalTiles(context.Background(), tiles) })
}

// storedTiles are the tiles that entries from to to-1 complete or extend, the older hashes read
// from the store's tiles: what journal.Log writes with AddJournalTiles.
func storedTiles(t testing.TB, s journal.Store, from, to int64) ([]tlog.Tile, [][]byte) {
	t.Helper()
	entries, err := s.JournalEntries(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	first := tlog.StoredHashIndex(0, from)
	var made []tlog.Hash
	read := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, id := range indexes {
			if id >= first {
				out[i] = made[id-first]
				continue
			}
			hs, err := treeReader(s).ReadHashes([]int64{id})
			if err != nil {
				return nil, err
			}
			out[i] = hs[0]
		}
		return out, nil
	})
	for i, e := range entries {
		hs, err := tlog.StoredHashes(from+int64(i), e, read)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, hs...)
	}
	tiles := tlog.NewTiles(journal.TileHeight, from, to)
	data := make([][]byte, len(tiles))
	for i, tile := range tiles {
		if data[i], err = tlog.ReadTileData(tile, read); err != nil {
			t.Fatal(err)
		}
	}
	return tiles, data
}

// The tree's tiles are written once: of writers racing to add the same entries' tiles, on
// every server, one does and the others get journal.ErrRaced, writing nothing. The tiles read
// back are the winner's, and give the tree's root. Tiles that are not the entries', a tile
// short of its hashes, tiles of entries not appended, and a tile changed other than extended
// are refused.
func testJournalTilesRace(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 3)
	f := fixtureOn(t, servers[0], raw)
	p := f.player(t, "hashes", 1_000_00)
	ctx := f.ctx
	const rounds, racers = 20, 6
	from := int64(0)
	for round := range rounds {
		// Rounds of 3 and of 100 sales: some fill a tile, most extend a partial one.
		for i := range 3 + 97*(round%4/3) {
			if _, err := f.sell(p, fmt.Sprint("r", round, "-", i)); err != nil {
				t.Fatal(err)
			}
		}
		to := journalSize(t, f.s)
		tiles, data := storedTiles(t, f.s, from, to)
		if round == 0 {
			if err := f.s.AddJournalTiles(ctx, from, to, tiles[1:], data[1:]); err == nil || errors.Is(err, journal.ErrRaced) {
				t.Fatalf("too few tiles: %v", err)
			}
			short := slices.Clone(data)
			short[0] = short[0][1:]
			if err := f.s.AddJournalTiles(ctx, from, to, tiles, short); err == nil || errors.Is(err, journal.ErrRaced) {
				t.Fatalf("a tile short of a byte: %v", err)
			}
			beyond, beyondData := storedTiles(t, f.s, from, to)
			beyond[0].W++
			beyondData[0] = append(beyondData[0], make([]byte, tlog.HashSize)...)
			if err := f.s.AddJournalTiles(ctx, 0, to+1, beyond, beyondData); err == nil || errors.Is(err, journal.ErrRaced) {
				t.Fatalf("the tiles of an entry not appended: %v", err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			wg.Go(func() { errs[i] = servers[i%len(servers)].AddJournalTiles(ctx, from, to, tiles, data) })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, journal.ErrRaced):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		st, err := f.s.JournalState(ctx)
		if err != nil || won != 1 || st.Hashed != to {
			t.Fatalf("round %d: %d writers of the tiles won, the state is %+v (%v); want 1, and %d hashed", round, won, st, err, to)
		}
		from = to
	}
	if n, want := raw.Int(t, `SELECT count(*) FROM journal_tiles`), int64(len(tlog.NewTiles(journal.TileHeight, 0, from))); n != want {
		t.Fatalf("%d tiles stored for %d entries, want %d", n, from, want)
	}
	entries, err := f.s.JournalEntries(ctx, 0, from)
	if err != nil {
		t.Fatal(err)
	}
	leaves := make([]audit.Hash, len(entries))
	for i, e := range entries {
		leaves[i] = journal.Leaf(e)
	}
	root, err := tlog.TreeHash(from, treeReader(f.s))
	if err != nil || root != audit.Root(leaves) {
		t.Fatalf("the root from the stored tiles: %x (%v), want the entries' %x", root, err, audit.Root(leaves))
	}
	// The store's trigger: a tile is extended, never changed, never shortened, never deleted.
	for _, bad := range []string{
		`UPDATE journal_tiles SET hashes = $1 WHERE level = 0 AND n = 0`,
		`UPDATE journal_tiles SET n = 99 WHERE level = 0 AND n = 0`,
		`DELETE FROM journal_tiles WHERE level = 0 AND n = 0`,
	} {
		var arg []any
		if strings.Contains(bad, "$1") {
			arg = append(arg, make([]byte, 2*256*tlog.HashSize))
		}
		if err := raw.Exec(bad, arg...); err == nil {
			t.Errorf("%s: not refused", bad)
		}
	}
}

// The first checkpoint sets the journal's verifier key, once, whichever server signs it: of
// writers racing with checkpoints of two keys, those of one key are kept and those of the other
// fail with journal.ErrOtherKey, writing nothing. A checkpoint of a size kept is left as it is;
// one of more entries than the tree holds is refused; the latest is the largest.
func testJournalCheckpointRace(t *testing.T, h Harness) {
	ctx := context.Background()
	const rounds, racers = 5, 8
	for round := range rounds {
		servers, raw := h.servers(t, 2)
		f := fixtureOn(t, servers[0], raw)
		f.player(t, "checkpoints", 10_00)
		size := journalSize(t, f.s)
		tiles, data := storedTiles(t, f.s, 0, size)
		if err := f.s.AddJournalTiles(ctx, 0, size, tiles, data); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := f.s.LatestCheckpoint(ctx); ok || err != nil {
			t.Fatalf("a checkpoint before any: %v %v", ok, err)
		}
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			key := fmt.Sprint("key-", i%2)
			c := journal.Checkpoint{Size: 1 + int64(i/2)%size, Note: fmt.Appendf(nil, "%s signs %d\n", key, i), SignedAt: f.now.Add(time.Duration(i) * time.Second)}
			wg.Go(func() { errs[i] = servers[i%2].AddCheckpoint(ctx, c, key) })
		}
		wg.Wait()
		st, err := f.s.JournalState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, err := range errs {
			mine := fmt.Sprint("key-", i%2) == st.Verifier
			if (err == nil) != mine || (err != nil && !errors.Is(err, journal.ErrOtherKey)) {
				t.Fatalf("round %d: checkpoint %d of key-%d, the journal's key being %q: %v", round, i, i%2, st.Verifier, err)
			}
		}
		notes := raw.Int(t, `SELECT count(*) FROM journal_checkpoints WHERE note NOT LIKE ?`, st.Verifier+" %")
		if notes != 0 || st.Verifier == "" {
			t.Fatalf("round %d: %d checkpoints of the other key kept (the journal's: %q)", round, notes, st.Verifier)
		}
		if round > 0 {
			continue
		}
		latest, ok, err := f.s.LatestCheckpoint(ctx)
		if err != nil || !ok || latest.Size != raw.Int(t, `SELECT max(size) FROM journal_checkpoints`) {
			t.Fatalf("the latest checkpoint: %+v %v %v", latest, ok, err)
		}
		again := journal.Checkpoint{Size: latest.Size, Note: []byte("another note"), SignedAt: f.now}
		if err := f.s.AddCheckpoint(ctx, again, st.Verifier); err != nil {
			t.Fatal(err)
		}
		if kept, _, _ := f.s.LatestCheckpoint(ctx); string(kept.Note) != string(latest.Note) || !kept.SignedAt.Equal(latest.SignedAt) {
			t.Fatalf("a checkpoint of a size kept replaced it: %+v, was %+v", kept, latest)
		}
		if err := f.s.AddCheckpoint(ctx, journal.Checkpoint{Size: size + 1, Note: []byte("x"), SignedAt: f.now}, st.Verifier); err == nil {
			t.Fatal("a checkpoint of more entries than the tree holds was kept")
		}
	}
}

// journal.Log over the store, on every server at once: the tree integrated and checkpoints signed
// while sales go on, each checkpoint the tree of the journal's first entries, a game's sale
// proved in the latest, and the whole journal, exported, verified against every checkpoint kept
// (journal.Verify).
func testJournalLog(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 2)
	f := fixtureOn(t, servers[0], raw)
	key, err := journal.CreateKey(filepath.Join(t.TempDir(), "journal.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	logs := []*journal.Log{journal.NewLog(servers[0], key), journal.NewLog(servers[1], key)}
	var games []lottery.Game
	var signed []journal.Signed
	for round := range 4 {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 8 {
			p := f.player(t, fmt.Sprint("logged-", round, "-", i), 10_00)
			s := servers[i%2]
			wg.Go(func() {
				for n := range 5 {
					g, err := s.Sell(f.ctx, f.sale(p, fmt.Sprint("k", n)), f.now)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					games = append(games, g)
					mu.Unlock()
				}
			})
		}
		// The Logs of both servers step while the sales go on, each round a second later.
		at := f.now.Add(time.Duration(round+1) * journal.SignEvery)
		for _, l := range logs {
			wg.Go(func() {
				if err := l.Step(f.ctx, at); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		c, err := logs[0].Checkpoint(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, journal.Signed{Name: fmt.Sprint("checkpoint ", round), Note: c.Note})
	}
	// The last sales integrated and signed.
	if err := logs[1].Step(f.ctx, f.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c, err := logs[1].Checkpoint(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size != journalSize(t, f.s) {
		t.Fatalf("the latest checkpoint signs %d entries, the journal holds %d", c.Size, journalSize(t, f.s))
	}
	signed = append(signed, journal.Signed{Name: "the latest", Note: c.Note})
	g := games[len(games)/2]
	proof, ok, err := logs[0].GameProof(f.ctx, g.ID)
	if err != nil || !ok {
		t.Fatalf("the proof of game %d: %v, %v", g.ID, ok, err)
	}
	if seq, _, _ := f.s.SaleEntry(f.ctx, g.ID); proof.Index != seq || string(proof.Checkpoint) != string(c.Note) {
		t.Fatalf("the proof of game %d: entry %d in %q; want its sale entry %d in the latest checkpoint", g.ID, proof.Index, proof.Checkpoint, seq)
	}
	entries, err := f.s.JournalEntries(f.ctx, 0, c.Size)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := journal.Verify(f.ctx, bytes.NewReader(append(bytes.Join(entries, []byte("\n")), '\n')), key.VerifierKey, signed, nil)
	if err != nil || !rep.OK() || rep.Checkpoints != len(signed) || rep.Size != c.Size {
		t.Fatalf("the journal exported and verified: %+v, %v", rep, err)
	}
	CheckJournal(t, f.s, AccountKey)
}

// A row queued before migration 0029, one entry in its columns, is appended as the rows of a
// write's entries are, in the order of the queue.
func testJournalQueuedBefore(t *testing.T, h Harness) {
	servers, raw := h.servers(t, 1)
	f := fixtureOn(t, servers[0], raw)
	at := f.now.UTC()
	op := journal.Operator{Operator: "alice", Action: "note", Detail: "queued before 0029"}
	before := journalSize(t, f.s)
	if err := raw.Exec(`INSERT INTO journal_queue (kind, account, pending) VALUES ($1, 0, $2)`, op.Kind(), journal.Pending(at, op)); err != nil {
		t.Fatal(err)
	}
	if n, err := f.s.Sequence(f.ctx); err != nil || n != 1 {
		t.Fatalf("sequenced %d (%v), want the one row queued before", n, err)
	}
	entries, err := f.s.JournalEntries(f.ctx, before, before+1)
	if err != nil {
		t.Fatal(err)
	}
	if want := journal.Encode(uint64(before), at, op, AccountKey); string(entries[0]) != string(want) {
		t.Fatalf("appended %s, want %s", entries[0], want)
	}
	if n := raw.Int(t, `SELECT count(*) FROM journal_queue`); n != 0 {
		t.Fatalf("%d rows queued still", n)
	}
}
