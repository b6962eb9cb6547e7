package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
)

// EmissionLife: a suspended emission sells no more, and the sales at its price go to the next
// oldest on sale, or are sold out; a resumed one sells again, first again. Each change its life
// does not allow is invalid_state and changes nothing; each change is in its history, the log
// and the journal.
func testEmissionLife(t *testing.T, h Harness) {
	f := newFixture(t, h)
	CreateEmission(t, f.s, gamedeftest.Mini(t), "T", 100, 1, 't')
	prizes := emissionPrizes(t, f.s, "S", "T")
	p := f.player(t, "paula", 1000_00)
	n := 0
	sellFrom := func(want string) {
		t.Helper()
		n++
		r := f.sale(p, fmt.Sprintf("k%d", n))
		r.Prizes = prizes
		g, err := f.s.Sell(f.ctx, r, f.now)
		switch {
		case want == "" && !fault.Is(err, fault.SoldOut):
			t.Fatalf("sale %d: %+v %v, want sold out", n, g, err)
		case want != "" && (err != nil || g.Emission != want):
			t.Fatalf("sale %d: %+v %v, want a unit of %s", n, g, err, want)
		}
	}
	change := func(id, status string) error {
		_, err := f.s.ChangeEmissionStatus(f.ctx, lottery.EmissionChange{Emission: id, Status: status, Reason: "a display fault", By: "olga", At: f.now},
			lottery.OperatorAction{Name: "olga", Action: "emission_" + status, CreatedAt: f.now})
		return err
	}
	mustChange := func(id, status string) {
		t.Helper()
		if err := change(id, status); err != nil {
			t.Fatalf("%s becomes %s: %v", id, status, err)
		}
	}
	sellFrom("S")
	mustChange("S", lottery.Suspended)
	sellFrom("T")
	mustChange("T", lottery.Suspended)
	sellFrom("")
	if open, err := f.s.OpenEmissionPrices(f.ctx); err != nil || open[100] {
		t.Errorf("open prices with every emission suspended: %v %v", open, err)
	}
	for _, c := range []struct{ id, status string }{{"S", lottery.Suspended}, {"S", lottery.OnSale + "x"}} {
		if err := change(c.id, c.status); !fault.Is(err, fault.InvalidState) {
			t.Errorf("%s becomes %s: %v, want invalid_state", c.id, c.status, err)
		}
	}
	if err := change("NONE", lottery.Suspended); !fault.Is(err, fault.NotFound) {
		t.Errorf("an unknown emission suspended: %v, want not_found", err)
	}
	mustChange("T", lottery.OnSale)
	if err := change("T", lottery.OnSale); !fault.Is(err, fault.InvalidState) {
		t.Errorf("T resumed twice: %v, want invalid_state", err)
	}
	sellFrom("T")
	mustChange("S", lottery.OnSale)
	sellFrom("S")

	hist, err := f.s.EmissionHistory(f.ctx, "S")
	if err != nil || len(hist) != 2 || hist[0].Status != lottery.Suspended || hist[0].Reason != "a display fault" || hist[0].By != "olga" ||
		!hist[0].At.Equal(f.now) || hist[1].Status != lottery.OnSale {
		t.Errorf("S's history: %+v %v", hist, err)
	}
	if st, err := f.s.EmissionStatuses(f.ctx); err != nil || len(st) != 2 || st["S"] != lottery.OnSale || st["T"] != lottery.OnSale {
		t.Errorf("the statuses: %v %v", st, err)
	}
	if err := f.raw.Exec(`DELETE FROM emission_history`); err == nil {
		t.Error("the history deleted by hand: done, want refused by its trigger")
	}
	// The journal holds each change, after its sales.
	Sequence(t, f.s)
	st, err := f.s.JournalState(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := f.s.JournalEntries(f.ctx, 0, st.Size)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range entries {
		if s := string(e); strings.Contains(s, `"kind":"emission"`) && !strings.Contains(s, `"event":"created"`) {
			events = append(events, s[strings.Index(s, `"emission":`):])
		}
	}
	def := gamedeftest.Mini(t).Version
	want := []string{}
	for _, c := range [][2]string{{"S", "suspended"}, {"T", "suspended"}, {"T", "on_sale"}, {"S", "on_sale"}} {
		want = append(want, `"emission":"`+c[0]+`","event":"`+c[1]+`","price":100,"definition":"`+def+`","roots":[],"operator":"olga"}`)
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("the journal's changes of status:\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	f.ledgerOK(t)
}

// SuspendRacingSales: players buy at once on three servers (one on SQLite) while one suspends
// the emission they buy from. A sale that begins once the suspension has returned never sells
// from it, on any server; the others go to the next emission.
func testSuspendRacingSales(t *testing.T, h Harness) {
	stores, raw := h.servers(t, 3)
	f := fixtureOn(t, stores[0], raw)
	CreateEmission(t, f.s, gamedeftest.Mini(t), "T", 100, 2, 't')
	readers := make([]lottery.Prizes, len(stores))
	for i, s := range stores {
		readers[i] = emissionPrizes(t, s, "S", "T")
	}
	var suspended atomic.Bool
	var wrong atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 12 {
		p := f.player(t, fmt.Sprintf("p%d", i), 100_00)
		s := stores[i%len(stores)]
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				after := suspended.Load()
				r := f.sale(p, fmt.Sprintf("k%d", k))
				r.Prizes = readers[i%len(readers)]
				g, err := s.Sell(context.Background(), r, f.now)
				if err != nil {
					continue
				}
				if after && g.Emission == "S" {
					wrong.Add(1)
				}
			}
		})
	}
	for range 20 { // some sales first
		if n := raw.Int(t, `SELECT count(*) FROM games`); n >= 30 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := stores[1].ChangeEmissionStatus(f.ctx, lottery.EmissionChange{Emission: "S", Status: lottery.Suspended, Reason: "a leak", By: "olga", At: f.now},
		lottery.OperatorAction{Name: "olga", Action: "emission_suspended", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	suspended.Store(true)
	before := raw.Int(t, `SELECT count(*) FROM games`)
	for range 50 {
		if raw.Int(t, `SELECT count(*) FROM games`) >= before+60 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Fatalf("%d sales begun after the suspension sold from the suspended emission", n)
	}
	if fromT := raw.Int(t, `SELECT count(*) FROM games g JOIN blocks b ON b.number = g.block_number WHERE b.emission_id = 'T'`); fromT == 0 {
		t.Fatal("no sale went to the next emission after the suspension")
	}
	f.ledgerOK(t)
}

// emissionPrizes reads the units of sales from their own emission's reader, among ids.
func emissionPrizes(t testing.TB, s Store, ids ...string) lottery.Prizes {
	t.Helper()
	m := byEmission{}
	for _, id := range ids {
		e, err := s.Emission(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if m[id], err = emission.NewReader(e, s); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

type byEmission map[string]*emission.Reader

func (m byEmission) Unit(ctx context.Context, id string, block, unit int) (lottery.SoldUnit, error) {
	r, ok := m[id]
	if !ok {
		return lottery.SoldUnit{}, fmt.Errorf("no reader of emission %s", id)
	}
	return readerPrizes{r}.Unit(ctx, id, block, unit)
}
