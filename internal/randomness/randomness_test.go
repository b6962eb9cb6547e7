package randomness

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"starcolor/internal/gamedef"
	"starcolor/internal/gamedef/gamedeftest"
)

// table is a prize table as this package takes it: the prizes and the counts of its tiers.
type table struct {
	prizes []int64
	counts []int
}

func tableOf(t testing.TB, def *gamedef.Definition, price int64) table {
	t.Helper()
	tb, err := def.Table(price)
	if err != nil {
		t.Fatal(err)
	}
	var out table
	for _, tr := range tb.Tiers {
		out.prizes = append(out.prizes, tr.Amount)
		out.counts = append(out.counts, tr.Count)
	}
	return out
}

// mini is the test definition's table at 1 €: blocks of 1,000 units, 248 winners.
func mini(t testing.TB) table { return tableOf(t, gamedeftest.Mini(t), 100) }

// real is the regulation's table at 1 €: blocks of 1,000,000 units, 243,912 winners.
func real(t testing.TB) table {
	t.Helper()
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	return tableOf(t, def, 100)
}

// fair lays out the table's tiers and shuffles them as internal/emission's saleOrder does:
// Fisher–Yates on a ChaCha8 stream.
func (tb table) fair(seed uint64) []byte {
	var order []byte
	for i, c := range tb.counts {
		for range c {
			order = append(order, byte(i))
		}
	}
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	rng := rand.New(rand.NewChaCha8(key))
	for i := len(order) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	return order
}

func analyse(t testing.TB, tb table, order []byte) Block {
	t.Helper()
	b, err := Analyse(0, order, tb.prizes)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// result finds a test's result in a block.
func result(t testing.TB, b Block, test Test) Result {
	t.Helper()
	for _, r := range b.Results {
		if r.Test.String() == test.String() {
			return r
		}
	}
	t.Fatalf("no result of %s in %+v", test, b)
	return Result{}
}

// arrangements calls f with every distinct arrangement of a multiset: counts[v] copies of v.
func arrangements(counts []int, f func([]byte)) {
	n := 0
	for _, c := range counts {
		n += c
	}
	left := slices.Clone(counts)
	cur := make([]byte, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			f(cur)
			return
		}
		for v := range left {
			if left[v] > 0 {
				left[v]--
				cur[i] = byte(v)
				rec(i + 1)
				left[v]++
			}
		}
	}
	rec(0)
}

// The null moments are exact: over all 1,260 arrangements of {0, 0, 1, 1, 1, 2, 2, 2, 2} the
// number of runs, the lagged products and the segment statistic have the mean (and variance)
// the formulas give, which the tests' p-values rest on.
func TestNullMomentsExact(t *testing.T) {
	counts := []int{2, 3, 4}
	values := []float64{-1.5, 0.25, 2} // any values: the moments hold for all
	win := []bool{true, true, false}   // tiers 0 and 1 win: 5 winners, 4 losers
	var s1, s2, s3, s4 float64
	for v, c := range counts {
		x := values[v]
		s1 += float64(c) * x
		s2 += float64(c) * x * x
		s3 += float64(c) * x * x * x
		s4 += float64(c) * x * x * x * x
	}
	const n = 9
	type moments struct{ sum, sq float64 }
	var total int
	var runsM moments
	lags := []int{1, 2, 3}
	lagM := make([]moments, len(lags))
	segM := map[int]*moments{2: {}, 3: {}}
	arrangements(counts, func(o []byte) {
		total++
		r := 1.0
		for i := 1; i < n; i++ {
			if win[o[i]] != win[o[i-1]] {
				r++
			}
		}
		runsM.sum += r
		runsM.sq += r * r
		for j, lag := range lags {
			s := 0.0
			for i := range n - lag {
				s += values[o[i]] * values[o[i+lag]]
			}
			lagM[j].sum += s
			lagM[j].sq += s * s
		}
		for k, m := range segM {
			x := segmentStatistic(o, win, 5, k)
			m.sum += x
			m.sq += x * x
		}
	})
	if total != 1260 {
		t.Fatalf("%d arrangements, want 9!/(2!·3!·4!) = 1260", total)
	}
	check := func(name string, m moments, mean, variance float64) {
		t.Helper()
		gotMean := m.sum / float64(total)
		gotVar := m.sq/float64(total) - gotMean*gotMean
		if math.Abs(gotMean-mean) > 1e-9 || (!math.IsNaN(variance) && math.Abs(gotVar-variance) > 1e-9) {
			t.Errorf("%s: mean %.12g variance %.12g over the permutations; the formulas give %.12g and %.12g", name, gotMean, gotVar, mean, variance)
		}
	}
	mean, variance := runsMoments(5, 4)
	check("runs", runsM, mean, variance)
	for j, lag := range lags {
		mean, variance := lagMoments(n, lag, s1, s2, s3, s4)
		check(Test{Kind: Serial, Lag: lag}.String(), lagM[j], mean, variance)
	}
	for k, m := range segM {
		check("segments", *m, float64(k-1), math.NaN())
	}
}

