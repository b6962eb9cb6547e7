package randomness

import (
	"math"
	"testing"
)

// near says whether got is want to a relative tolerance.
func near(got, want, rel float64) bool {
	return got == want || math.Abs(got-want) <= rel*math.Abs(want)
}

// Known answers for every p-value function. The six-digit values are the worked examples of NIST
// SP 800-22 rev. 1a (section of each given), which print six decimals; the others were computed
// with mpmath 1.3.0 at 40 digits (gammainc(df/2, x/2, inf, regularized=True), erfc(z/sqrt(2)),
// 2·nsum((-1)^(j-1) exp(-2j²λ²)), and the binomial sums), and agree with SciPy's
// chi2.sf, 2·norm.sf, kstwobign.sf and binom.sf where SciPy prints them (kstwobign.sf(1.0) =
// 0.26999967167735456).
func TestPValuesKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
		rel       float64
	}{
		// NIST §2.2.8, block frequency: χ² = 1, N = 3 blocks: igamc(3/2, 1/2).
		{"NIST 2.2.8 χ²(3) = 1", ChiSquare(1, 3), 0.801252, 1e-6},
		// NIST §2.4.8, longest run of ones: χ² = 4.882605, K = 3.
		{"NIST 2.4.8 χ²(3) = 4.882605", ChiSquare(4.882605, 3), 0.180598, 1e-5},
		// NIST §2.11.8, serial: igamc(2, 0.8) and igamc(1, 0.4).
		{"NIST 2.11.8 χ²(4) = 1.6", ChiSquare(1.6, 4), 0.808792, 1e-6},
		{"NIST 2.11.8 χ²(2) = 0.8", ChiSquare(0.8, 2), 0.670320, 1e-6},
		{"χ²(99) = 123", ChiSquare(123, 99), 0.05144491699748873, 1e-12},
		{"χ²(99) = 300", ChiSquare(300, 99), 4.2266534644196257e-22, 1e-10},
		{"χ²(99) = 60", ChiSquare(60, 99), 0.99931999704984858, 1e-13},
		{"χ²(9) = 9", ChiSquare(9, 9), 0.43727418891386706, 1e-13},
		{"χ²(1) = 0.001", ChiSquare(0.001, 1), 0.97477287936996039, 1e-13},
		{"χ²(5) = 0", ChiSquare(0, 5), 1, 0},

		// NIST §2.1.8, frequency (monobit): s_obs = 0.632455532.
		{"NIST 2.1.8 erfc(0.632455532/√2)", Normal(0.632455532), 0.527089, 1e-6},
		// NIST §2.3.8, runs: erfc(|7 − 2·10·0.6·0.4| / (2·√(2·10)·0.6·0.4)) = erfc(z/√2).
		{"NIST 2.3.8 runs", Normal(math.Sqrt2 * 2.2 / (2 * math.Sqrt(20) * 0.24)), 0.147232, 1e-5},
		{"z = 3", Normal(3), 0.0026997960632601891, 1e-13},
		{"z = −10", Normal(-10), 1.5239706048321052e-23, 1e-12},
		{"z = 37", Normal(37), 1.1451142445049154e-299, 1e-10},

		{"K(0.3)", Kolmogorov(0.3), 0.99999069419866543, 1e-13},
		{"K(0.5)", Kolmogorov(0.5), 0.96394524366487509, 1e-13},
		{"K(1.0)", Kolmogorov(1.0), 0.26999967167735452, 1e-13},
		{"K(1.17), theta form", Kolmogorov(1.17), 0.12939004218561883, 1e-12},
		{"K(1.19), alternating series", Kolmogorov(1.19), 0.11774229287977168, 1e-12},
		{"K(1.3581), the 5 % point", Kolmogorov(1.3581), 0.049999630431667413, 1e-12},
		{"K(1.6276), the 1 % point", Kolmogorov(1.6276), 0.010001537333060772, 1e-12},
		{"K(2.5)", Kolmogorov(2.5), 7.4533063441573416e-6, 1e-12},
		{"K(5)", Kolmogorov(5), 3.8574996959278356e-22, 1e-12},

		{"P(Bin(1, 0.01) ≥ 1)", BinomialAtLeast(1, 1, 0.01), 0.01, 1e-13},
		{"P(Bin(50, 0.01) ≥ 3)", BinomialAtLeast(3, 50, 0.01), 0.013817270830600396, 1e-12},
		{"P(Bin(50, 0.01) ≥ 5)", BinomialAtLeast(5, 50, 0.01), 0.00014568926807182698, 1e-11},
		{"P(Bin(100, 0.01) ≥ 10)", BinomialAtLeast(10, 100, 0.01), 7.6315875322606195e-8, 1e-11},
		{"P(Bin(1000, 0.01) ≥ 20)", BinomialAtLeast(20, 1000, 0.01), 0.0032883597877274671, 1e-11},
		{"P(Bin(1000, 0.01) ≤ 0)", BinomialAtMost(0, 1000, 0.01), 4.3171247410658242e-5, 1e-11},
		{"P(Bin(1000, 0.01) ≤ 2)", BinomialAtMost(2, 1000, 0.01), 0.0026794319937915335, 1e-11},
		{"P(Bin(50, 0.01) ≤ 0)", BinomialAtMost(0, 50, 0.01), 0.60500606713753664, 1e-12},
		{"P(Bin(50, 0.01) ≥ 0)", BinomialAtLeast(0, 50, 0.01), 1, 0},
		{"P(Bin(50, 0.01) ≥ 51)", BinomialAtLeast(51, 50, 0.01), 0, 0},
	} {
		if !near(c.got, c.want, c.rel) {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
}

// The two forms of the Kolmogorov series meet at λ = 1.18 without a step.
func TestKolmogorovContinuous(t *testing.T) {
	for _, l := range []float64{1.1799999, 1.18, 1.1800001} {
		a, b := Kolmogorov(l), Kolmogorov(l+1e-9)
		if math.Abs(a-b) > 1e-8 {
			t.Errorf("K(%v) = %v, K(%v) = %v", l, a, l+1e-9, b)
		}
	}
	for l := 0.0; l < 8; l += 0.01 {
		if p := Kolmogorov(l); !(p >= 0 && p <= 1) || p < Kolmogorov(l+0.01) {
			t.Fatalf("K(%v) = %v is not a non-increasing probability", l, p)
		}
	}
}
