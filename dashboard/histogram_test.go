package dashboard

import (
	"bytes"
	"strings"
	"testing"

	"github.com/discolab/disco/dashboard/api"
)

// TestHistogramSVG: bins become bars with gonum/plot, including the single bin of a
// column holding one value (Low = High), which is drawn one unit wide.
func TestHistogramSVG(t *testing.T) {
	for _, h := range []*api.Histogram{
		{Low: 0, High: 10, Counts: []int{1, 0, 3, 2}},
		{Low: 7.5, High: 7.5, Counts: []int{60}},
	} {
		svg, err := histogramSVG(h, "float64")
		if err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "rows") {
			t.Errorf("%+v drew %.200s", h, svg)
		}
	}
}

// TestHistogramSVGLabelsUnitBins: bins one unit wide centred on integers (narrow int64
// and bool columns) are labelled with their values, false and true for a bool column.
func TestHistogramSVGLabelsUnitBins(t *testing.T) {
	for _, tc := range []struct {
		h      *api.Histogram
		dtype  string
		labels []string
	}{
		{&api.Histogram{Low: -0.5, High: 1.5, Counts: []int{3, 5}}, "bool", []string{">false<", ">true<"}},
		{&api.Histogram{Low: 2.5, High: 5.5, Counts: []int{1, 4, 2}}, "int64", []string{">3<", ">4<", ">5<"}},
	} {
		svg, err := histogramSVG(tc.h, tc.dtype)
		if err != nil {
			t.Fatalf("%+v: %v", tc.h, err)
		}
		for _, l := range tc.labels {
			if !strings.Contains(string(svg), l) {
				t.Errorf("%s histogram %+v has no label %s", tc.dtype, tc.h, l)
			}
		}
	}
}
