package storetest

import (
	"fmt"
	"strings"
	"testing"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// The comparison of the journal since a mark (journal.Mark) reads the entries after it, and
// proves what the full comparison proves of them:
//   - a game whose id was reserved before the watermark and sold after it is found named;
//   - a game whose entry was still queued at the mark (PostgreSQL) is found named after it;
//   - a new entry naming a game an entry before the mark named is reported;
//   - a checkpoint signed after the mark is checked against the mark's tree.
func testJournalSince(t *testing.T, h Harness) {
	sc := newJournalScene(t, h)
	f := sc.fixture
	late, err := f.s.ReserveGameID(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := range 3 {
		if _, err := f.sell(sc.alice, fmt.Sprint("m", n)); err != nil {
			t.Fatal(err)
		}
	}
	Sequence(t, f.s)
	// A sale whose entry is still queued when the mark is made.
	queued, err := f.sell(sc.alice, "queued")
	if err != nil {
		t.Fatal(err)
	}
	w1, err := f.s.RaiseLedgerMark(f.ctx, lottery.Watermark{})
	if err != nil {
		t.Fatal(err)
	}
	opts := journal.CompareOptions{Verifier: sc.key.Verifier, AccountKey: AccountKey, Now: sc.now, Games: w1.Games, Transfers: w1.Transfers}
	c, err := f.s.CompareJournal(f.ctx, opts)
	if err != nil || !c.OK() || c.Mark == nil {
		t.Fatalf("full comparison: %v %v, mark %v", err, c.Problems, c.Mark != nil)
	}
	m1 := c.Mark
	// SQLite's writes append their entries themselves; PostgreSQL's queue them for the
	// sequencer (sqlstore.Sequence), which has not run.
	if want := []int64{queued.ID}; sc.postgres() && fmt.Sprint(m1.Expected.Games) != fmt.Sprint(want) || !sc.postgres() && len(m1.Expected.Games) > 0 {
		t.Fatalf("the mark expects the games %v named later (PostgreSQL: the queued %d)", m1.Expected.Games, queued.ID)
	}

	r := f.sale(sc.alice, "late")
	r.GameID = late
	if _, err := f.s.Sell(f.ctx, r, f.now); err != nil {
		t.Fatal(err)
	}
	for n := range 3 {
		if _, err := f.sell(sc.alice, fmt.Sprint("n", n)); err != nil {
			t.Fatal(err)
		}
	}
	Sequence(t, f.s)
	if err := journal.NewLog(f.s, sc.key).Step(f.ctx, f.now.Add(journal.SignEvery)); err != nil {
		t.Fatal(err)
	}
	w2, err := f.s.RaiseLedgerMark(f.ctx, w1)
	if err != nil {
		t.Fatal(err)
	}
	opts.Since, opts.Games, opts.Transfers = m1, w2.Games, w2.Transfers
	since, err := f.s.CompareJournal(f.ctx, opts)
	if err != nil || !since.OK() || since.Mark == nil {
		t.Fatalf("comparison since the mark: %v %v", err, since.Problems)
	}
	// The late sale and the three after it, and on PostgreSQL the queued one; the checkpoint
	// signs them all.
	want := int64(4)
	if sc.postgres() {
		want++
	}
	if since.Games != want || since.Checkpoint != journalSize(t, f.s) {
		t.Fatalf("compared %d games since the mark, want %d; checkpoint %d of %d entries", since.Games, want, since.Checkpoint, journalSize(t, f.s))
	}

	// An entry appended by hand, naming a game that an entry before the mark named: the same
	// sale entry at the next seq.
	seq, _, err := f.s.SaleEntry(f.ctx, sc.won.ID)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := f.s.JournalEntries(f.ctx, seq, seq+1)
	if err != nil {
		t.Fatal(err)
	}
	next := journalSize(t, f.s)
	again := strings.Replace(string(entries[0]), fmt.Sprintf(`"seq":%d,`, seq), fmt.Sprintf(`"seq":%d,`, next), 1)
	sc.exec(t, `INSERT INTO journal (seq, entry) VALUES (?, ?)`, next, []byte(again))
	sc.exec(t, `UPDATE journal_state SET size = size + 1`)
	w3, err := f.s.RaiseLedgerMark(f.ctx, w2)
	if err != nil {
		t.Fatal(err)
	}
	opts.Since, opts.Games, opts.Transfers = since.Mark, w3.Games, w3.Transfers
	got, err := f.s.CompareJournal(f.ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(got.Problems), fmt.Sprintf("game %d has a sale entry before this one", sc.won.ID)) || got.Mark != nil {
		t.Fatalf("a game named again after the mark: %v", got.Problems)
	}
}
