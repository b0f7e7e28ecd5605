package causal_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/discolab/disco/engine/causal"
)

// Discover learns a collider, rain -> wet <- sprinkler, from linear
// Gaussian data: the two causes are independent and become dependent given
// their common effect, which orients both edges.
func ExampleDiscover() {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 1000
	rain, sprinkler, wet := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range wet {
		rain[i] = rng.NormFloat64()
		sprinkler[i] = rng.NormFloat64()
		wet[i] = rain[i] + sprinkler[i] + 0.5*rng.NormFloat64()
	}
	g, err := causal.Discover(context.Background(), [][]float64{rain, sprinkler, wet},
		[]string{"rain", "sprinkler", "wet"}, causal.Options{Alpha: 0.01, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range g.Edges {
		arrow := "--"
		if e.Directed {
			arrow = "->"
		}
		fmt.Println(e.From, arrow, e.To)
	}
	// Output:
	// rain -> wet
	// sprinkler -> wet
}
