package emission

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/randomness"
	"starcolor/internal/rules"
)

// Report is what an emission holds, found by reading back and evaluating every one of its units
// under the rules (docs/spec/RULES.md §2, §6): the tier counts against the prize table, the prizes and the
// return to players, and the presentation frequencies, for each block and for the whole emission.
// Money is in euro cents; counts are exact, so a single unit out of place shows.
type Report struct {
	Emission   string
	Definition string
	Price      int64 // cents
	Blocks     []BlockReport
	Total      Stats // the whole emission: the sum of its blocks
	// Randomness is the statistical tests of each block's sale order, and their verdict across
	// the blocks (internal/randomness).
	Randomness randomness.Verdict
}

// BlockReport is the report of one block.
type BlockReport struct {
	Block int
	Stats
}

// Stats are the figures of a set of units: a block, or the whole emission.
type Stats struct {
	Units int
	Sales int64 // price × units, in cents

	Winners      int   // units with a prize
	TableWinners int   // winning units the prize table calls for
	Prizes       int64 // the sum of the units' prizes, in cents
	TablePrizes  int64 // the sum the prize table calls for, in cents

	// Tiers follows the prize table's order, losing tier included.
	Tiers []TierStats

	// Gains[k] is the number of units that reveal k amounts, k from 0 to the largest seen
	// anywhere in the emission (every Stats of a report has the same length).
	Gains []int

	Features Features

	// Disagreements counts units whose boards, evaluated under the rules, reveal a prize other
	// than the one they are recorded with. It is 0 for a sound emission.
	Disagreements int
}

// TierStats is one row of the prize table with what the units hold.
type TierStats struct {
	Amount     int64 // cents; 0 for the losing tier
	Composite  bool  // reachable only by several gains (docs/spec/RULES.md §2)
	Count      int   // units recorded with this prize
	TableCount int   // units the prize table calls for

	// Gains[k] is the number of units of the tier that reveal k amounts (same length as
	// Stats.Gains). A composite tier has Gains[0] = Gains[1] = 0.
	Gains []int

	// Combinations lists the distinct sets of amounts that show the tier's total, most shown
	// first; a total shown in several ways has several. Empty for the losing tier.
	Combinations []Combination
}

// Combination is one way of showing a total: the amounts revealed, largest first, and how many
// units show exactly these.
type Combination struct {
	Amounts []int64 // cents, non-increasing
	Units   int
}

// Features counts the units that show each element of presentation (docs/spec/RULES.md §6).
type Features struct {
	Extra      int // units with an Extra stage (board 1 reveals an Extra)
	Board2Gain int // units with at least one amount revealed on board 2
	Exploded   int // units with at least one star revealed by an explosion, on either board
	Chained    int // units with a chain: an explosion symbol revealed by an explosion

	// SymbolUnits[k] is the number of units revealing at least one symbol of kind k, and
	// Symbols[k] the number of such symbols revealed over all units, indexed by rules.SymMilkyWay,
	// rules.SymSupernova and rules.SymShootingStar.
	SymbolUnits [3]int
	Symbols     [3]int

	Losing         int // losing units
	LosingExploded int // losing units with at least one star revealed by an explosion
	LosingExtra    int // losing units with an Extra stage
}

// Feature is one line of Features for display: a count out of a number of units.
type Feature struct {
	Name   string
	Units  int
	Of     int    // the units it is counted among: all units, or the losing ones
	OfWhat string // "units" or "losing units"
}

// Share is Units / Of, 0 when Of is 0.
func (f Feature) Share() float64 {
	if f.Of == 0 {
		return 0
	}
	return float64(f.Units) / float64(f.Of)
}

// SymbolNames names the explosion symbols for people, by rules.SymMilkyWay and its followers.
var SymbolNames = [3]string{"milky way", "supernova", "shooting star"}

