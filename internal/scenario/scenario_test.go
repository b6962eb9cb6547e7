package scenario

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

func defaultDef(t testing.TB) *gamedef.Definition {
	t.Helper()
	def, err := gamedef.Lookup(gamedef.Default)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

func TestDecompositions(t *testing.T) {
	def := defaultDef(t)
	table, _ := def.Table(100)
	byK := decompositions(1200, table.Amounts, def.MaxGains)
	if len(byK[1]) != 0 {
		t.Errorf("12 EUR is composite only but decomposes in one part: %v", byK[1])
	}
	for _, want := range [][]int64{{1000, 200}, {600, 600}, {400, 400, 400}, {100, 100, 100, 100, 100, 100, 300, 300}} {
		found := false
		for _, d := range byK[len(want)] {
			if slices.Equal(d, slices.Sorted(slices.Values(want))) || slices.Equal(d, reversed(want)) {
				found = true
			}
		}
		if !found {
			t.Errorf("12 EUR: %v missing from %v", want, byK[len(want)])
		}
	}
	for k, ds := range byK {
		for _, d := range ds {
			var sum int64
			for _, a := range d {
				sum += a
			}
			if len(d) != k || sum != 1200 || !slices.IsSortedFunc(d, func(a, b int64) int { return int(b - a) }) {
				t.Fatalf("bad decomposition %v under k=%d", d, k)
			}
		}
	}
	if got := decompositions(2000000, table.Amounts, 2)[2]; !slices.EqualFunc(got, [][]int64{{1000000, 1000000}}, slices.Equal) {
		t.Errorf("20 000 EUR in two gains: %v, want only 10 000 + 10 000", got)
	}
}

func reversed(s []int64) []int64 {
	out := slices.Sorted(slices.Values(s))
	slices.Reverse(out)
	return out
}

// Every tier at every price: each generated unit verifies (the generator checks, and so does
// this test, independently through the table), and the variety docs/spec/RULES.md §6 asks for shows up.
func TestEveryTierGeneratesValidVariedUnits(t *testing.T) {
	def := defaultDef(t)
	for _, table := range def.Tables {
		t.Run(gamedef.FormatEUR(table.Price), func(t *testing.T) {
			g, err := New(def, &table)
			if err != nil {
				t.Fatal(err)
			}
			rng := NewStream([32]byte{byte(table.Price)})
			var u rules.Unit
			for _, tier := range table.Tiers {
				var extra, explosions, chains, lostWithExplosion, lostWithExtra int
				kinds := [3]int{}
				combos := map[string]bool{}
				n := 3000
				for range n {
					if err := g.Unit(&u, tier.Amount, rng); err != nil {
						t.Fatal(err)
					}
					o, err := table.CheckUnit(&u, tier.Amount)
					if err != nil {
						t.Fatalf("tier %s: %v", gamedef.FormatEUR(tier.Amount), err)
					}
					if tier.Composite && o.Gains < 2 {
						t.Fatalf("composite tier %s shown by %d gain", gamedef.FormatEUR(tier.Amount), o.Gains)
					}
					if u.HasB2 {
						extra++
					}
					syms := o.B1.Symbols[0] + o.B1.Symbols[1] + o.B1.Symbols[2] + o.B2.Symbols[0] + o.B2.Symbols[1] + o.B2.Symbols[2]
					if syms > 0 {
						explosions++
					}
					for k := range kinds {
						kinds[k] += o.B1.Symbols[k] + o.B2.Symbols[k]
					}
					if o.B1.Chained+o.B2.Chained > 0 {
						chains++
					}
					if tier.Amount == 0 && syms > 0 {
						lostWithExplosion++
					}
					if tier.Amount == 0 && u.HasB2 {
						lostWithExtra++
					}
					combos[fmt.Sprint(amountsShown(&u))] = true
				}
				name := gamedef.FormatEUR(tier.Amount)
				if extra == 0 || explosions == 0 || chains == 0 || kinds[0] == 0 || kinds[1] == 0 || kinds[2] == 0 {
					t.Errorf("tier %s over %d units: %d Extra, %d with explosions, %d chains, symbols %v: some feature never shows",
						name, n, extra, explosions, chains, kinds)
				}
				if tier.Amount == 0 && (lostWithExplosion == 0 || lostWithExtra == 0) {
					t.Errorf("losing units: %d with explosions, %d with Extra stages", lostWithExplosion, lostWithExtra)
				}
				// 1 × s EUR has a single form; every other winning tier has several.
				if tier.Amount > table.Amounts[0] && len(combos) < 2 {
					t.Errorf("tier %s is always shown the same way: %v", name, combos)
				}
			}
		})
	}
}

// amountsShown is the sorted multiset of amounts a unit shows.
func amountsShown(u *rules.Unit) []int64 {
	var out []int64
	for _, b := range []*rules.Board{&u.B1, &u.B2} {
		for _, s := range b {
			if s.Kind == rules.Amount {
				out = append(out, s.Amount)
			}
		}
	}
	slices.Sort(out)
	return out
}

// The same randomness gives the same unit: emissions are reproducible from their seed.
func TestDeterministic(t *testing.T) {
	def := defaultDef(t)
	table, _ := def.Table(300)
	g, _ := New(def, table)
	var a, b rules.Unit
	for _, prize := range []int64{0, 300, 3600, 6000000} {
		r1 := NewStream([32]byte{9})
		r2 := NewStream([32]byte{9})
		if err := g.Unit(&a, prize, r1); err != nil {
			t.Fatal(err)
		}
		if err := g.Unit(&b, prize, r2); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("prize %d: two units from the same stream differ", prize)
		}
	}
}

