package symbolic

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/discolab/disco/engine/units"
)

// Options configure Fit. Zero values select the defaults documented on each
// field.
type Options struct {
	Operators      []string               // subset of + - * / ^ sin cos tan exp log sqrt abs tanh asin cosh; empty = DefaultOperators (seeds: also SeedOperators)
	MaxComplexity  int                    // max node count, default 30
	MaxDepth       int                    // default 8
	Generations    int                    // default 200; with a TimeLimit and no Generations, generations are unbounded
	Populations    int                    // islands, default 4
	PopulationSize int                    // per island, default 200
	Seed           int64                  // random seed; equal seeds give equal results without a time limit
	TimeLimit      time.Duration          // 0 = none; when it (or ctx) expires the best-so-far result is returned, not an error
	Progress       func(fraction float64) // may be nil; called with 0..1, non-decreasing, last call 1
	Exclude        []string               // variable names not to use; names not among the inputs are ignored
	// Seeds are models over the same inputs, in the same order, that the
	// search starts from beside its own seeds (see Combine). A seed outside
	// the operators, the usable inputs or the size and depth limits is
	// skipped.
	Seeds []*Model
	// InputUnits gives each input's dimension, in input order (nil:
	// unknown), and TargetUnit the target's. When both are set and every
	// input the search may use has a dimension, the search refuses
	// dimensionally inconsistent candidates (dims.go) as it refuses
	// undefined ones: they get infinite loss where candidates are scored,
	// and printed models that are inconsistent leave the final front.
	InputUnits []*units.Dim
	TargetUnit *units.Dim
}

// DefaultOperators is the operator set used when Options.Operators is empty.
var DefaultOperators = []string{"+", "-", "*", "/", "^", "sqrt", "exp", "log", "sin", "cos"}

// SeedOperators are the functions the seeding passes may write besides
// DefaultOperators when Options.Operators is empty: tanh and cosh for the
// paramagnetic laws n·μ·tanh(μB/kT) and n0/(2·cosh(μB/kT)) (link seeds),
// asin for laws y = asin(u), such as Snell's θ1 = asin(n·sin θ2) (the sine
// target transform). Written with exp instead, the first two need about
// twice the nodes, and asin cannot be written at all. Random trees and
// mutations never draw them: a search whose seeds do not use them is the
// search DefaultOperators define, and a seed that uses them competes in
// the population like any other tree. When the caller lists operators,
// the search and the seeding passes use those and nothing else.
var SeedOperators = []string{"tanh", "cosh", "asin"}

var priors = map[string][]string{
	"physics":       DefaultOperators,
	"polynomial":    {"+", "-", "*", "^"},
	"trigonometric": {"+", "-", "*", "/", "sin", "cos", "tan"},
}

// PriorOperators returns the operator set of a named prior: "physics",
// "polynomial" (powers are then restricted to small positive integers),
// "trigonometric", or "default"/"" for DefaultOperators.
func PriorOperators(prior string) ([]string, error) {
	switch p := strings.ToLower(strings.TrimSpace(prior)); p {
	case "", "default":
		return slices.Clone(DefaultOperators), nil
	default:
		if ops, ok := priors[p]; ok {
			return slices.Clone(ops), nil
		}
	}
	known := []string{"default"}
	for k := range priors {
		known = append(known, k)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("symbolic: unknown prior %q (known: %s)", prior, strings.Join(known, ", "))
}

// settings are the resolved options plus the search's internal constants.
type settings struct {
	maxSize, maxDepth int
	generations       int
	islands, popSize  int
	seed              int64
	tournament        int     // tournament size for parent selection
	parsimony         float64 // adaptive parsimony scale (see island.tournament)
	crossoverRate     float64 // probability a child comes from crossover
	elites            int     // best individuals copied unchanged each generation
	migrationInterval int     // generations between migrations (one epoch)
	migrants          int     // individuals sent to the next island per epoch
	localSearchRate   float64 // probability a child gets a few LM steps
	localSearchIters  int
	polishTop         int // best individuals per island refined each generation
	polishIters       int
	finalIters        int // LM iterations for front members at the end
	exactStallEpochs  int // epochs to keep looking for a simpler exact model
}

func resolve(o Options) settings {
	s := settings{
		maxSize: o.MaxComplexity, maxDepth: o.MaxDepth, generations: o.Generations,
		islands: o.Populations, popSize: o.PopulationSize, seed: o.Seed,
		tournament: 5, parsimony: 20, crossoverRate: 0.5, elites: 2, migrationInterval: 10, migrants: 3,
		localSearchRate: 0.1, localSearchIters: 5, polishTop: 3, polishIters: 10,
		finalIters: 50, exactStallEpochs: 3,
	}
	if s.maxSize <= 0 {
		s.maxSize = 30
	}
	if s.maxDepth <= 0 {
		s.maxDepth = 8
	}
	switch {
	case s.generations > 0:
	case o.TimeLimit > 0:
		// A caller who gives a time budget wants it used; the search
		// still stops early once an exact model stops getting simpler.
		s.generations = math.MaxInt32
	default:
		s.generations = 200
	}
	if s.islands <= 0 {
		s.islands = 4
	}
	if s.popSize <= 0 {
		s.popSize = 200
	}
	s.popSize = max(s.popSize, 8)
	s.tournament = min(s.tournament, s.popSize)
	return s
}
