package neural

import "fmt"

// SubProblem is the data for one group's unknown function in a Structure:
// the group's feature columns and the surrogate's prediction with every
// feature outside the group held at its training mean. Symbolic regression
// on a sub-problem searches a space with fewer variables than the original.
type SubProblem struct {
	Features []int       // indices into the original feature list, sorted
	X        [][]float64 // the group's columns, column-major, shared with the caller's X
	Y        []float64   // surrogate predictions with the other features at their means
}

// SubProblems splits X into one sub-problem per group of s, as AI Feynman
// does after a separability test. It also returns the surrogate's value at
// the reference point (every feature at its training mean), which ties the
// pieces back together: with G groups and reference value c,
//
//	additive:       f(x) ≈ Σ_g Y_g - (G-1)·c
//	multiplicative: f(x) ≈ Π_g Y_g / c^(G-1)
//
// exactly so when the surrogate is exactly separable. For form "none" the
// single sub-problem is the denoised data itself.
func (m *Model) SubProblems(X [][]float64, s Structure) ([]SubProblem, float64, error) {
	rows := m.checkShape(X)
	reference := m.referenceValue()
	seen := make([]bool, len(X))
	subs := make([]SubProblem, 0, len(s.Groups))
	for _, group := range s.Groups {
		held := make([][]float64, len(X))
		sub := SubProblem{Features: group}
		for _, j := range group {
			if j < 0 || j >= len(X) || seen[j] {
				return nil, 0, fmt.Errorf("neural: structure groups repeat or exceed the %d features: %v", len(X), s.Groups)
			}
			seen[j] = true
			held[j] = X[j]
			sub.X = append(sub.X, X[j])
		}
		for j := range held {
			if held[j] == nil {
				held[j] = constantColumn(m.InputMean[j], rows)
			}
		}
		sub.Y = m.Predict(held)
		subs = append(subs, sub)
	}
	for j, ok := range seen {
		if !ok {
			return nil, 0, fmt.Errorf("neural: structure groups %v leave out feature %d", s.Groups, j)
		}
	}
	return subs, reference, nil
}

// referenceValue is the prediction with every feature at its training mean.
func (m *Model) referenceValue() float64 {
	point := make([][]float64, m.NumInputs())
	for j, mean := range m.InputMean {
		point[j] = []float64{mean}
	}
	return m.Predict(point)[0]
}

func constantColumn(v float64, rows int) []float64 {
	col := make([]float64, rows)
	for i := range col {
		col[i] = v
	}
	return col
}
