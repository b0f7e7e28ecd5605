package data

import (
	"math"
	"slices"
	"strings"
)

// HistogramBins is the number of equal-width bins of a numeric column's
// Histogram (issue 15: a histogram per dataset column). It is fixed so a
// profile's size does not depend on the data and columns read alike; it is
// the count Sturges' rule, ⌈log2 n⌉ + 1 (Sturges, "The choice of a class
// interval", JASA 21, 1926), gives at about 5·10^5 rows, and 20 bars stay
// legible on a dashboard. Integer columns spanning fewer values get one bin
// per value (see Histogram).
const HistogramBins = 20

// Histogram is the distribution of a numeric column's finite values in
// equal-width bins: bin i covers [Low + i·w, Low + (i+1)·w) with
// w = (High − Low)/len(Counts), the last bin also holding High.
//
// The bins span [min, max] of the finite values in HistogramBins bins, except
// for an int64 or bool column whose values span fewer than HistogramBins
// integers: it gets one bin per integer, centred on it (Low = min − ½,
// High = max + ½). A float column holding one value has a single bin with
// Low = High. ±Inf cells are counted in NegInf and PosInf, not in a bin, so
// the counts, NegInf and PosInf add up to the column's non-null cells.
type Histogram struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Counts []int   `json:"counts"`
	NegInf int     `json:"neg_inf"`
	PosInf int     `json:"pos_inf"`
}

// newHistogramFor returns the empty histogram of a column whose finite values
// span [lo, hi] (lo ≤ hi), following the bin rule of Histogram.
func newHistogramFor(dtype DType, lo, hi float64) *Histogram {
	if (dtype == Int64 || dtype == Bool) && hi-lo < HistogramBins {
		return &Histogram{Low: lo - 0.5, High: hi + 0.5, Counts: make([]int, int(hi-lo)+1)}
	}
	if lo == hi {
		return &Histogram{Low: lo, High: hi, Counts: make([]int, 1)}
	}
	return &Histogram{Low: lo, High: hi, Counts: make([]int, HistogramBins)}
}

// add counts a finite value within [Low, High].
func (h *Histogram) add(v float64) {
	n := len(h.Counts)
	if h.High == h.Low {
		h.Counts[0]++
		return
	}
	// Halved so that High − Low cannot overflow for values near ±MaxFloat64.
	frac := (v/2 - h.Low/2) / (h.High/2 - h.Low/2)
	b := int(math.Floor(frac * float64(n)))
	h.Counts[min(max(b, 0), n-1)]++
}

// TopValuesShown is how many of a text column's most frequent values its profile
// lists.
const TopValuesShown = 10

// What counting a text column's values may hold, whatever the file (issue 17):
// the distinct values tracked, shared by the text columns (at least
// minTrackedValues and at most maxTrackedValues each), and the longest value
// tracked. A column exceeding either is not categorical and gets no top values.
var distinctValueBudget = 1 << 14

const (
	minTrackedValues, maxTrackedValues = 16, 256
	maxTrackedValueBytes               = 128
)

// ValueCount is a text value and the number of cells holding it.
type ValueCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// valueCounter counts a text column's distinct values exactly while they stay
// few and short, so the top values of a categorical column are exact and an
// identifier or free-text column costs at most its share of the budget.
type valueCounter struct {
	counts  map[string]int
	limit   int
	tooMany bool
}

// newValueCounters sizes the counters of cols' text columns from the budget.
func newValueCounters(cols []columnStats) {
	text := 0
	for j := range cols {
		if cols[j].dtype == String {
			text++
		}
	}
	if text == 0 {
		return
	}
	limit := min(maxTrackedValues, max(minTrackedValues, distinctValueBudget/text))
	for j := range cols {
		if cols[j].dtype == String {
			cols[j].values = &valueCounter{counts: map[string]int{}, limit: limit}
		}
	}
}

// add counts one non-null cell.
func (v *valueCounter) add(s string) {
	if v.tooMany {
		return
	}
	if n, ok := v.counts[s]; ok {
		v.counts[s] = n + 1
		return
	}
	if len(v.counts) == v.limit || len(s) > maxTrackedValueBytes {
		v.tooMany, v.counts = true, nil
		return
	}
	v.counts[strings.Clone(s)] = 1
}

// top returns the most frequent values, most frequent first (ties by value),
// and the number of distinct values; nil and 0 when the column is not
// categorical or has no value.
func (v *valueCounter) top() ([]ValueCount, int) {
	if v == nil || v.tooMany || len(v.counts) == 0 {
		return nil, 0
	}
	out := make([]ValueCount, 0, len(v.counts))
	for s, n := range v.counts {
		out = append(out, ValueCount{Value: s, Count: n})
	}
	slices.SortFunc(out, func(a, b ValueCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out[:min(len(out), TopValuesShown)], len(out)
}
