package neural

import (
	"context"
	"math"
	"reflect"
	"testing"
)

func TestSeparability(t *testing.T) {
	cases := []struct {
		name   string
		ranges [][2]float64
		f      func(x []float64) float64
		want   Structure
		says   string
	}{
		{"additive", [][2]float64{{-2, 2}, {-3, 3}, {-2, 2}},
			func(x []float64) float64 { return x[0]*x[0] + math.Sin(x[1]) + x[2] },
			Structure{Form: Additive, Groups: [][]int{{0}, {1}, {2}}}, "y = f(a) + g(b) + h(c)"},
		{"multiplicative", [][2]float64{{1, 3}, {0, 1.5}},
			func(x []float64) float64 { return x[0] * math.Exp(x[1]) },
			Structure{Form: Multiplicative, Groups: [][]int{{0}, {1}}}, "y = f(a) * g(b)"},
		{"none", [][2]float64{{-2, 2}, {-2, 2}},
			func(x []float64) float64 { return math.Sin(x[0] * x[1]) },
			Structure{Form: NoStructure, Groups: [][]int{{0, 1}}}, "y = f(a, b)"},
		{"partly additive", [][2]float64{{-2, 2}, {-2, 2}, {1, 2}},
			func(x []float64) float64 { return x[0]*x[2] + math.Cos(x[1]) },
			Structure{Form: Additive, Groups: [][]int{{0, 2}, {1}}}, "y = f(a, c) + g(b)"},
	}
	for _, c := range cases {
		X := uniformColumns(21, 400, c.ranges...)
		m, err := Train(context.Background(), X, targetOf(X, c.f), smallOptions(1))
		if err != nil {
			t.Fatal(err)
		}
		got := m.Separability(X, 0)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Separability = %+v, want %+v (strengths %+v)", c.name, got, c.want, m.InteractionStrengths(X))
			continue
		}
		if s := got.Describe("", []string{"a", "b", "c"}); s != c.says {
			t.Errorf("%s: Describe = %q, want %q", c.name, s, c.says)
		}
	}
}

func TestSeparabilityTolerance(t *testing.T) {
	// x0*exp(x1) interacts additively; a tolerance above its strength hides that.
	X := uniformColumns(22, 200, [2]float64{1, 3}, [2]float64{0, 1.5})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * math.Exp(x[1]) }), smallOptions(2))
	if err != nil {
		t.Fatal(err)
	}
	strength := m.InteractionStrengths(X).Additive[0][1]
	if got := m.Separability(X, strength*1.01); got.Form != Additive {
		t.Fatalf("tol just above the strength %g: form %q, want additive", strength, got.Form)
	}
	if got := m.Separability(X, strength*0.99); got.Form == Additive {
		t.Fatalf("tol just below the strength %g: form additive", strength)
	}
}

func TestMultiplicativeNeedsOneSign(t *testing.T) {
	// x0*x1 crosses zero on this data, so log|f| is undefined and only
	// "none" is possible.
	X := uniformColumns(23, 200, [2]float64{-1, 1}, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * x[1] }), smallOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	if s := m.InteractionStrengths(X); s.Multiplicative != nil {
		t.Fatalf("multiplicative strengths %v for a sign-changing function", s.Multiplicative)
	}
	if got := m.Separability(X, 0); got.Form != NoStructure {
		t.Fatalf("form %q, want none", got.Form)
	}
}

func TestComponentsAbove(t *testing.T) {
	strength := [][]float64{
		{0, 0, 0.5, 0},
		{0, 0, 0, 0.2},
		{0.5, 0, 0, 0},
		{0, 0.2, 0, 0},
	}
	if got, want := componentsAbove(strength, 0.1), [][]int{{0, 2}, {1, 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tol 0.1: %v, want %v", got, want)
	}
	if got, want := componentsAbove(strength, 0.3), [][]int{{0, 2}, {1}, {3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tol 0.3: %v, want %v", got, want)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		s      Structure
		target string
		names  []string
		want   string
	}{
		{Structure{Additive, [][]int{{0}, {1, 2}}}, "E", []string{"m", "v", "h"}, "E = f(m) + g(v, h)"},
		{Structure{Multiplicative, [][]int{{0, 1}, {2}}}, "", []string{"a", "b", "c"}, "y = f(a, b) * g(c)"},
		{Structure{NoStructure, [][]int{{0, 1, 2}}}, "y", nil, "y = f(x0, x1, x2)"},
	}
	for _, c := range cases {
		if got := c.s.Describe(c.target, c.names); got != c.want {
			t.Errorf("Describe(%q, %v) = %q, want %q", c.target, c.names, got, c.want)
		}
	}
}

func TestSeparabilityOfOneFeature(t *testing.T) {
	X := uniformColumns(24, 50, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * x[0] }), Options{Hidden: []int{4}, Epochs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Separability(X, 0), (Structure{Form: NoStructure, Groups: [][]int{{0}}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("Separability = %+v, want %+v", got, want)
	}
}
