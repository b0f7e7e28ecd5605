package artifacts

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// plotWidth and plotHeight are the size of plot artifacts; 5x4 inches reads
// well embedded in a web page and in a report.
const (
	plotWidth  = 5 * vg.Inch
	plotHeight = 4 * vg.Inch
)

// rangePad is the share of the data range added at both ends of an axis so
// that extreme points are drawn whole, not cut by the axis lines.
const rangePad = 0.05

// renderSVG draws p on an SVG canvas and returns the document.
func renderSVG(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(plotWidth, plotHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("artifacts: writing SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// checkFinite returns an error naming the first non-finite value in v.
func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("artifacts: %s[%d] is not finite", what, i)
		}
	}
	return nil
}
