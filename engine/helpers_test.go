package engine

import (
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/discolab/disco/engine/data"
)

// frameOf builds a numeric frame from named columns.
func frameOf(t *testing.T, names []string, cols ...[]float64) *data.Frame {
	t.Helper()
	f := &data.Frame{Rows: len(cols[0])}
	for j, c := range cols {
		f.Columns = append(f.Columns, data.Column{Name: names[j], DType: data.Float64, Values: c})
	}
	return f
}

func uniform(rng *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}

// separableSample draws a, b, c uniformly from [-1, 1] and returns them
// with y = a·b + sin(2c), plus Gaussian noise of the given SD when it is
// positive: additive in {a, b} and {c}, the structure the neural tests
// look for.
func separableSample(rng *rand.Rand, n int, noise float64) (a, b, c, y []float64) {
	a, b, c = uniform(rng, n, -1, 1), uniform(rng, n, -1, 1), uniform(rng, n, -1, 1)
	y = make([]float64, n)
	for i := range y {
		y[i] = a[i]*b[i] + math.Sin(2*c[i])
		if noise > 0 {
			y[i] += noise * rng.NormFloat64()
		}
	}
	return a, b, c, y
}

func gaussian(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// recorder is a Reporter that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event
}

type event struct {
	name, status string
	progress     float64
}

func (r *recorder) Stage(name, status string, progress float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{name, status, progress})
}

// checkStages asserts the stage order and monotone progress.
func (r *recorder) check(t *testing.T, mode Mode) {
	t.Helper()
	want := StageNames(string(mode))
	var order []string
	last := map[string]float64{}
	for _, e := range r.events {
		if len(order) == 0 || order[len(order)-1] != e.name {
			order = append(order, e.name)
		}
		if e.progress < last[e.name] {
			t.Errorf("stage %s progress went back from %v to %v", e.name, last[e.name], e.progress)
		}
		last[e.name] = e.progress
	}
	if len(order) != len(want) {
		t.Fatalf("stage order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("stage order %v, want %v", order, want)
		}
	}
}
