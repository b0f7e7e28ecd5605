package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/neural"
	"github.com/discolab/disco/test/bench"
)

// structureCheck is the verdict on a neural-mode claim such as
// "y = f(q, B, v, theta) + g(Ef)" against the equation it was fitted to.
type structureCheck struct {
	Form   string `json:"form"`   // additive, multiplicative or none
	Groups int    `json:"groups"` // number of groups claimed
	// TruthSplitError is neural.SplitError of the true function for the
	// claimed structure on the case's inputs: 0 (up to rounding) when the
	// claim holds.
	TruthSplitError float64 `json:"truth_split_error"`
	Holds           bool    `json:"holds"`
	// TruthSplits says whether the true function has any split into two
	// groups, additive or multiplicative, on these inputs: a claim of
	// "none" then misses structure that is there.
	TruthSplits bool `json:"truth_splits"`
}

// splitHolds is the split error below which a split of an exact function
// counts as holding: rounding, not structure.
const splitHolds = 1e-6

// structureOf checks the claim made on the case at path against the
// equation named name; the error is for the result's error field.
func structureOf(claim, name, path string) (*structureCheck, string) {
	eq, ok := equationNamed(name)
	if !ok {
		return nil, "no equation " + name
	}
	f, err := data.Load(path, "csv")
	if err != nil {
		return nil, err.Error()
	}
	c, err := checkStructure(claim, eq, f)
	if err != nil {
		return nil, err.Error()
	}
	return c, ""
}

// checkStructure parses a neural claim and tests it on the true function.
func checkStructure(claim string, eq bench.Equation, f *data.Frame) (*structureCheck, error) {
	X, err := inputsOf(eq, f)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for j, v := range eq.Vars {
		index[v.Name] = j
	}
	s, err := parseStructure(claim, index)
	if err != nil {
		return nil, err
	}
	truth := equationFunc(eq)
	c := &structureCheck{Form: s.Form, Groups: len(s.Groups), TruthSplitError: neural.SplitError(truth, X, s)}
	c.Holds = c.TruthSplitError <= splitHolds
	c.TruthSplits = anySplit(truth, X)
	return c, nil
}

// parseStructure reads neural.Structure.Describe's output back.
func parseStructure(claim string, index map[string]int) (neural.Structure, error) {
	_, rhs, ok := strings.Cut(claim, " = ")
	if !ok {
		return neural.Structure{}, fmt.Errorf("structure claim %q has no ' = '", claim)
	}
	s := neural.Structure{Form: neural.NoStructure}
	sep := ""
	switch {
	case strings.Contains(rhs, ") + "):
		s.Form, sep = neural.Additive, " + "
	case strings.Contains(rhs, ") * "):
		s.Form, sep = neural.Multiplicative, " * "
	}
	terms := []string{rhs}
	if sep != "" {
		terms = strings.Split(rhs, sep)
	}
	for _, term := range terms {
		open, close := strings.Index(term, "("), strings.LastIndex(term, ")")
		if open < 0 || close < open {
			return s, fmt.Errorf("structure claim %q: term %q is not f(...)", claim, term)
		}
		var group []int
		for _, name := range strings.Split(term[open+1:close], ", ") {
			j, ok := index[name]
			if !ok {
				return s, fmt.Errorf("structure claim %q: unknown variable %q", claim, name)
			}
			group = append(group, j)
		}
		s.Groups = append(s.Groups, group)
	}
	return s, nil
}

// anySplit reports whether f splits into two groups, additively or
// multiplicatively, on X: every bipartition of the inputs is tried.
func anySplit(f func([][]float64) []float64, X [][]float64) bool {
	p := len(X)
	for mask := 1; mask < 1<<(p-1); mask++ {
		var a, b []int
		for j := range p {
			// Input p-1 is always in b, so each bipartition is tried once.
			if mask&(1<<j) != 0 {
				a = append(a, j)
			} else {
				b = append(b, j)
			}
		}
		for _, form := range []string{neural.Additive, neural.Multiplicative} {
			if neural.SplitError(f, X, neural.Structure{Form: form, Groups: [][]int{a, b}}) <= splitHolds {
				return true
			}
		}
	}
	return false
}

