package artifacts

import (
	"math"
	"strings"
	"testing"
)

const hostile = `a<b&"c"`

func TestPredictedVsObserved(t *testing.T) {
	obs := []float64{1, 2, 3, 4, 5}
	pred := []float64{1.1, 1.9, 3.2, 3.8, 5.1}
	doc, err := PredictedVsObserved(obs, pred, hostile)
	if err != nil {
		t.Fatal(err)
	}
	elems := parseSVG(t, doc)
	got := texts(elems, "text")
	for _, want := range []string{hostile, "observed", "predicted", "y = x"} {
		if !contains(got, want) {
			t.Errorf("no text %q in %q", want, got)
		}
	}
	// Every sample is drawn: three more points inside the same range (so
	// axes and ticks are unchanged) add exactly three glyph paths.
	more, err := PredictedVsObserved(append(obs, 2, 3, 4), append(pred, 2.5, 3.5, 4.5), hostile)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := count(elems, "path"), count(parseSVG(t, more), "path"); b-a != 3 {
		t.Errorf("3 more samples added %d paths (%d -> %d)", b-a, a, b)
	}
}

func count(elems []element, name string) int {
	n := 0
	for _, e := range elems {
		if e.name == name {
			n++
		}
	}
	return n
}

func TestPredictedVsObservedRejectsBadInput(t *testing.T) {
	cases := map[string][2][]float64{
		"mismatched": {{1, 2}, {1}},
		"empty":      {{}, {}},
		"NaN":        {{1, math.NaN()}, {1, 2}},
		"Inf":        {{1, 2}, {1, math.Inf(1)}},
	}
	for name, c := range cases {
		if _, err := PredictedVsObserved(c[0], c[1], "t"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestPredictedVsObservedSingleValue(t *testing.T) {
	doc, err := PredictedVsObserved([]float64{2, 2}, []float64{2, 2}, "flat")
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, doc)
}

func TestParetoFront(t *testing.T) {
	complexity := []int{5, 1, 3, 7}
	loss := []float64{0.01, 1, 0.1, 0.009}
	doc, err := ParetoFront(complexity, loss, 0, hostile)
	if err != nil {
		t.Fatal(err)
	}
	elems := parseSVG(t, doc)
	got := texts(elems, "text")
	for _, want := range []string{hostile, "complexity", "loss", "chosen", "candidates"} {
		if !contains(got, want) {
			t.Errorf("no text %q in %q", want, got)
		}
	}
	// Positive losses spanning decades use a log axis: its tick labels are
	// powers of ten such as 0.01 and 0.1 and 1.
	for _, tick := range []string{"0.01", "0.1", "1"} {
		if !contains(got, tick) {
			t.Errorf("log axis tick %q missing from %q", tick, got)
		}
	}

	// Without a chosen model there is no highlight in the legend.
	doc, err = ParetoFront(complexity, loss, -1, "none")
	if err != nil {
		t.Fatal(err)
	}
	if contains(texts(parseSVG(t, doc), "text"), "chosen") {
		t.Error("chosen = -1 still shows a chosen model")
	}
}

func TestParetoFrontLinearWhenLossNotPositive(t *testing.T) {
	doc, err := ParetoFront([]int{1, 2, 3}, []float64{2, 0, -1}, 1, "r2-like")
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, doc)
	doc, err = ParetoFront([]int{1, 2}, []float64{0.5, 0.5}, 1, "flat")
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, doc)
}

func TestParetoFrontRejectsBadInput(t *testing.T) {
	if _, err := ParetoFront([]int{1, 2}, []float64{1}, 0, "t"); err == nil {
		t.Error("mismatched lengths: no error")
	}
	if _, err := ParetoFront(nil, nil, -1, "t"); err == nil {
		t.Error("empty: no error")
	}
	if _, err := ParetoFront([]int{1}, []float64{1}, 1, "t"); err == nil {
		t.Error("chosen out of range: no error")
	}
	if _, err := ParetoFront([]int{1}, []float64{math.NaN()}, 0, "t"); err == nil {
		t.Error("NaN loss: no error")
	}
	if !strings.Contains(hostile, "<") {
		t.Fatal("hostile name lost its markup")
	}
}
