// Package randomness is the statistical evidence a test lab asks of a block's sale order
// (GLI-19, UKGC RTS 7): tests at 99 % of where the prizes fall in each block, and the judgement
// of those tests across an emission's blocks as NIST SP 800-22 §4.2 judges many sequences.
//
// A block is not a sequence of independent draws. It holds each tier of the prize table exactly
// its count, shuffled (internal/emission, saleOrder). So every test here is conditional on the
// block's own counts: its null hypothesis is that the order is a uniformly random permutation of
// that fixed multiset, and each statistic is compared with its distribution over those
// permutations (hypergeometric, not binomial). The package is pure: the emission package hands it
// orders read back from the stored, committed units.
//
// What is published is a statistic and its p-value, never a position: the statistics are
// symmetric in the segments and the units, so they say how far an order is from random, not
// where its prizes are. The rarest tiers are tested together (see MinPositions), which also
// keeps the top prize's place out of a statistic of one unit.
package randomness

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"starcolor/internal/gamedef"
)

// Alpha is the level of every test: a block passes a test at 99 % confidence when its p-value is
// at least 0.01. It is also the chance, at most, that the verdict of a fair emission is a failure
// (see Judge).
const Alpha = 0.01

// Lags are the distances at which the serial correlation of prizes is tested: neighbours, and
// units a few sales apart.
var Lags = []int{1, 2, 5, 10}

// MinPositions is the fewest units whose positions are tested on their own. A tier of fewer
// (the top prize is one unit a block) has too few positions for a test with any power, and its
// statistic would nearly give its place away: the rarest tiers are tested together, with the next
// rarest added until the group holds at least this many.
const MinPositions = 10

// maxSegments and perSegmentLeast bound the cut of a block for the frequency test: at most 100
// segments, and at least 10 winners and 10 losers expected in each, so that the chi-square law
// holds. A block of 1,000,000 units is cut into 100 segments, one of 1,000 into 24.
const (
	maxSegments     = 100
	perSegmentLeast = 10
)

// Kind is what a test looks at.
type Kind int

// The kinds of test.
const (
	// Segments: the winning units of each of k equal segments of the block against the block's
	// own share of winners: the chi-square of the 2 × k table of winners and losers by segment.
	Segments Kind = iota
	// Runs: the number of runs of wins and of losses (Wald–Wolfowitz), given their counts.
	Runs
	// Serial: the correlation of the prizes of units Lag sales apart.
	Serial
	// Positions: where the units of a tier (or of a group of rare tiers) fall in the block, against
	// the other units (two-sample Kolmogorov–Smirnov).
	Positions
)

// Test names one test, the same in every block of an emission, so that its results can be judged
// across blocks.
type Test struct {
	Kind   Kind
	Lag    int     // Serial: the distance in units
	Prizes []int64 // Positions: the tiers' prizes, in cents, largest first; 0 is the losing tier
}

// String names the test for people: "wins by segment", "positions of 4 €".
func (t Test) String() string {
	switch t.Kind {
	case Segments:
		return "wins by segment"
	case Runs:
		return "runs of wins and losses"
	case Serial:
		return fmt.Sprintf("serial correlation, lag %d", t.Lag)
	case Positions:
		return "positions of " + TierNames(t.Prizes)
	}
	return fmt.Sprintf("test %d", int(t.Kind))
}

// TierNames names tiers by their prizes: "losing", "4 €", "20 000 €, 1 000 €, 100 €".
func TierNames(prizes []int64) string {
	names := make([]string, len(prizes))
	for i, p := range prizes {
		names[i] = "losing"
		if p > 0 {
			names[i] = gamedef.FormatEUR(p)
		}
	}
	return strings.Join(names, ", ")
}

// Result is one test on one block.
type Result struct {
	Test Test
	// Symbol and Value are the statistic: "χ²" with DF degrees of freedom, "z" (standard normal),
	// or "D" (Kolmogorov–Smirnov).
	Symbol string
	DF     int
	Value  float64
	// R is the serial correlation itself, for Serial (its z is Value).
	R float64
	// Units is how many units the test looked at: the block, or a tier's.
	Units int
	// Segments is how many segments the block was cut into, for Segments.
	Segments int
	P        float64
}

// Pass says whether the block passes the test at 99 %.
func (r Result) Pass() bool { return r.P >= Alpha }

// Block is the results of the tests on one block's sale order.
type Block struct {
	Index   int
	Units   int
	Winners int
	Results []Result
	// Grouped lists the tiers too rare to be tested alone, tested together (largest prize first).
	Grouped []int64
	// Skipped says which tests could not run, and why.
	Skipped []string
}

