package engine_test

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/data"
)

// Discover runs the whole pipeline in symbolic mode: the law is found on
// the training rows, tested with negative controls on the held-out rows
// and returned as a scored claim. With epochs set and no time limit the
// result is the same for the same seed.
func ExampleDiscover() {
	rng := rand.New(rand.NewSource(1))
	n := 300
	q, r, f := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range f {
		q[i], r[i] = 1+4*rng.Float64(), 1+4*rng.Float64()
		f[i] = 3 * q[i] / (r[i] * r[i])
	}
	frame := &data.Frame{Rows: n, Columns: []data.Column{
		{Name: "q", DType: data.Float64, Values: q},
		{Name: "r", DType: data.Float64, Values: r},
		{Name: "F", DType: data.Float64, Values: f},
	}}
	spec := engine.Spec{Mode: engine.ModeSymbolic, Targets: []string{"F"}, Seed: 1,
		Parameters: engine.Parameters{Epochs: 100}}
	res, err := engine.Discover(context.Background(), frame, spec, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	best := res.Claims[res.Summary.BestClaimIndex]
	fmt.Println(best.Type, best.Target, "=", best.Expression)
	fmt.Println("negative controls passed:", best.Evidence.NegativeControlsPassed)
	// Output:
	// law F = 3*q/r^2
	// negative controls passed: true
}
