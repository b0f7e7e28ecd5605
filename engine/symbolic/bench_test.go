package symbolic

import (
	"context"
	"testing"
	"time"
)

// BenchmarkFit runs Fit on a few Feynman equations (1000 rows, 5 s limit)
// and reports the fraction recovered exactly as the "exact" metric.
func BenchmarkFit(b *testing.B) {
	for _, id := range []string{"I.12.1", "I.12.2", "I.14.4", "III.17.37", "I.37.4", "damped"} {
		var c feynmanCase
		for _, fc := range feynmanCases {
			if fc.id == id {
				c = fc
			}
		}
		b.Run(id, func(b *testing.B) {
			X, y := c.data(1, 1000)
			Xt, yt := c.data(2, 1000)
			exact := 0
			for i := 0; i < b.N; i++ {
				res, err := Fit(context.Background(), X, y, c.vars, Options{
					Seed: int64(i), Generations: 100000, TimeLimit: 5 * time.Second,
				})
				if err != nil {
					b.Fatal(err)
				}
				if r2(res.Best.Predict(Xt), yt) > 1-1e-9 {
					exact++
				}
			}
			b.ReportMetric(float64(exact)/float64(b.N), "exact")
		})
	}
}

// BenchmarkEvaluate measures one vectorised evaluation with linear scaling
// of a typical mid-size tree on 1000 rows.
func BenchmarkEvaluate(b *testing.B) {
	c := feynmanCases[3] // I.10.7
	X, y := c.data(1, 1000)
	// m_0 / sqrt(1 - (v/c)^2) * 1.5 + v*c
	tr := tree{varNode(0), constNode(1), varNode(1), varNode(2), opNode(opDiv), powNode(2), opNode(opSub),
		opNode(opSqrt), opNode(opDiv), constNode(1.5), opNode(opMul), varNode(1), varNode(2), opNode(opMul), opNode(opAdd)}
	ev := newEvaluator(X, len(y))
	for i := 0; i < b.N; i++ {
		evaluate(ev, y, tr)
	}
}

// BenchmarkConstOptimizer measures 10 LM iterations on the same tree.
func BenchmarkConstOptimizer(b *testing.B) {
	c := feynmanCases[3]
	X, y := c.data(1, 1000)
	tr := tree{varNode(0), constNode(1.2), varNode(1), varNode(2), opNode(opDiv), powNode(2), opNode(opSub),
		opNode(opSqrt), opNode(opDiv), constNode(1.5), opNode(opMul), varNode(1), varNode(2), opNode(opMul), opNode(opAdd)}
	ev := newEvaluator(X, len(y))
	opt := newConstOptimizer(X, y)
	start := evaluate(ev, y, tr)
	for i := 0; i < b.N; i++ {
		ind := start
		opt.optimize(&ind, 10)
	}
}