// FeatureList gives the features in display order, each with its denominator.
func (s *Stats) FeatureList() []Feature {
	f := &s.Features
	all := func(name string, n int) Feature { return Feature{name, n, s.Units, "units"} }
	losing := func(name string, n int) Feature { return Feature{name, n, f.Losing, "losing units"} }
	return []Feature{
		all("Extra stage", f.Extra),
		all("amount on the Extra board", f.Board2Gain),
		all("at least one explosion", f.Exploded),
		all(SymbolNames[rules.SymMilkyWay], f.SymbolUnits[rules.SymMilkyWay]),
		all(SymbolNames[rules.SymSupernova], f.SymbolUnits[rules.SymSupernova]),
		all(SymbolNames[rules.SymShootingStar], f.SymbolUnits[rules.SymShootingStar]),
		all("chain of explosions", f.Chained),
		losing("explosion on a losing unit", f.LosingExploded),
		losing("Extra stage on a losing unit", f.LosingExtra),
	}
}

// RTP is the return to players: prizes / (price × units), 0 for no units.
func (s *Stats) RTP() float64 { return ratio(s.Prizes, s.Sales) }

// TableRTP is the return to players that the prize table calls for.
func (s *Stats) TableRTP() float64 { return ratio(s.TablePrizes, s.Sales) }

// HitRate is the share of winning units.
func (s *Stats) HitRate() float64 { return ratio(int64(s.Winners), int64(s.Units)) }