func TestRejectsUnknownPrize(t *testing.T) {
	def := defaultDef(t)
	table, _ := def.Table(100)
	g, _ := New(def, table)
	var u rules.Unit
	if err := g.Unit(&u, 1300, NewStream([32]byte{1})); err == nil {
		t.Fatal("a prize outside the table was generated")
	}
}

func BenchmarkUnit(b *testing.B) {
	def := defaultDef(b)
	table, _ := def.Table(100)
	g, _ := New(def, table)
	rng := NewStream([32]byte{1})
	// The block's mix: about three losing units in four.
	prizes := make([]int64, 0, 1000)
	for _, tier := range table.Tiers {
		for range max(1, tier.Count/1000) {
			prizes = append(prizes, tier.Amount)
		}
	}
	var u rules.Unit
	for i := 0; b.Loop(); i++ {
		if err := g.Unit(&u, prizes[i%len(prizes)], rng); err != nil {
			b.Fatal(err)
		}
	}
}

// Stream.IntN is uniform: a chi-square test over small ranges, where a bias would show.
func TestStreamIntNIsUniform(t *testing.T) {
	s := NewStream([32]byte{42})
	for _, n := range []int{2, 3, 6, 7, 41, 42, 10000} {
		counts := make([]int, n)
		draws := 2000 * n
		for range draws {
			x := s.IntN(n)
			if x < 0 || x >= n {
				t.Fatalf("IntN(%d) = %d", n, x)
			}
			counts[x]++
		}
		expected := float64(draws) / float64(n)
		chi2 := 0.0
		for _, c := range counts {
			d := float64(c) - expected
			chi2 += d * d / expected
		}
		// For n−1 degrees of freedom, mean n−1 and standard deviation √(2(n−1)).
		df := float64(n - 1)
		if chi2 > df+6*math.Sqrt(2*df) {
			t.Errorf("IntN(%d): chi-square %.1f for %v degrees of freedom", n, chi2, df)
		}
	}
}

// BenchmarkStreamIntN is one bounded draw, the generator's unit of randomness (a board takes
// about sixty).
func BenchmarkStreamIntN(b *testing.B) {
	s := NewStream([32]byte{1})
	sink := 0
	for i := 0; b.Loop(); i++ {
		sink += s.IntN(42 - i%41)
	}
	_ = sink
}

// Shuffle is uniform over permutations: every permutation of 4 and of 5 elements comes up as
// often as chance says (chi-square), and each of 42 positions receives each element evenly.
func TestShuffleIsUniform(t *testing.T) {
	s := NewStream([32]byte{7})
	for _, n := range []int{4, 5} {
		counts := map[string]int{}
		perms := 1
		for k := 2; k <= n; k++ {
			perms *= k
		}
		draws := 3000 * perms
		for range draws {
			p := []byte("abcde")[:n]
			p = append([]byte(nil), p...)
			Shuffle(s, p)
			counts[string(p)]++
		}
		if len(counts) != perms {
			t.Fatalf("%d elements: %d permutations seen, want %d", n, len(counts), perms)
		}
		chi2, expected := 0.0, float64(draws)/float64(perms)
		for _, c := range counts {
			chi2 += (float64(c) - expected) * (float64(c) - expected) / expected
		}
		if df := float64(perms - 1); chi2 > df+6*math.Sqrt(2*df) {
			t.Errorf("%d elements: chi-square %.1f for %v degrees of freedom", n, chi2, df)
		}
	}
	var at [42][42]int
	const rounds = 42 * 500
	for range rounds {
		var p [42]int
		for i := range p {
			p[i] = i
		}
		Shuffle(s, p[:])
		for pos, v := range p {
			at[pos][v]++
		}
	}
	chi2, expected := 0.0, float64(rounds)/42
	for pos := range at {
		for v := range at[pos] {
			chi2 += (float64(at[pos][v]) - expected) * (float64(at[pos][v]) - expected) / expected
		}
	}
	if df := float64(41 * 41); chi2 > df+6*math.Sqrt(2*df) {
		t.Errorf("positions of 42: chi-square %.1f for %v degrees of freedom", chi2, df)
	}
}

func BenchmarkShuffle42(b *testing.B) {
	s := NewStream([32]byte{1})
	var p [42]byte
	for b.Loop() {
		Shuffle(s, p[:])
	}
}
