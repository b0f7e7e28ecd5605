package conservation

import (
	"errors"
	"fmt"
	"slices"
)

// Options tunes Find. Zero values select the defaults.
type Options struct {
	// MaxDegree is the highest total degree of the monomial terms (default
	// 2; past 16 variables, where degree 2 would give more than
	// maxLibraryTerms candidate terms, the search is grouped, see groups.go).
	// A degree that is set is kept, and a library too large for it is
	// refused.
	MaxDegree int
	// Tolerance is the largest relative variation (see Quantity) of an
	// accepted quantity of one or two terms (default 0.02); a quantity of n
	// terms must stay within Tolerance/(n-1), both on the data and, on
	// average, on trajectories left out of the fit.
	Tolerance float64
	// DisableNoiseModel turns off noise-aware acceptance (see noise.go):
	// by default a quantity whose relative variation exceeds Tolerance is
	// still accepted when, on time-ordered trajectories whose terms are well
	// resolved above their measurement noise, its variation is what the
	// noise estimated from the data explains (and its relative variation is
	// at most 0.2, scaled like Tolerance by the number of terms).
	DisableNoiseModel bool
	// MaxQuantities caps how many independent quantities are returned
	// (default 3); in a grouped search (see groups.go) it caps those of each
	// group.
	MaxQuantities int
	// Groups, when set, replaces the grouping of a grouped search: each
	// group of variables (by name) is searched alone, at MaxDegree or else
	// at DefaultDegree of its size, and variables in no group are not
	// searched. A caller that reruns a search on resampled trajectories (a
	// bootstrap) passes the Result.Groups of the first search, so that the
	// reruns search the same groups and skip the grouping's cost.
	Groups [][]string
}

const (
	defaultMaxDegree     = 2
	defaultTolerance     = 0.02
	defaultMaxQuantities = 3

	// maxLibraryTerms bounds the candidate library so that the sparse search
	// stays cheap; it allows, for example, 8 variables at degree 3.
	maxLibraryTerms = 200
)

// DefaultDegree is the MaxDegree of a library of vars variables when it is
// left at zero: the default, lowered as far as needed (to 1 at least) for
// the library to hold at most maxLibraryTerms candidate terms. Find
// searches more than maxWholeVariables variables in groups, each at
// DefaultDegree of its size (see groups.go).
func DefaultDegree(vars int) int {
	d := defaultMaxDegree
	for d > 1 && librarySize(vars, d) > maxLibraryTerms {
		d--
	}
	return d
}

// CheckVariables returns the error Find returns at the default degree for
// vars variables, and nil when it takes them: a caller can refuse such a
// search before it starts. Past maxWholeVariables the search is grouped
// (see groups.go), and every group fits the library at its default degree,
// so only more than maxVariables variables are refused.
func CheckVariables(vars int) error {
	if vars > maxVariables {
		return fmt.Errorf("conservation: %d variables are more than the %d a conservation search takes (its grouping compares every pair of variables)",
			vars, maxVariables)
	}
	return nil
}

// checkLibrary refuses a library of more than maxLibraryTerms terms.
func checkLibrary(vars, degree int) error {
	if n := librarySize(vars, degree); n > maxLibraryTerms {
		return fmt.Errorf("conservation: %d variables at degree %d give %d candidate terms, more than %d",
			vars, degree, n, maxLibraryTerms)
	}
	return nil
}

// namedGroups is the grouping of Options.Groups: the groups by index,
// each in input order.
func namedGroups(named [][]string, names []string) (grouping, error) {
	index := make(map[string]int, len(names))
	for j, n := range names {
		index[n] = j
	}
	var g grouping
	for _, grp := range named {
		if len(grp) == 0 {
			return grouping{}, errors.New("conservation: Options.Groups holds an empty group")
		}
		var idx []int
		for _, n := range grp {
			j, ok := index[n]
			if !ok {
				return grouping{}, fmt.Errorf("conservation: Options.Groups names %q, which is not a variable", n)
			}
			idx = append(idx, j)
		}
		slices.Sort(idx)
		g.groups = append(g.groups, slices.Compact(idx))
	}
	return g, nil
}

// withDefaults fills zero fields and rejects values that make no sense.
func (o Options) withDefaults() (Options, error) {
	if o.MaxDegree == 0 {
		o.MaxDegree = defaultMaxDegree
	}
	if o.Tolerance == 0 {
		o.Tolerance = defaultTolerance
	}
	if o.MaxQuantities == 0 {
		o.MaxQuantities = defaultMaxQuantities
	}
	switch {
	case o.MaxDegree < 1:
		return o, fmt.Errorf("conservation: MaxDegree must be at least 1, got %d", o.MaxDegree)
	case !(o.Tolerance > 0 && o.Tolerance < 1):
		return o, fmt.Errorf("conservation: Tolerance must be in (0, 1), got %g", o.Tolerance)
	case o.MaxQuantities < 1:
		return o, fmt.Errorf("conservation: MaxQuantities must be at least 1, got %d", o.MaxQuantities)
	}
	return o, nil
}