// TableHitRate is the share of winning units that the prize table calls for.
func (s *Stats) TableHitRate() float64 { return ratio(int64(s.TableWinners), int64(s.Units)) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// OK reports whether the tier holds exactly the count of the table, and, for a composite tier,
// whether every unit shows at least two amounts.
func (t *TierStats) OK() bool {
	if t.Count != t.TableCount {
		return false
	}
	return !t.Composite || len(t.Gains) < 2 || t.Gains[0]+t.Gains[1] == 0
}

// TiersMatch reports whether every tier holds exactly the count of the table.
func (s *Stats) TiersMatch() bool {
	for i := range s.Tiers {
		if !s.Tiers[i].OK() {
			return false
		}
	}
	return true
}

// OK reports whether the units are exactly what the prize table calls for: every tier count,
// the prizes, and every unit revealing the prize it is recorded with.
func (s *Stats) OK() bool {
	return s.TiersMatch() && s.Prizes == s.TablePrizes && s.Winners == s.TableWinners && s.Disagreements == 0
}

// OK reports whether every block, and so the emission, is exactly what the prize table calls for.
func (r *Report) OK() bool {
	for i := range r.Blocks {
		if !r.Blocks[i].OK() {
			return false
		}
	}
	return r.Total.OK()
}

// maxGainsSeen bounds the amounts a unit can reveal: every star of both boards.
const maxGainsSeen = 2 * rules.Cells

// tally accumulates the figures of one block in one worker.
type tally struct {
	units, winners, disagree int
	prizes                   int64
	tiers                    []int
	tierGains                [][maxGainsSeen + 1]int
	gains                    [maxGainsSeen + 1]int
	combos                   []map[string]int
	f                        Features
}

func newTally(tiers int) *tally {
	t := &tally{tiers: make([]int, tiers), tierGains: make([][maxGainsSeen + 1]int, tiers), combos: make([]map[string]int, tiers)}
	for i := range t.combos {
		t.combos[i] = map[string]int{}
	}
	return t
}

func (t *tally) add(o *tally) {
	t.units += o.units
	t.winners += o.winners
	t.disagree += o.disagree
	t.prizes += o.prizes
	for i := range t.tiers {
		t.tiers[i] += o.tiers[i]
		for k := range t.tierGains[i] {
			t.tierGains[i][k] += o.tierGains[i][k]
		}
		for key, n := range o.combos[i] {
			t.combos[i][key] += n
		}
	}
	for k := range t.gains {
		t.gains[k] += o.gains[k]
	}
	a, b := &t.f, &o.f
	a.Extra += b.Extra
	a.Board2Gain += b.Board2Gain
	a.Exploded += b.Exploded
	a.Chained += b.Chained
	for k := range a.Symbols {
		a.SymbolUnits[k] += b.SymbolUnits[k]
		a.Symbols[k] += b.Symbols[k]
	}
	a.Losing += b.Losing
	a.LosingExploded += b.LosingExploded
	a.LosingExtra += b.LosingExtra
}

// reportWorker evaluates units into tallies, one per block.
type reportWorker struct {
	tierOf  map[int64]int
	amounts []int64
	blocks  []*tally
	key     []byte
}

// unit adds a unit to a tally and returns its tier.
func (w *reportWorker) unit(t *tally, rec *audit.Record) (int, error) {
	tier, ok := w.tierOf[rec.Prize]
	if !ok {
		return 0, fmt.Errorf("unit %d: prize %d is not a tier of the table", rec.Index, rec.Prize)
	}
	u := &rec.Unit
	o := u.Evaluate(0)
	stage := o.B1.Extras > 0 && u.HasB2
	exploded := o.B1.Exploded+o.B2.Exploded > 0
	gains := min(o.Gains, maxGainsSeen)

	t.units++
	t.tiers[tier]++
	t.tierGains[tier][gains]++
	t.gains[gains]++
	t.prizes += rec.Prize
	if o.Prize != rec.Prize {
		t.disagree++
	}
	f := &t.f
	if stage {
		f.Extra++
	}
	if o.B2.Gains > 0 {
		f.Board2Gain++
	}
	if exploded {
		f.Exploded++
	}
	if o.B1.Chained+o.B2.Chained > 0 {
		f.Chained++
	}
	for k := range f.Symbols {
		if n := o.B1.Symbols[k] + o.B2.Symbols[k]; n > 0 {
			f.SymbolUnits[k]++
			f.Symbols[k] += n
		}
	}
	if rec.Prize == 0 {
		f.Losing++
		if exploded {
			f.LosingExploded++
		}
		if stage {
			f.LosingExtra++
		}
		return tier, nil
	}
	t.winners++
	// The combination: the indexes in the table's amounts of the amounts revealed, sorted.
	w.key = w.appendAmounts(w.key[:0], &u.B1, o.B1.Revealed)
	if o.B1.Extras > 0 && u.HasB2 {
		w.key = w.appendAmounts(w.key, &u.B2, o.B2.Revealed)
	}
	slices.Sort(w.key)
	m := t.combos[tier]
	if _, seen := m[string(w.key)]; seen {
		m[string(w.key)]++
	} else {
		m[string(w.key)] = 1
	}
	return tier, nil
}

// appendAmounts appends, for each amount in the revealed cells of a board, its index in the
// table's amounts (255 for an amount outside the table, which the page codec never yields).
func (w *reportWorker) appendAmounts(dst []byte, b *rules.Board, revealed rules.Mask) []byte {
	for m := revealed; m != 0; m &= m - 1 {
		s := &b[trailingCell(m)]
		if s.Kind != rules.Amount {
			continue
		}
		idx, found := slices.BinarySearch(w.amounts, s.Amount)
		if !found || idx > 254 {
			idx = 255
		}
		dst = append(dst, byte(idx))
	}
	return dst
}

func trailingCell(m rules.Mask) int { return bits.TrailingZeros64(uint64(m)) }

// Report reads every unit of every block of the emission, evaluates it under the rules for the
// canonical colour and returns what they hold, with the randomness tests of each block's sale
// order. A block's pages are spread over runtime.GOMAXPROCS(0) goroutines, one block after the
// other, so that only one block's order is held at a time (1 MB); the result does not depend on
// their number or on the order they finish in.
func (r *Reader) Report(ctx context.Context) (*Report, error) {
	e := r.e
	tierOf := r.tierOf()
	amounts := slices.Clone(e.Table.Amounts)
	slices.Sort(amounts)

	ws := make([]*reportWorker, r.workers())
	for i := range ws {
		ws[i] = &reportWorker{tierOf: tierOf, amounts: amounts, blocks: make([]*tally, len(e.Blocks))}
	}
	orders := make([]randomness.Block, len(e.Blocks))
	for k, b := range e.Blocks {
		order := make([]byte, b.Units)
		err := r.eachPage(ctx, k, len(ws), func(w int, recs []audit.Record) error {
			t := ws[w].blocks[k]
			if t == nil {
				t = newTally(len(e.Table.Tiers))
				ws[w].blocks[k] = t
			}
			for i := range recs {
				tier, err := ws[w].unit(t, &recs[i])
				if err != nil {
					return fmt.Errorf("block %d %w", k, err)
				}
				order[recs[i].Index] = byte(tier)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if orders[k], err = randomness.Analyse(b.Index, order, r.prizes()); err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Index, err)
		}
	}

	// Merge the workers' tallies block by block, then find how far the gains go.
	blocks := make([]*tally, len(e.Blocks))
	total := newTally(len(e.Table.Tiers))
	top := 0
	for k := range blocks {
		blocks[k] = newTally(len(e.Table.Tiers))
		for _, w := range ws {
			if t := w.blocks[k]; t != nil {
				blocks[k].add(t)
			}
		}
		total.add(blocks[k])
	}
	for g, n := range total.gains {
		if n > 0 {
			top = g
		}
	}

	rep := &Report{Emission: e.ID, Definition: e.Definition, Price: e.Price, Randomness: randomness.Judge(orders)}
	for k, b := range e.Blocks {
		rep.Blocks = append(rep.Blocks, BlockReport{Block: b.Index, Stats: r.stats(blocks[k], 1, top, amounts)})
	}
	rep.Total = r.stats(total, len(e.Blocks), top, amounts)
	return rep, nil
}

// stats turns a tally of a number of blocks into Stats, gains cut after top.
func (r *Reader) stats(t *tally, blocks int, top int, amounts []int64) Stats {
	s := Stats{
		Units:         t.units,
		Sales:         r.e.Price * int64(t.units),
		Winners:       t.winners,
		Prizes:        t.prizes,
		Gains:         slices.Clone(t.gains[:top+1]),
		Features:      t.f,
		Disagreements: t.disagree,
	}
	for i, tr := range r.e.Table.Tiers {
		ts := TierStats{
			Amount:     tr.Amount,
			Composite:  tr.Composite,
			Count:      t.tiers[i],
			TableCount: tr.Count * blocks,
			Gains:      slices.Clone(t.tierGains[i][:top+1]),
		}
		for key, n := range t.combos[i] {
			c := Combination{Units: n}
			for j := len(key) - 1; j >= 0; j-- {
				a := int64(-1)
				if int(key[j]) < len(amounts) {
					a = amounts[key[j]]
				}
				c.Amounts = append(c.Amounts, a)
			}
			ts.Combinations = append(ts.Combinations, c)
		}
		slices.SortFunc(ts.Combinations, func(a, b Combination) int {
			if a.Units != b.Units {
				return b.Units - a.Units
			}
			return slices.Compare(b.Amounts, a.Amounts)
		})
		s.Tiers = append(s.Tiers, ts)
		s.TablePrizes += tr.Amount * int64(tr.Count*blocks)
		if tr.Amount > 0 {
			s.TableWinners += tr.Count * blocks
		}
	}
	return s
}

// String writes a combination as people read it: "10 € + 1 € + 1 €".
func (c Combination) String() string {
	parts := make([]string, len(c.Amounts))
	for i, a := range c.Amounts {
		parts[i] = gamedef.FormatEUR(a)
	}
	return strings.Join(parts, " + ")
}