// ErrOrder is a sale order that does not fit its prize table.
var ErrOrder = errors.New("sale order does not fit its prize table")

// Analyse tests one block's sale order: order[i] is the tier, an index in prizes, of the unit
// sold i-th, and prizes[t] is the prize of tier t, in cents (0 for the losing tier). Prizes must
// be distinct: they rank the tiers.
func Analyse(index int, order []byte, prizes []int64) (Block, error) {
	b := Block{Index: index, Units: len(order)}
	counts := make([]int, len(prizes))
	for i, t := range order {
		if int(t) >= len(prizes) {
			return b, fmt.Errorf("%w: unit %d is of tier %d, and the table has %d", ErrOrder, i, t, len(prizes))
		}
		counts[t]++
	}
	seen := map[int64]bool{}
	for _, p := range prizes {
		if seen[p] || p < 0 {
			return b, fmt.Errorf("%w: prizes %v are not distinct and non-negative", ErrOrder, prizes)
		}
		seen[p] = true
	}
	win := make([]bool, len(prizes))
	for t, p := range prizes {
		win[t] = p > 0
		if win[t] {
			b.Winners += counts[t]
		}
	}
	if r, why := segments(order, win, b.Winners); why == "" {
		b.Results = append(b.Results, r)
	} else {
		b.Skipped = append(b.Skipped, "wins by segment: "+why)
	}
	if r, why := runs(order, win, b.Winners); why == "" {
		b.Results = append(b.Results, r)
	} else {
		b.Skipped = append(b.Skipped, "runs of wins and losses: "+why)
	}
	ranks := midranks(prizes, counts)
	for _, lag := range Lags {
		if r, why := serial(order, ranks, counts, lag); why == "" {
			b.Results = append(b.Results, r)
		} else {
			b.Skipped = append(b.Skipped, Test{Kind: Serial, Lag: lag}.String()+": "+why)
		}
	}
	groups, grouped := positionGroups(prizes, counts)
	b.Grouped = grouped
	for _, g := range groups {
		if r, why := positions(order, prizes, g); why == "" {
			b.Results = append(b.Results, r)
		} else {
			b.Skipped = append(b.Skipped, Test{Kind: Positions, Prizes: prizesOf(prizes, g)}.String()+": "+why)
		}
	}
	return b, nil
}

// segments is the frequency of winning units by segment.
//
// With W winners among N units cut into k segments of n_j units, the winners w_j of the segments
// are multivariate hypergeometric, not binomial: the block's count is fixed. Pearson's statistic
// of the 2 × k table of winners and losers by segment, Σ (w_j − E_j)² N² / (n_j W (N − W)) with
// E_j = n_j W / N, has mean exactly (k − 1) N / (N − 1) over the permutations; scaled by
// (N − 1) / N it has mean k − 1 and tends to χ² with k − 1 degrees of freedom. (The binomial
// Σ (w_j − E_j)² / E_j would be too small by the losers' share, 75 % here, and pass anything.)
func segments(order []byte, win []bool, winners int) (Result, string) {
	n := len(order)
	fewer := min(winners, n-winners)
	if fewer < perSegmentLeast {
		return Result{}, fmt.Sprintf("%d winning and %d losing units; it needs at least %d of each", winners, n-winners, perSegmentLeast)
	}
	k := max(2, min(maxSegments, fewer/perSegmentLeast))
	x := segmentStatistic(order, win, winners, k)
	return Result{Test: Test{Kind: Segments}, Symbol: "χ²", DF: k - 1, Value: x, Units: n, Segments: k, P: ChiSquare(x, k-1)}, ""
}

// segmentStatistic is the scaled Pearson statistic of the winners of k segments (see segments).
func segmentStatistic(order []byte, win []bool, winners, k int) float64 {
	n := len(order)
	fn, fw := float64(n), float64(winners)
	x := 0.0
	for j := range k {
		lo, hi := j*n/k, (j+1)*n/k
		w := 0
		for _, t := range order[lo:hi] {
			if win[t] {
				w++
			}
		}
		nj := float64(hi - lo)
		d := float64(w) - nj*fw/fn
		x += d * d * fn * fn / (nj * fw * (fn - fw))
	}
	return x * (fn - 1) / fn
}

