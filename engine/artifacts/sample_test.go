package artifacts

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A million-row fit: y = 2x + 1 with small noise and 50 gross misfits.
func millionRows() (observed, predicted []float64, misfits []int) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	observed = make([]float64, n)
	predicted = make([]float64, n)
	for i := range observed {
		x := rng.Float64() * 10
		predicted[i] = 2*x + 1
		observed[i] = predicted[i] + 0.1*rng.NormFloat64()
	}
	for k := range 50 {
		i := k * 19_997
		observed[i] += 8
		misfits = append(misfits, i)
	}
	return observed, predicted, misfits
}

func TestPredictedVsObservedMillionRowsStaysSmall(t *testing.T) {
	obs, pred, _ := millionRows()
	doc, err := PredictedVsObserved(obs, pred, "y: 2*x + 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc) > 1<<20 {
		t.Fatalf("SVG of 1,000,000 rows is %d bytes, want at most 1 MiB", len(doc))
	}
	elems := parseSVG(t, doc)
	if n := count(elems, "path"); n > maxPlotted+100 {
		t.Errorf("%d paths, want about %d glyphs at most", n, maxPlotted)
	}
	got := texts(elems, "text")
	if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "of 1000000 shown") }) {
		t.Errorf("legend does not say the plot is a sample: %q", got)
	}
}

// The sample keeps the fit visible: every gross misfit, the prediction's
// whole range in equal shares, the same R² as all rows, and the same rows on
// every call.
func TestPlotSampleShowsTheFit(t *testing.T) {
	obs, pred, misfits := millionRows()
	rows := plotSample(obs, pred)
	if len(rows) > maxPlotted || len(rows) < maxPlotted-maxOutliers {
		t.Fatalf("%d rows sampled", len(rows))
	}
	for _, i := range misfits {
		if _, ok := slices.BinarySearch(rows, i); !ok {
			t.Errorf("misfit row %d not drawn", i)
		}
	}
	// Deciles of the prediction (1..21) each hold about a tenth of the
	// stratified part.
	var deciles [10]int
	for _, i := range rows {
		deciles[min(9, int((pred[i]-1)/2))]++
	}
	for d, c := range deciles {
		if share := float64(c) / float64(len(rows)); math.Abs(share-0.1) > 0.02 {
			t.Errorf("decile %d holds %.3f of the sample", d, share)
		}
	}
	r2 := func(idx []int) float64 {
		var m, ss, sr float64
		for _, i := range idx {
			m += obs[i]
		}
		m /= float64(len(idx))
		for _, i := range idx {
			ss += (obs[i] - m) * (obs[i] - m)
			sr += (obs[i] - pred[i]) * (obs[i] - pred[i])
		}
		return 1 - sr/ss
	}
	all := make([]int, len(obs))
	for i := range all {
		all[i] = i
	}
	if a, s := r2(all), r2(rows); math.Abs(a-s) > 0.05 {
		t.Errorf("R² of the sample %.4f, of all rows %.4f", s, a)
	}
	if again := plotSample(obs, pred); !slices.Equal(rows, again) {
		t.Error("sample differs between calls")
	}
}
