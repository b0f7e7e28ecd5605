package dashboard

import (
	"bytes"
	"image/color"
	"math"
	"net/http"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/discolab/disco/dashboard/api"
)

// columnHistogram draws the histogram of one dataset column, as the API's profile
// gives it (issue 15), with gonum/plot like the claim page's plots. The column is
// named by its position in the profile, so its name (hostile input) never enters a
// URL or the drawing; the page prints it, escaped, beside the image.
func (d *Dashboard) columnHistogram(c *call) error {
	ids, err := c.ids("pid", "did")
	if err != nil {
		return err
	}
	notFound := &api.Error{Status: http.StatusNotFound, Code: "not_found", Message: "this column has no histogram to draw"}
	col, err := strconv.Atoi(c.r.PathValue("col"))
	if err != nil || col < 0 {
		return notFound
	}
	var prof api.Profile
	if err := c.get("/projects/"+ids[0]+"/datasets/"+ids[1]+"/profile", nil, &prof); err != nil {
		return err
	}
	if col >= len(prof.Columns) || prof.Columns[col].Histogram == nil || len(prof.Columns[col].Histogram.Counts) == 0 {
		return notFound
	}
	svg, err := histogramSVG(prof.Columns[col].Histogram, prof.Columns[col].DType)
	if err != nil {
		return err
	}
	h := c.w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	_, _ = c.w.Write(svg)
	return nil
}

// histogramSVG draws the bins of h (at least one) as bars: bin i spans
// [Low + i·w, Low + (i+1)·w). A single value (Low = High) is drawn as one bar of
// width 1 centred on it. Bins one unit wide centred on integers (the API's rule for
// narrow int64 and bool columns) are labelled with their integer, or false and true.
func histogramSVG(h *api.Histogram, dtype string) ([]byte, error) {
	n := len(h.Counts)
	lo, w := h.Low, (h.High-h.Low)/float64(n)
	if w == 0 {
		lo, w = h.Low-0.5, 1
	}
	bins := make([]plotter.HistogramBin, n)
	for i, k := range h.Counts {
		bins[i] = plotter.HistogramBin{Min: lo + float64(i)*w, Max: lo + float64(i+1)*w, Weight: float64(k)}
	}
	bars := &plotter.Histogram{Bins: bins, Width: w, FillColor: color.RGBA{R: 31, G: 119, B: 180, A: 255},
		LineStyle: draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
	p := plot.New()
	p.X.Label.Text = "value"
	p.Y.Label.Text = "rows"
	p.Add(plotter.NewGrid(), bars)
	// Padding keeps the outer tick labels inside the drawing.
	pad := 0.04 * w * float64(n)
	p.X.Min, p.X.Max = lo-pad, lo+w*float64(n)+pad
	p.Y.Min = 0
	p.Y.Tick.Marker = integerTicks{}
	if w == 1 && lo+0.5 == math.Trunc(lo+0.5) && n <= 20 {
		var ticks []plot.Tick
		for i := range n {
			v := lo + 0.5 + float64(i)
			label := strconv.FormatFloat(v, 'f', -1, 64)
			if dtype == "bool" {
				label = map[float64]string{0: "false", 1: "true"}[v]
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	canvas := vgsvg.New(4*vg.Inch, 2.2*vg.Inch)
	p.Draw(draw.New(canvas))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// integerTicks are gonum's default ticks of a count axis without the fractional ones.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value == math.Trunc(t.Value) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}