// runs is the Wald–Wolfowitz runs test of wins and losses. Given n1 winners and n2 losers, the
// number of runs R over the permutations has mean 1 + 2 n1 n2 / N and variance
// 2 n1 n2 (2 n1 n2 − N) / (N² (N − 1)), and is asymptotically normal. Too few runs is winners
// clustered; too many, winners spread too evenly: both fail.
func runs(order []byte, win []bool, winners int) (Result, string) {
	n := len(order)
	n1, n2 := float64(winners), float64(n-winners)
	if winners < 2 || n-winners < 2 {
		return Result{}, fmt.Sprintf("%d winning and %d losing units; it needs at least 2 of each", winners, n-winners)
	}
	r := 1
	for i := 1; i < n; i++ {
		if win[order[i]] != win[order[i-1]] {
			r++
		}
	}
	mean, variance := runsMoments(n1, n2)
	z := (float64(r) - mean) / math.Sqrt(variance)
	return Result{Test: Test{Kind: Runs}, Symbol: "z", Value: z, Units: n, P: Normal(z)}, ""
}

// runsMoments is the mean and variance of the number of runs of n1 and n2 units over their
// permutations.
func runsMoments(n1, n2 float64) (mean, variance float64) {
	n := n1 + n2
	return 1 + 2*n1*n2/n, 2 * n1 * n2 * (2*n1*n2 - n) / (n * n * (n - 1))
}

// midranks gives each tier the mean rank of its units among the block's prizes, smallest prize
// first: the values the serial correlation is taken of. Ranks, not amounts: with amounts, the
// one top prize of 20 000 € would make the statistic the prizes of its two neighbours, and the
// normal law of the statistic would not hold.
func midranks(prizes []int64, counts []int) []float64 {
	tiers := make([]int, len(prizes))
	for i := range tiers {
		tiers[i] = i
	}
	slices.SortFunc(tiers, func(a, b int) int { return cmp.Compare(prizes[a], prizes[b]) })
	ranks := make([]float64, len(prizes))
	below := 0
	for _, t := range tiers {
		ranks[t] = float64(below) + float64(counts[t]+1)/2
		below += counts[t]
	}
	return ranks
}

// serial is the serial correlation of the prizes' ranks at a lag.
//
// S = Σ_{i<N−L} x_i x_{i+L}, with x the centred, scaled ranks, is a sum over the edges of a graph
// on the N positions: N − L edges, N − 2L positions in two of them. Over the permutations of the
// block its mean and variance are exact functions of the power sums S1…S4 of the values
// (Wald and Wolfowitz 1943, for any graph): with (N)_k the falling factorial,
//
//	E[x_a x_b]         = (S1² − S2) / (N)_2
//	E[x_a² x_b²]       = (S2² − S4) / (N)_2
//	E[x_a² x_b x_c]    = (S1² S2 − S2² − 2 S1 S3 + 2 S4) / (N)_3
//	E[x_a x_b x_c x_d] = (S1⁴ − 6 S1² S2 + 3 S2² + 8 S1 S3 − 6 S4) / (N)_4
//
// for distinct positions, and E[S²] sums them over the pairs of edges: equal, sharing one
// position, or apart. z = (S − E[S]) / √Var[S] is asymptotically normal; r = S / S2 is the
// correlation printed.
func serial(order []byte, ranks []float64, counts []int, lag int) (Result, string) {
	n := len(order)
	if n < 2*lag+2 {
		return Result{}, fmt.Sprintf("%d units; it needs at least %d", n, 2*lag+2)
	}
	fn := float64(n)
	mean := 0.0
	for t, c := range counts {
		mean += float64(c) * ranks[t]
	}
	mean /= fn
	spread := 0.0
	for t, c := range counts {
		d := ranks[t] - mean
		spread += float64(c) * d * d
	}
	if spread == 0 {
		return Result{}, "every unit has the same prize"
	}
	scale := math.Sqrt(spread / fn)
	x := make([]float64, len(ranks))
	var s1, s2, s3, s4 float64
	for t, c := range counts {
		x[t] = (ranks[t] - mean) / scale
		v, fc := x[t], float64(c)
		s1 += fc * v
		s2 += fc * v * v
		s3 += fc * v * v * v
		s4 += fc * v * v * v * v
	}
	s := 0.0
	for i := range n - lag {
		s += x[order[i]] * x[order[i+lag]]
	}
	es, variance := lagMoments(n, lag, s1, s2, s3, s4)
	if !(variance > 0) {
		return Result{}, "the statistic has no spread"
	}
	z := (s - es) / math.Sqrt(variance)
	return Result{Test: Test{Kind: Serial, Lag: lag}, Symbol: "z", Value: z, R: s / s2, Units: n, P: Normal(z)}, ""
}

