package data

import "math"

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
