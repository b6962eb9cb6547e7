package randomness

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// ChiSquare is P(X ≥ x) for X chi-square with df degrees of freedom: igamc(df/2, x/2), the
// function NIST SP 800-22 §5.5.3 names. The incomplete gamma function is gonum's (a port of
// Cephes), accurate to about 1e-15 relative and down to the smallest float64.
func ChiSquare(x float64, df int) float64 {
	if df <= 0 || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 {
		return 1
	}
	return mathext.GammaIncRegComp(float64(df)/2, x/2)
}

// Normal is P(|Z| ≥ |z|) for Z standard normal: erfc(|z|/√2), the two-sided p-value NIST SP
// 800-22 writes as erfc(s/√2) (§2.1.4).
func Normal(z float64) float64 {
	if math.IsNaN(z) {
		return math.NaN()
	}
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// Kolmogorov is P(K ≥ λ) for K the Kolmogorov distribution, the limit of √n·D for the
// Kolmogorov–Smirnov statistic D: 2 Σ (−1)^(j−1) exp(−2j²λ²). Below λ = 1.18 that series needs
// many terms; its Jacobi theta form, 1 − √(2π)/λ Σ exp(−(2j−1)²π²/(8λ²)), needs three.
func Kolmogorov(lambda float64) float64 {
	switch {
	case math.IsNaN(lambda):
		return math.NaN()
	case lambda <= 0:
		return 1
	case lambda < 1.18:
		sum := 0.0
		for j := 1; j < 100; j++ {
			k := float64(2*j - 1)
			t := math.Exp(-k * k * math.Pi * math.Pi / (8 * lambda * lambda))
			sum += t
			if t <= 1e-17*sum {
				break
			}
		}
		return clamp01(1 - math.Sqrt(2*math.Pi)/lambda*sum)
	}
	sum, sign := 0.0, 1.0
	for j := 1; j < 100; j++ {
		fj := float64(j)
		t := math.Exp(-2 * fj * fj * lambda * lambda)
		sum += sign * t
		if t <= 1e-17*sum {
			break
		}
		sign = -sign
	}
	return clamp01(2 * sum)
}

// BinomialAtLeast is P(X ≥ k) for X binomial of n trials of probability p: the regularized
// incomplete beta function I_p(k, n−k+1), gonum's, exact in the tail where 1 − CDF would round
// to 0.
func BinomialAtLeast(k, n int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// BinomialAtMost is P(X ≤ k) for X binomial of n trials of probability p.
func BinomialAtMost(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	return mathext.RegIncBeta(float64(n-k), float64(k+1), 1-p)
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
