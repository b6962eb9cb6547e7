package randomness

import (
	"math"
	"testing"
)

// blocksOf makes blocks whose first test (the runs test) has the given p-values, and, when
// tests is more than 1, other tests whose p-values all pass, spread evenly.
func blocksOf(ps []float64, tests int) []Block {
	var bs []Block
	fair := passing(len(ps))
	for i, p := range ps {
		b := Block{Index: i, Results: []Result{{Test: Test{Kind: Runs}, P: p}}}
		for lag := 1; lag < tests; lag++ {
			b.Results = append(b.Results, Result{Test: Test{Kind: Serial, Lag: lag}, P: fair[i]})
		}
		bs = append(bs, b)
	}
	return bs
}

// spread is m p-values evenly over (0, 1): what fair blocks give, without the noise.
func spread(m int) []float64 {
	ps := make([]float64, m)
	for i := range ps {
		ps[i] = (float64(i) + 0.5) / float64(m)
	}
	return ps
}

// between is m p-values evenly over [lo, hi).
func between(m int, lo, hi float64) []float64 {
	ps := spread(m)
	for i := range ps {
		ps[i] = lo + (hi-lo)*ps[i]
	}
	return ps
}

// passing is m p-values evenly over [0.01, 1): blocks that all pass.
func passing(m int) []float64 { return between(m, Alpha, 1) }

// The judgement of each test across blocks: NIST's proportion and uniformity, Tippett's method,
// and the levels set by the number of tests.
func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name  string
		ps    []float64
		tests int
		pass  bool
		check func(t *testing.T, s Summary)
	}{
		{"fair p-values over 200 blocks", spread(200), 1, true, nil},
		{"one block failing at 0.005, of one test", []float64{0.005}, 1, true, func(t *testing.T, s Summary) {
			// Alone, a block below 0.01 is one fair block in a hundred; the level is 0.01/4.
			if s.Failed != 1 || s.Level != 0.0025 || !s.Proportion {
				t.Errorf("%+v", s)
			}
		}},
		{"one block at 0.001, of one test", []float64{0.001}, 1, false, nil},
		{"one block at 0.001, of 11 tests", []float64{0.001}, 11, true, func(t *testing.T, s Summary) {
			// With 11 tests, 0.001 is within what the smallest of 11 fair p-values shows.
			if s.Level != 0.01/44 {
				t.Errorf("level %v, want 0.01/44", s.Level)
			}
		}},
		{"one block at 1e-9 among 1,000 fair ones", append(spread(1000), 1e-9), 1, false, func(t *testing.T, s Summary) {
			if s.Extreme || !s.Proportion {
				t.Errorf("Tippett %v, proportion %v: only Tippett's judgement should fail", s.Tippett, s.Proportion)
			}
		}},
		{"8 of 100 blocks at 0.005", append(passing(92), 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005), 1, false, func(t *testing.T, s Summary) {
			// NIST's interval for 100 blocks is 0.99 ± 0.0298: at most 3 failures. The exact
			// bound for one test at 0.0025 allows 5. Eight is beyond both.
			if math.Abs(s.NISTLow-0.96015) > 1e-4 || s.MaxFailed != 5 || s.Proportion {
				t.Errorf("%+v", s)
			}
		}},
		{"5 of 100 blocks at 0.005, of 11 tests", append(passing(95), 0.005, 0.005, 0.005, 0.005, 0.005), 11, true, func(t *testing.T, s Summary) {
			// Outside NIST's interval (3 failures at most), which is one test's: with 11 tests a
			// fair emission shows 5 failures of some test too often to fail it.
			if s.Failed != 5 || s.MaxFailed < 5 {
				t.Errorf("%+v", s)
			}
		}},
		{"19 of 1,000 blocks failing: inside NIST's interval", append(passing(981), repeat(19, 0.005)...), 1, true, func(t *testing.T, s Summary) {
			if s.PassShare() < s.NISTLow || !s.Proportion {
				t.Errorf("%+v", s)
			}
		}},
		{"no block of 1,000 failing: above NIST's interval", passing(1000), 1, false, func(t *testing.T, s Summary) {
			if s.Failed != 0 || s.MinFailed != 1 || s.Proportion {
				t.Errorf("%+v", s)
			}
		}},
		{"100 p-values all between 0.4 and 0.6", between(100, 0.4, 0.6), 1, false, func(t *testing.T, s Summary) {
			if !(s.Uniformity < NISTUniformity) || s.Uniform || !s.Proportion || !s.Extreme {
				t.Errorf("%+v", s)
			}
		}},
		{"54 p-values between 0.4 and 0.6: too few to judge uniformity", between(54, 0.4, 0.6), 1, true, func(t *testing.T, s Summary) {
			if s.UniformityJudged() || !s.Uniform {
				t.Errorf("uniformity judged over 54 blocks: %+v", s)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(blocksOf(c.ps, c.tests))
			if len(v.Tests) != c.tests {
				t.Fatalf("%d tests judged, want %d", len(v.Tests), c.tests)
			}
			if v.Pass != c.pass {
				t.Errorf("pass %v, want %v: %+v", v.Pass, c.pass, v.Tests[0])
			}
			if c.check != nil {
				c.check(t, v.Tests[0])
			}
		})
	}
}

func repeat(n int, p float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = p
	}
	return out
}
