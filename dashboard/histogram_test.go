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
