package artifacts

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PredictedVsObserved plots predicted against observed values as a scatter
// with the identity line y = x, on which a perfect model's points would lie,
// and returns the SVG document. Beyond maxPlotted rows it draws a bounded,
// deterministic sample (see plotSample) and says so in the legend. The
// slices must have the same, non-zero length and hold finite values.
func PredictedVsObserved(observed, predicted []float64, title string) ([]byte, error) {
	if len(observed) != len(predicted) {
		return nil, fmt.Errorf("artifacts: %d observed but %d predicted values", len(observed), len(predicted))
	}
	if len(observed) == 0 {
		return nil, errors.New("artifacts: no values to plot")
	}
	if err := checkFinite("observed", observed); err != nil {
		return nil, err
	}
	if err := checkFinite("predicted", predicted); err != nil {
		return nil, err
	}

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "observed"
	p.Y.Label.Text = "predicted"
	p.Add(plotter.NewGrid())

	lo := math.Min(floats.Min(observed), floats.Min(predicted))
	hi := math.Max(floats.Max(observed), floats.Max(predicted))
	if lo == hi {
		// A single distinct value still deserves a visible diagonal.
		pad := math.Max(math.Abs(lo)*0.1, 1)
		lo, hi = lo-pad, hi+pad
	}
	diagonal, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, fmt.Errorf("artifacts: identity line: %w", err)
	}
	diagonal.Color = color.Gray{Y: 96}
	diagonal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}

	rows := plotSample(observed, predicted)
	pts := make(plotter.XYs, len(rows))
	for k, i := range rows {
		pts[k] = plotter.XY{X: observed[i], Y: predicted[i]}
	}
	scatter, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, fmt.Errorf("artifacts: scatter: %w", err)
	}
	scatter.GlyphStyle.Shape = draw.CircleGlyph{}
	scatter.GlyphStyle.Radius = vg.Points(2)
	scatter.GlyphStyle.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}

	p.Add(diagonal, scatter)
	p.Legend.Add("y = x", diagonal)
	if len(rows) < len(observed) {
		p.Legend.Add(fmt.Sprintf("samples (%d of %d shown)", len(rows), len(observed)), scatter)
	} else {
		p.Legend.Add("samples", scatter)
	}
	p.Legend.Top, p.Legend.Left = true, true
	// Same range on both axes, so the diagonal sits at 45 degrees, padded
	// so that extreme points are not cut by the axes.
	pad := rangePad * (hi - lo)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo-pad, hi+pad, lo-pad, hi+pad
	return renderSVG(p)
}