// lagMoments is the mean and variance of Σ_{i<N−L} x_i x_{i+L} over the permutations of N
// values of power sums s1…s4 (see serial).
func lagMoments(n, lag int, s1, s2, s3, s4 float64) (mean, variance float64) {
	fn := float64(n)
	n2, n3, n4 := fn*(fn-1), fn*(fn-1)*(fn-2), fn*(fn-1)*(fn-2)*(fn-3)
	e11 := (s1*s1 - s2) / n2
	e22 := (s2*s2 - s4) / n2
	e211 := (s1*s1*s2 - s2*s2 - 2*s1*s3 + 2*s4) / n3
	e1111 := (s1*s1*s1*s1 - 6*s1*s1*s2 + 3*s2*s2 + 8*s1*s3 - 6*s4) / n4
	edges := fn - float64(lag)
	sharing := fn - 2*float64(lag) // unordered pairs of edges with one position in common
	apart := edges*(edges-1)/2 - sharing
	mean = edges * e11
	return mean, edges*e22 + 2*sharing*e211 + 2*apart*e1111 - mean*mean
}

// positionGroups gives the sets of tiers whose positions are tested: each tier of at least
// MinPositions units alone, and the rarer ones together, joined by the next rarest tiers until the
// group holds MinPositions. It returns the groups, largest prize first, and the rare tiers'
// prizes.
func positionGroups(prizes []int64, counts []int) (groups [][]int, grouped []int64) {
	var present []int
	for t, c := range counts {
		if c > 0 {
			present = append(present, t)
		}
	}
	// Rarest first; among equal counts, the larger prize first.
	slices.SortStableFunc(present, func(a, b int) int {
		if counts[a] != counts[b] {
			return counts[a] - counts[b]
		}
		return cmp.Compare(prizes[b], prizes[a])
	})
	var rare []int
	inRare := 0
	i := 0
	for ; i < len(present) && counts[present[i]] < MinPositions; i++ {
		rare = append(rare, present[i])
		inRare += counts[present[i]]
	}
	for _, t := range rare {
		grouped = append(grouped, prizes[t])
	}
	for ; len(rare) > 0 && inRare < MinPositions && i < len(present); i++ {
		rare = append(rare, present[i])
		inRare += counts[present[i]]
	}
	if len(rare) > 0 {
		groups = append(groups, rare)
	}
	for ; i < len(present); i++ {
		groups = append(groups, []int{present[i]})
	}
	byPrize := func(a, b int) int { return cmp.Compare(prizes[b], prizes[a]) }
	for _, g := range groups {
		slices.SortFunc(g, byPrize)
	}
	slices.SortFunc(groups, func(a, b []int) int { return byPrize(a[0], b[0]) })
	slices.SortFunc(grouped, func(a, b int64) int { return cmp.Compare(b, a) })
	return groups, grouped
}

func prizesOf(prizes []int64, tiers []int) []int64 {
	out := make([]int64, len(tiers))
	for i, t := range tiers {
		out[i] = prizes[t]
	}
	return out
}

// positions is the two-sample Kolmogorov–Smirnov test of the positions of a group of tiers
// against the positions of the other units. Over the permutations of the block, the group's n
// positions are a uniform n-subset of the N; D = max |F_group − F_others| with
// √(n m / N) D (m = N − n) tending to the Kolmogorov law: the comparison with the uniform law
// corrected for drawing without replacement. The p-value takes Stephens' small-sample
// correction, (√n_e + 0.12 + 0.11/√n_e) D with n_e = n m / N.
func positions(order []byte, prizes []int64, tiers []int) (Result, string) {
	in := make([]bool, len(prizes))
	for _, t := range tiers {
		in[t] = true
	}
	total := len(order)
	n := 0
	for _, t := range order {
		if in[t] {
			n++
		}
	}
	m := total - n
	test := Test{Kind: Positions, Prizes: prizesOf(prizes, tiers)}
	if n == 0 || m == 0 {
		return Result{}, "no unit to compare with"
	}
	fn, fm := float64(n), float64(m)
	a, b := 0, 0
	d := 0.0
	for _, t := range order {
		if in[t] {
			a++
		} else {
			b++
		}
		d = math.Max(d, math.Abs(float64(a)/fn-float64(b)/fm))
	}
	ne := fn * fm / float64(total)
	lambda := (math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d
	return Result{Test: test, Symbol: "D", Value: d, Units: n, P: Kolmogorov(lambda)}, ""
}
