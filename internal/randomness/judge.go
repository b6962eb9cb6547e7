package randomness

import (
	"math"
)

// UniformityBlocks is the fewest blocks over which the uniformity of a test's p-values is
// judged: NIST SP 800-22 §4.2.2 asks for at least 55 sequences, so that each of its 10 bins
// expects 5.5 of them.
const UniformityBlocks = 55

// NISTUniformity is the level NIST SP 800-22 §4.2.2 sets for the uniformity of p-values.
const NISTUniformity = 0.0001

// Verdict is the judgement of an emission's sale orders: the results of each block, and, for each
// test, the judgement of its results across the blocks.
//
// A fair emission fails one block's test in a hundred (that is what 99 % means), so no verdict
// can ask every block to pass every test: an emission of 50 blocks and 11 tests would then fail
// more often than not. As NIST SP 800-22 §4.2 judges many sequences, each test is judged by how
// many blocks pass it and by how its p-values spread, and the verdict's levels are set by the
// number of tests T that ran, so that a fair emission fails with probability at most Alpha
// (1 %), however many blocks it has. Each test is judged three ways, each at level Alpha/(4T)
// (the proportion at Alpha/(4T) on each side):
//
//  1. the proportion of blocks that pass it must be within NIST's interval
//     p̂ ± 3 √(p̂ (1 − p̂) / m), p̂ = 0.99 (§4.2.1), or, where that interval is too narrow for T
//     tests or for few blocks (it is a normal approximation, of one test), within the exact
//     binomial bounds a fair emission leaves with probability Alpha/(4T) on each side;
//  2. its smallest p-value, over the m blocks, must not be improbable for m fair blocks
//     (Tippett's method: 1 − (1 − p_min)^m ≥ Alpha/(4T)), which fails a single biased block
//     however many blocks there are, and is the only judgement of an emission of one block;
//  3. from 55 blocks, its p-values must be uniform (§4.2.2): the chi-square of their counts in
//     10 bins, P-value_T ≥ 0.0001 (NIST's level), or Alpha/(4T) if smaller.
type Verdict struct {
	Blocks []Block
	Tests  []Summary // in the order of the first block's results
	Pass   bool
}

// Summary is the judgement of one test across an emission's blocks.
type Summary struct {
	Test   Test
	Blocks int // the blocks that ran it
	Failed int // the blocks whose p-value is below Alpha

	// MinFailed and MaxFailed are the failures allowed: the proportion judgement passes when
	// MinFailed ≤ Failed ≤ MaxFailed.
	MinFailed, MaxFailed int
	// NISTLow and NISTHigh are NIST's interval for the proportion of blocks passing.
	NISTLow, NISTHigh float64
	Proportion        bool // within the allowed failures

	MinP    float64 // the smallest p-value
	Tippett float64 // 1 − (1 − MinP)^Blocks
	Extreme bool    // Tippett ≥ Level

	// Uniformity is NIST's P-value_T of the p-values, from UniformityBlocks blocks (see
	// UniformityJudged); 0 below.
	Uniformity float64
	Uniform    bool // Uniformity ≥ UniformityLevel, or too few blocks to judge

	Level           float64 // Alpha/(4T): the level of the proportion and Tippett judgements
	UniformityLevel float64 // min(NISTUniformity, Level)
	Pass            bool
}

// UniformityJudged says whether there are blocks enough to judge the uniformity of p-values.
func (s *Summary) UniformityJudged() bool { return s.Blocks >= UniformityBlocks }

// PassShare is the share of the blocks that pass the test.
func (s *Summary) PassShare() float64 {
	if s.Blocks == 0 {
		return 0
	}
	return float64(s.Blocks-s.Failed) / float64(s.Blocks)
}

// Judge judges the results of an emission's blocks, test by test.
func Judge(blocks []Block) Verdict {
	v := Verdict{Blocks: blocks, Pass: true}
	index := map[string]int{}
	var ps [][]float64
	for _, b := range blocks {
		for _, r := range b.Results {
			i, ok := index[r.Test.String()]
			if !ok {
				i = len(v.Tests)
				index[r.Test.String()] = i
				v.Tests = append(v.Tests, Summary{Test: r.Test, MinP: 1})
				ps = append(ps, nil)
			}
			ps[i] = append(ps[i], r.P)
		}
	}
	level := Alpha / float64(4*max(1, len(v.Tests)))
	for i := range v.Tests {
		judge(&v.Tests[i], ps[i], level)
		v.Pass = v.Pass && v.Tests[i].Pass
	}
	return v
}

func judge(s *Summary, ps []float64, level float64) {
	m := len(ps)
	s.Blocks, s.Level = m, level
	s.UniformityLevel = math.Min(NISTUniformity, level)
	for _, p := range ps {
		if p < Alpha {
			s.Failed++
		}
		s.MinP = math.Min(s.MinP, p)
	}

	// 1. The proportion: NIST's interval, widened to the exact binomial bounds.
	hat := 1 - Alpha
	spread := 3 * math.Sqrt(hat*(1-hat)/float64(m))
	s.NISTLow, s.NISTHigh = hat-spread, hat+spread
	// NIST's interval as counts of failures: passing share ≥ low ⇔ failures ≤ m (1 − low).
	nistMax := int(math.Floor(float64(m)*(1-s.NISTLow) + 1e-9))
	nistMin := max(0, int(math.Ceil(float64(m)*(1-s.NISTHigh)-1e-9)))
	// The exact bounds: the fewest failures above which a fair emission goes with probability
	// at most level, and the most below which it goes with probability at most level.
	hi := 0
	for hi < m && BinomialAtLeast(hi+1, m, Alpha) > level {
		hi++
	}
	lo := 0
	for lo < m && BinomialAtMost(lo, m, Alpha) <= level {
		lo++
	}
	s.MaxFailed = max(nistMax, hi)
	s.MinFailed = min(nistMin, lo)
	s.Proportion = s.MinFailed <= s.Failed && s.Failed <= s.MaxFailed

	// 2. Tippett's method: the most extreme block.
	s.Tippett = -math.Expm1(float64(m) * math.Log1p(-s.MinP))
	if s.MinP >= 1 {
		s.Tippett = 1
	}
	s.Extreme = s.Tippett >= level

	// 3. NIST's uniformity of p-values: 10 bins, chi-square with 9 degrees of freedom.
	s.Uniform = true
	if s.UniformityJudged() {
		var bins [10]int
		for _, p := range ps {
			bins[min(9, int(p*10))]++
		}
		want := float64(m) / 10
		x := 0.0
		for _, f := range bins {
			d := float64(f) - want
			x += d * d / want
		}
		s.Uniformity = ChiSquare(x, 9)
		s.Uniform = s.Uniformity >= s.UniformityLevel
	}
	s.Pass = s.Proportion && s.Extreme && s.Uniform
}
