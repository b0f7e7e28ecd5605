package artifacts

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoFront plots the loss of each candidate model against its complexity,
// joined in order of complexity, and highlights the chosen model (index into
// the slices; -1 highlights none). The loss axis is logarithmic when every
// loss is positive, since losses along a front typically span decades, and
// linear otherwise. It returns the SVG document.
func ParetoFront(complexity []int, loss []float64, chosen int, title string) ([]byte, error) {
	if len(complexity) != len(loss) {
		return nil, fmt.Errorf("artifacts: %d complexities but %d losses", len(complexity), len(loss))
	}
	if len(loss) == 0 {
		return nil, errors.New("artifacts: no models to plot")
	}
	if chosen < -1 || chosen >= len(loss) {
		return nil, fmt.Errorf("artifacts: chosen model %d out of range [-1, %d)", chosen, len(loss))
	}
	if err := checkFinite("loss", loss); err != nil {
		return nil, err
	}

	order := make([]int, len(loss))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if complexity[a] != complexity[b] {
			return complexity[a] - complexity[b]
		}
		switch {
		case loss[a] < loss[b]:
			return -1
		case loss[a] > loss[b]:
			return 1
		}
		return 0
	})
	pts := make(plotter.XYs, len(order))
	for i, k := range order {
		pts[i] = plotter.XY{X: float64(complexity[k]), Y: loss[k]}
	}

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "complexity"
	p.Y.Label.Text = "loss"
	p.Add(plotter.NewGrid())
	xlo, xhi := float64(slices.Min(complexity)), float64(slices.Max(complexity))
	xpad := math.Max(rangePad*(xhi-xlo), 0.5)
	p.X.Min, p.X.Max = xlo-xpad, xhi+xpad
	lo, hi := floats.Min(loss), floats.Max(loss)
	if lo > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		// Pad by a share of the decades spanned; a log axis also needs a
		// non-empty range when every loss is equal.
		factor := math.Max(math.Pow(hi/lo, rangePad), 1.5)
		p.Y.Min, p.Y.Max = lo/factor, hi*factor
	} else {
		pad := rangePad * (hi - lo)
		if pad == 0 {
			pad = 1
		}
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}

	front, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, fmt.Errorf("artifacts: front: %w", err)
	}
	front.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	points.GlyphStyle.Shape = draw.CircleGlyph{}
	points.GlyphStyle.Radius = vg.Points(2.5)
	points.GlyphStyle.Color = front.Color
	p.Add(front, points)
	p.Legend.Add("candidates", front, points)

	if chosen >= 0 {
		mark, err := plotter.NewScatter(plotter.XYs{{X: float64(complexity[chosen]), Y: loss[chosen]}})
		if err != nil {
			return nil, fmt.Errorf("artifacts: chosen model: %w", err)
		}
		mark.GlyphStyle.Shape = draw.RingGlyph{}
		mark.GlyphStyle.Radius = vg.Points(6)
		mark.GlyphStyle.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
		p.Add(mark)
		p.Legend.Add("chosen", mark)
	}
	p.Legend.Top = true
	return renderSVG(p)
}
