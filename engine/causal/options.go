package causal

// Options tunes Discover and DiscoverLagged. The zero value selects the
// defaults documented on each field.
type Options struct {
	// Alpha is the significance level of every conditional-independence
	// test. Zero means 0.05.
	Alpha float64
	// MaxConditioningSet bounds the size of conditioning sets in the PC
	// skeleton search (and the number of source parents used in MCI tests).
	// Zero means 3; a negative value means unlimited.
	MaxConditioningSet int
	// Seed makes the bootstrap used to judge LiNGAM orientations
	// reproducible.
	Seed int64
	// MaxLag is the largest lag DiscoverLagged considers. Zero means 2.
	MaxLag int
	// DisableLiNGAM stops Discover after PC and Meek, leaving every edge the
	// independence tests cannot orient undirected.
	DisableLiNGAM bool
}

const (
	defaultAlpha              = 0.05
	defaultMaxConditioningSet = 3
	defaultMaxLag             = 2
)

// withDefaults returns a copy of o with zero fields replaced by defaults.
func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = defaultAlpha
	}
	if o.MaxConditioningSet == 0 {
		o.MaxConditioningSet = defaultMaxConditioningSet
	}
	if o.MaxLag <= 0 {
		o.MaxLag = defaultMaxLag
	}
	return o
}

// maxDepth turns MaxConditioningSet into a level bound for a graph of p
// variables.
func (o Options) maxDepth(p int) int {
	if o.MaxConditioningSet < 0 || o.MaxConditioningSet > p-2 {
		return p - 2
	}
	return o.MaxConditioningSet
}