// splitRecord is one surrogate's split candidates on one Feynman case, for
// calibrating neural.SplitTolerance: each candidate's split error on the
// surrogate beside the true function's.
type splitRecord struct {
	Name       string           `json:"name"`
	Noise      string           `json:"noise"`
	ValR2      float64          `json:"validation_r2"`
	Tolerance  float64          `json:"tolerance"`
	Candidates []splitCandidate `json:"candidates"`
}

type splitCandidate struct {
	Form      string  `json:"form"`
	Groups    [][]int `json:"groups"`
	Surrogate float64 `json:"surrogate_split_error"`
	Truth     float64 `json:"truth_split_error"`
}

// splits trains a surrogate on every Feynman case as the engine's neural
// mode does by default (200 epochs, the default backbone) and writes every
// split candidate with its split error on the surrogate and on the truth.
func splits(args []string) error {
	fs := flag.NewFlagSet("splits", flag.ExitOnError)
	casesDir := fs.String("cases", "", "directory written by gen (required)")
	out := fs.String("out", "", "results JSON (required)")
	seed := fs.Int64("seed", 1, "surrogate seed")
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	if *casesDir == "" || *out == "" {
		return fmt.Errorf("splits: -cases and -out are required")
	}
	m, err := readManifest(*casesDir)
	if err != nil {
		return err
	}
	var records []splitRecord
	for _, c := range m.Feynman {
		eq, ok := equationNamed(c.Name)
		if !ok {
			return fmt.Errorf("splits: no equation %s", c.Name)
		}
		for _, key := range caseNoise(c) {
			r, err := splitsOf(filepath.Join(*casesDir, c.Files[key]), eq, *seed)
			if err != nil {
				return fmt.Errorf("splits: %s noise %s: %w", c.Name, key, err)
			}
			r.Name, r.Noise = c.Name, key
			fmt.Fprintf(os.Stderr, "splits %-10s noise %-4s R² %.5f, %d candidates\n", c.Name, key, r.ValR2, len(r.Candidates))
			records = append(records, r)
		}
	}
	b, _ := json.MarshalIndent(records, "", "  ")
	return os.WriteFile(*out, append(b, '\n'), 0o644)
}

func splitsOf(path string, eq bench.Equation, seed int64) (splitRecord, error) {
	var r splitRecord
	f, err := data.Load(path, "csv")
	if err != nil {
		return r, err
	}
	X, err := inputsOf(eq, f)
	if err != nil {
		return r, err
	}
	Y, err := f.Matrix([]string{"y"})
	if err != nil {
		return r, err
	}
	m, err := neural.Train(context.Background(), X, Y[0], neural.Options{Epochs: 200, Seed: seed})
	if err != nil {
		return r, err
	}
	// The engine probes the separability on at most 300 evenly spaced rows.
	probe := make([][]float64, len(X))
	step := max(1, len(X[0])/300)
	for j := range X {
		for i := 0; i < len(X[j]); i += step {
			probe[j] = append(probe[j], X[j][i])
		}
	}
	truth := equationFunc(eq)
	r.ValR2, r.Tolerance = m.ValidationR2(), m.SplitTolerance()
	for _, s := range m.SplitCandidates(probe) {
		r.Candidates = append(r.Candidates, splitCandidate{Form: s.Form, Groups: s.Groups,
			Surrogate: neural.SplitError(m.Predict, probe, s), Truth: neural.SplitError(truth, probe, s)})
	}
	return r, nil
}

// inputsOf returns the equation's input columns of a case, in eq.Vars order.
func inputsOf(eq bench.Equation, f *data.Frame) ([][]float64, error) {
	names := make([]string, len(eq.Vars))
	for j, v := range eq.Vars {
		names[j] = v.Name
	}
	return f.Matrix(names)
}

func equationNamed(name string) (bench.Equation, bool) {
	for _, eq := range bench.FeynmanAll {
		if eq.Name == name {
			return eq, true
		}
	}
	return bench.Equation{}, false
}

// equationFunc evaluates the true function on column-major inputs.
func equationFunc(eq bench.Equation) func([][]float64) []float64 {
	return func(X [][]float64) []float64 {
		out := make([]float64, len(X[0]))
		row := make([]float64, len(X))
		for i := range out {
			for j := range X {
				row[j] = X[j][i]
			}
			out[i] = eq.F(row)
		}
		return out
	}
}