// Calibration: on 5,000 fair blocks of the test definition, each test fails about 1 % of them,
// as a test at 99 % must. A wrong null law shows here: with the binomial law for the winners of
// a segment (draws with replacement), the segment test fails 0.01 % of fair blocks (2 in 20,000),
// and so passes much bias; with the amounts instead of their ranks, the serial tests fail 0.2 %.
func TestFairBlocksFailOnePercent(t *testing.T) {
	tb := mini(t)
	const blocks = 5000
	failed := map[string]int{}
	var names []string
	for s := range blocks {
		b := analyse(t, tb, tb.fair(uint64(s)))
		for _, r := range b.Results {
			k := r.Test.String()
			if _, ok := failed[k]; !ok {
				names = append(names, k)
				failed[k] = 0
			}
			if !r.Pass() {
				failed[k]++
			}
		}
	}
	if len(names) != 11 {
		t.Fatalf("%d tests ran: %v, want 11 (segments, runs, 4 lags, 5 groups of tiers)", len(names), names)
	}
	// Bin(5000, 0.01) has mean 50 and standard deviation 7: 25 to 85 is beyond 3.5 of them.
	for _, k := range names {
		if f := failed[k]; f < 25 || f > 85 {
			t.Errorf("%s fails %d of %d fair blocks, want about 50", k, f, blocks)
		}
	}
}

// The verdict of fair emissions is a pass, but for about one in a hundred at most, whatever the
// number of blocks: here 1,000 emissions of 1 block, 200 of 5 and 40 of 50.
func TestFairEmissionsPass(t *testing.T) {
	tb := mini(t)
	seed := uint64(10_000)
	for _, c := range []struct{ emissions, blocks, most int }{{1000, 1, 15}, {200, 5, 5}, {40, 50, 2}} {
		failed := 0
		for range c.emissions {
			var bs []Block
			for range c.blocks {
				bs = append(bs, analyse(t, tb, tb.fair(seed)))
				seed++
			}
			if !Judge(bs).Pass {
				failed++
			}
		}
		if failed > c.most {
			t.Errorf("%d of %d fair emissions of %d block(s) fail, want at most %d", failed, c.emissions, c.blocks, c.most)
		}
	}
}

// A fair block of the regulation's table, 1,000,000 units, passes every test.
func TestFairRealBlockPasses(t *testing.T) {
	tb := real(t)
	b := analyse(t, tb, tb.fair(1))
	if len(b.Results) != 12 {
		t.Fatalf("%d results, want 12: %+v", len(b.Results), b.Results)
	}
	if !slices.Equal(b.Grouped, []int64{2000000, 100000}) {
		t.Errorf("grouped %v, want the tiers of 20 000 € and 1 000 € (1 unit each), joined by 100 € (10)", b.Grouped)
	}
	g := result(t, b, Test{Kind: Positions, Prizes: []int64{2000000, 100000, 10000}})
	if g.Units != 12 {
		t.Errorf("the rare tiers' group holds %d units, want 12", g.Units)
	}
	if s := result(t, b, Test{Kind: Segments}); s.Segments != 100 || s.DF != 99 {
		t.Errorf("the block is cut into %d segments (χ² with %d degrees of freedom), want 100 and 99", s.Segments, s.DF)
	}
	if v := Judge([]Block{b}); !v.Pass {
		t.Errorf("a fair block fails: %+v", v.Tests)
	}
}

// swapWhere swaps n units of order with from(i) with as many with to(j), both drawn at random
// among those (so that the bias is spread, not a cluster of its own).
func swapWhere(order []byte, n int, from, to func(i int) bool) {
	var is, js []int
	for i := range order {
		if from(i) {
			is = append(is, i)
		} else if to(i) {
			js = append(js, i)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(is)), uint64(len(js))))
	rng.Shuffle(len(is), func(a, b int) { is[a], is[b] = is[b], is[a] })
	rng.Shuffle(len(js), func(a, b int) { js[a], js[b] = js[b], js[a] })
	for k := range min(n, len(is), len(js)) {
		order[is[k]], order[js[k]] = order[js[k]], order[is[k]]
	}
}

