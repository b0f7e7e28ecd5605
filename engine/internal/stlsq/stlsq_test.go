package stlsq

import (
	"slices"
	"testing"
)

// weights is a solve whose weight of term j is w[j] divided by the size of
// the support, so that dropping terms raises the others' weights: the loop
// must re-solve until nothing more drops.
func weights(w []float64, calls *int) func([]int) ([]float64, bool) {
	return func(S []int) ([]float64, bool) {
		*calls++
		out := make([]float64, len(S))
		for x, j := range S {
			out[x] = w[j] / float64(len(S))
		}
		return out, true
	}
}

func TestThresholdRefitsUntilStable(t *testing.T) {
	calls := 0
	// support of 4: weights 0.25, 0.05, 0.5, 0.1 → drop 1 and 3; support
	// of 2: 0.5, 1 → stable.
	S := []int{0, 1, 2, 3}
	got, ok := Threshold(S, 0.2, 10, weights([]float64{1, 0.2, 2, 0.4}, &calls))
	if !ok || !slices.Equal(got, []int{0, 2}) || calls != 2 {
		t.Errorf("Threshold = %v, %v after %d solves; want [0 2], true after 2", got, ok, calls)
	}
	if !slices.Equal(S, []int{0, 1, 2, 3}) {
		t.Errorf("Threshold modified its argument: %v", S)
	}
}

func TestThresholdStopsAfterRounds(t *testing.T) {
	// weights w[j]·|S|/4 shrink with the support, so each round drops
	// another term: {0,1,2,3} → {1,2,3} → {2,3} → {3} → {} at tau 0.25.
	shrinking := func(S []int) ([]float64, bool) {
		out := make([]float64, len(S))
		for x, j := range S {
			out[x] = []float64{0.2, 0.3, 0.4, 0.5}[j] * float64(len(S)) / 4
		}
		return out, true
	}
	for rounds, want := range [][]int{nil, {1, 2, 3}, {2, 3}, {3}, nil} {
		got, ok := Threshold([]int{0, 1, 2, 3}, 0.25, rounds, shrinking)
		if rounds == 0 {
			want = []int{0, 1, 2, 3}
		}
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%d rounds: Threshold = %v, %v; want %v, true", rounds, got, ok, want)
		}
	}
}

func TestThresholdEmptyAndFailure(t *testing.T) {
	calls := 0
	got, ok := Threshold([]int{0, 1}, 10, 5, weights([]float64{1, 1}, &calls))
	if !ok || len(got) != 0 || calls != 1 {
		t.Errorf("nothing survives: Threshold = %v, %v after %d solves; want [], true after 1 (no solve of the empty support)", got, ok, calls)
	}
	fail := func([]int) ([]float64, bool) { return nil, false }
	if got, ok := Threshold([]int{3, 4}, 0.1, 5, fail); ok || !slices.Equal(got, []int{3, 4}) {
		t.Errorf("failing solve: Threshold = %v, %v; want [3 4], false", got, ok)
	}
}
