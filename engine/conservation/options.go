package conservation

import "fmt"

// Options tunes Find. Zero values select the defaults.
type Options struct {
	// MaxDegree is the highest total degree of the monomial terms (default
	// 2, lowered to 1 when 2 would give more than maxLibraryTerms candidate
	// terms; see DefaultDegree). A degree that is set is kept, and a
	// library too large for it is refused.
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
	// (default 3).
	MaxQuantities int
}

const (
	defaultMaxDegree     = 2
	defaultTolerance     = 0.02
	defaultMaxQuantities = 3

	// maxLibraryTerms bounds the candidate library so that the sparse search
	// stays cheap; it allows, for example, 8 variables at degree 3.
	maxLibraryTerms = 200
)

// DefaultDegree is the MaxDegree Find uses when it is left at zero for
// vars variables: the default, lowered as far as needed (to 1 at least)
// for the library to hold at most maxLibraryTerms candidate terms.
func DefaultDegree(vars int) int {
	d := defaultMaxDegree
	for d > 1 && librarySize(vars, d) > maxLibraryTerms {
		d--
	}
	return d
}

// CheckVariables returns the error Find returns when vars variables make
// more than maxLibraryTerms candidate terms even at DefaultDegree(vars),
// and nil when they fit: a caller can refuse such a search before it
// starts.
func CheckVariables(vars int) error {
	return checkLibrary(vars, DefaultDegree(vars))
}

// checkLibrary refuses a library of more than maxLibraryTerms terms.
func checkLibrary(vars, degree int) error {
	if n := librarySize(vars, degree); n > maxLibraryTerms {
		return fmt.Errorf("conservation: %d variables at degree %d give %d candidate terms, more than %d",
			vars, degree, n, maxLibraryTerms)
	}
	return nil
}

// DegreeNote says why DefaultDegree(vars) is below the default, and is
// empty when it is not.
func DegreeNote(vars int) string {
	if d := DefaultDegree(vars); d < defaultMaxDegree {
		return fmt.Sprintf("library of degree %d: at degree %d the %d variables give %d candidate terms, more than the %d allowed",
			d, defaultMaxDegree, vars, librarySize(vars, defaultMaxDegree), maxLibraryTerms)
	}
	return ""
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
