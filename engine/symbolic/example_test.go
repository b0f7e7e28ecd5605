package symbolic_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/discolab/disco/engine/symbolic"
)

// Fit recovers a law from noise-free samples. Without a time limit the
// search is deterministic for its seed.
func ExampleFit() {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200
	m, v := make([]float64, n), make([]float64, n)
	energy := make([]float64, n)
	for i := range energy {
		m[i], v[i] = 1+4*rng.Float64(), 1+4*rng.Float64()
		energy[i] = 0.5 * m[i] * v[i] * v[i]
	}
	res, err := symbolic.Fit(context.Background(), [][]float64{m, v}, energy, []string{"m", "v"},
		symbolic.Options{Generations: 100, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("E =", res.Best.Expression)
	// Output:
	// E = 0.5*m*v^2
}