// Each bias is caught by the test made for it, and the emission fails. Each order holds the
// table's counts exactly, as a block does; only where the prizes fall differs.
func TestBiasedOrdersFail(t *testing.T) {
	tb := mini(t)
	win := func(o []byte) func(int) bool { return func(i int) bool { return tb.prizes[o[i]] > 0 } }
	losing := byte(len(tb.prizes) - 1)
	tier := func(p int64) byte { return byte(slices.Index(tb.prizes, p)) }

	cases := []struct {
		name   string
		order  func() []byte
		caught []Test
	}{
		{"winners pushed towards the end", func() []byte {
			o := tb.fair(1)
			half := len(o) / 2
			w := win(o)
			// 40 winners of the first half change places with losers of the second.
			swapWhere(o, 40, func(i int) bool { return i < half && w(i) }, func(j int) bool { return j >= half && !w(j) })
			return o
		}, []Test{{Kind: Segments}}},
		{"wins spread evenly: one every four units", func() []byte {
			o := tb.fair(2)
			var wins, loses []byte
			for _, v := range o {
				if tb.prizes[v] > 0 {
					wins = append(wins, v)
				} else {
					loses = append(loses, v)
				}
			}
			o = o[:0]
			for i := range 1000 {
				if i%4 == 0 && len(wins) > 0 {
					o, wins = append(o, wins[0]), wins[1:]
				} else {
					o, loses = append(o, loses[0]), loses[1:]
				}
			}
			return o
		}, []Test{{Kind: Runs}}},
		{"a sorted segment of 200 units", func() []byte {
			o := tb.fair(3)
			slices.Sort(o[400:600])
			return o
		}, []Test{{Kind: Runs}, {Kind: Serial, Lag: 1}}},
		{"a period of 10: each unit's tier again 10 units later", func() []byte {
			o := tb.fair(4)
			// In each run of 20 units, the second 10 take, where the run has it, the tier of the
			// unit 10 before: the counts, each segment's winners and most runs are kept.
			for c := 0; c+20 <= len(o); c += 20 {
				for j := range 10 {
					for k := c + 10 + j; k < c+20; k++ {
						if o[k] == o[c+j] {
							o[c+10+j], o[k] = o[k], o[c+10+j]
							break
						}
					}
				}
			}
			return o
		}, []Test{{Kind: Serial, Lag: 10}}},
		{"the 4 € units in the first half, changed with 1 € units", func() []byte {
			o := tb.fair(5)
			half := len(o) / 2
			four, one := tier(400), tier(100)
			swapWhere(o, 28, func(i int) bool { return i >= half && o[i] == four }, func(j int) bool { return j < half && o[j] == one })
			return o
		}, []Test{{Kind: Positions, Prizes: []int64{400}}}},
		{"the losing units gathered in the last 60 %", func() []byte {
			o := tb.fair(6)
			cut := 400
			w := win(o)
			swapWhere(o, 100, func(i int) bool { return i < cut && o[i] == losing }, func(j int) bool { return j >= cut && w(j) })
			return o
		}, []Test{{Kind: Positions, Prizes: []int64{0}}, {Kind: Segments}}},
	}
	for _, c := range cases {
		o := c.order()
		if got, want := countsOf(o, len(tb.prizes)), tb.counts; !slices.Equal(got, want) {
			t.Fatalf("%s: counts %v, want the table's %v", c.name, got, want)
		}
		b := analyse(t, tb, o)
		for _, test := range c.caught {
			r := result(t, b, test)
			t.Logf("%s: %s p = %.3g", c.name, test, r.P)
			if r.P >= Alpha/100 {
				t.Errorf("%s: %s p = %.3g; it should catch this bias (p < 0.0001)", c.name, test, r.P)
			}
		}
		if v := Judge([]Block{b}); v.Pass {
			t.Errorf("%s: the emission passes", c.name)
		}
	}
}

// The positions bias above leaves the tests of wins and losses exactly where they were: each test
// looks at what it is made for.
func TestPositionsBiasLeavesWinsAlone(t *testing.T) {
	tb := mini(t)
	fair := tb.fair(5)
	biased := slices.Clone(fair)
	half := len(biased) / 2
	four, one := byte(slices.Index(tb.prizes, 400)), byte(slices.Index(tb.prizes, 100))
	swapWhere(biased, 28, func(i int) bool { return i >= half && biased[i] == four }, func(j int) bool { return j < half && biased[j] == one })
	a, b := analyse(t, tb, fair), analyse(t, tb, biased)
	for _, test := range []Test{{Kind: Segments}, {Kind: Runs}} {
		if ra, rb := result(t, a, test), result(t, b, test); ra.Value != rb.Value {
			t.Errorf("%s moved from %v to %v; the winners did not", test, ra.Value, rb.Value)
		}
	}
}

