package symbolic

import (
	"context"
	"math"
	"testing"
)

// gaussianProblem is y = exp(−(x0/x1)²/2)/x1 over cols positive inputs, of
// which the others are distractors.
func gaussianProblem(cols, n int) *problem {
	rng := newTestRand(3)
	X := make([][]float64, cols)
	for j := range X {
		X[j] = make([]float64, n)
		for i := range X[j] {
			X[j][i] = 1 + 2*rng.Float64()
		}
	}
	y := make([]float64, n)
	for i := range y {
		r := X[0][i] / X[1][i]
		y[i] = math.Exp(-r*r/2) / X[1][i]
	}
	return testProblem(X, y, Options{})
}

// A regression whose time is up before it starts solves nothing: forward
// selection, STLSQ and the pair search return no model (issue 18, item 4).
func TestSparseRegressionStopsWhenTimeIsUp(t *testing.T) {
	p := gaussianProblem(4, 100)
	y := make([]float64, len(p.y))
	for i := range y {
		y[i] = p.cols[0][i] + 2*p.cols[1][i]*p.cols[2][i]
	}
	s := newSparseRegression(buildLibrary(p), y, nil)
	cand := s.independent()
	if len(s.forward(cand, 4, 3)) == 0 || len(s.stlsq(cand)) == 0 || len(s.bestPairs(cand, 4)) == 0 {
		t.Fatal("without a deadline the regression finds nothing; the test shows nothing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.stop = func() bool { return ctx.Err() != nil }
	if m := s.forward(cand, 4, 3); len(m) != 0 {
		t.Errorf("forward after the deadline: %d models, want none", len(m))
	}
	if m := s.stlsq(cand); len(m) != 0 {
		t.Errorf("stlsq after the deadline: %d models, want none", len(m))
	}
	if m := s.bestPairs(cand, 4); len(m) != 0 {
		t.Errorf("bestPairs after the deadline: %d models, want none", len(m))
	}
}

// A deadline that passes while the exponential pass prepares its library
// (the fake clock runs out after its third reading) stops the pass before
// its regression: it returns no seed.
func TestExponentialSeedsStopAtDeadline(t *testing.T) {
	p := gaussianProblem(4, 100)
	if len(exponentialSeeds(p, buildLibrary(p), 1)) == 0 {
		t.Fatal("without a deadline the pass seeds nothing; the test shows nothing")
	}
	readings := 0
	p.expired = func() bool { readings++; return readings > 3 }
	if seeds := exponentialSeeds(p, buildLibrary(p), 1); len(seeds) != 0 {
		t.Errorf("%d seeds after the deadline, want none", len(seeds))
	}
}

// The screened squared ratios (more than maxRatioTerms) stop at the
// deadline and return nothing.
func TestSquaredRatiosStopAtDeadline(t *testing.T) {
	p := gaussianProblem(20, 50)
	b := newTermBuilder(p.g)
	if len(squaredRatios(p, b)) == 0 {
		t.Fatal("no ratios without a deadline")
	}
	p.expired = func() bool { return true }
	if r := squaredRatios(p, b); len(r) != 0 {
		t.Errorf("%d ratios after the deadline, want none", len(r))
	}
}

// Up to 10 inputs every squared ratio is kept, in pair order; beyond, the
// screen keeps maxRatioTerms of them and the law's own ratio (x0/x1)²
// survives among 50 and 200 inputs.
func TestSquaredRatiosScreen(t *testing.T) {
	for _, cols := range []int{10, 50, 200} {
		p := gaussianProblem(cols, 200)
		b := newTermBuilder(p.g)
		r := squaredRatios(p, b)
		want, _ := b.monomial([]int{0, 1}, []float64{2, -2})
		found := false
		for _, term := range r {
			if term.t.hash() == want.hash() {
				found = true
			}
		}
		if !found {
			t.Errorf("%d inputs: (x0/x1)² screened out", cols)
		}
		if n := min(cols*(cols-1), maxRatioTerms); len(r) != n {
			t.Errorf("%d inputs: %d ratios, want %d", cols, len(r), n)
		}
		if cols <= 10 {
			at := 0
			for _, i := range p.g.vars {
				for _, j := range p.g.vars {
					if i == j {
						continue
					}
					m, _ := b.monomial([]int{i, j}, []float64{2, -2})
					if r[at].t.hash() != m.hash() {
						t.Fatalf("%d inputs: ratio %d is not (x%d/x%d)²", cols, at, i, j)
					}
					at++
				}
			}
		}
	}
}