// The top prizes at the end of a real block: the rare tiers' group catches it, though each of
// those tiers is too small to be tested alone.
func TestTopPrizesAtTheEndFail(t *testing.T) {
	tb := real(t)
	o := tb.fair(7)
	n := len(o)
	rare := func(v byte) bool { return tb.prizes[v] >= 10000 } // 20 000 €, 1 000 € and 100 €: 12 units
	losing := byte(len(tb.prizes) - 1)
	swapWhere(o, 12, func(i int) bool { return i < n*95/100 && rare(o[i]) }, func(j int) bool { return j >= n*95/100 && o[j] == losing })
	b := analyse(t, tb, o)
	if r := result(t, b, Test{Kind: Positions, Prizes: []int64{2000000, 100000, 10000}}); r.P >= Alpha/100 {
		t.Errorf("the 12 top prizes in the last 5 %%: p = %.3g", r.P)
	}
	if Judge([]Block{b}).Pass {
		t.Error("the emission passes")
	}
}

func countsOf(order []byte, tiers int) []int {
	c := make([]int, tiers)
	for _, v := range order {
		c[v]++
	}
	return c
}

// The rarest tiers are tested together, joined by the next rarest until they hold MinPositions
// units, and the losing tier is tested like any other.
func TestPositionGroups(t *testing.T) {
	for _, c := range []struct {
		name    string
		counts  []int
		groups  [][]int64
		grouped []int64
	}{
		{"mini: 1, 1 and 2 units join the 24 of 12 €", []int{1, 1, 2, 24, 28, 85, 107, 752},
			[][]int64{{2000000, 100000, 10000, 1200}, {400}, {200}, {100}, {0}}, []int64{2000000, 100000, 10000}},
		{"real: 1, 1 and 10 units make 12", []int{1, 1, 10, 24100, 28000, 85000, 106800, 756088},
			[][]int64{{2000000, 100000, 10000}, {1200}, {400}, {200}, {100}, {0}}, []int64{2000000, 100000}},
		{"no rare tier", []int{10, 10, 10, 10, 10, 10, 10, 930},
			[][]int64{{2000000}, {100000}, {10000}, {1200}, {400}, {200}, {100}, {0}}, nil},
		{"an absent tier is not tested", []int{0, 1, 2, 24, 28, 85, 107, 753},
			[][]int64{{100000, 10000, 1200}, {400}, {200}, {100}, {0}}, []int64{100000, 10000}},
	} {
		prizes := mini(t).prizes
		groups, grouped := positionGroups(prizes, c.counts)
		var got [][]int64
		for _, g := range groups {
			got = append(got, prizesOf(prizes, g))
		}
		if !slices.EqualFunc(got, c.groups, slices.Equal) || !slices.Equal(grouped, c.grouped) {
			t.Errorf("%s: groups %v grouped %v, want %v and %v", c.name, got, grouped, c.groups, c.grouped)
		}
	}
}

// An order that does not fit its table is refused; tests that cannot run say why.
func TestAnalyseRefusesAndSkips(t *testing.T) {
	if _, err := Analyse(0, []byte{0, 1, 2}, []int64{100, 0}); err == nil {
		t.Error("a unit of tier 2 in a table of 2 tiers is accepted")
	}
	if _, err := Analyse(0, []byte{0, 1}, []int64{100, 100}); err == nil {
		t.Error("two tiers of the same prize are accepted")
	}
	b, err := Analyse(0, []byte{1, 1, 1, 0, 1, 1}, []int64{100, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Skipped) == 0 {
		t.Errorf("a block of one winner ran every test: %+v", b)
	}
}

// Analyse never panics and gives probabilities, whatever order and table it is handed.
func FuzzAnalyse(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1}, uint8(3))
	f.Add([]byte{0}, uint8(1))
	f.Fuzz(func(t *testing.T, order []byte, tiers uint8) {
		prizes := make([]int64, int(tiers)%8+1)
		for i := range prizes {
			prizes[i] = int64(len(prizes)-1-i) * 100
		}
		b, err := Analyse(0, order, prizes)
		if err != nil {
			return
		}
		for _, r := range b.Results {
			if !(r.P >= 0 && r.P <= 1) {
				t.Fatalf("%s: p = %v", r.Test, r.P)
			}
		}
		v := Judge([]Block{b, b})
		for _, s := range v.Tests {
			if !(s.Tippett >= 0 && s.Tippett <= 1) {
				t.Fatalf("%s: Tippett %v", s.Test, s.Tippett)
			}
		}
	})
}
