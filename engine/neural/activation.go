package neural

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// activate writes act(z) into dst element-wise.
func activate(name string, dst, z *mat.Dense) {
	f := activationFunc(name)
	dst.Apply(func(_, _ int, v float64) float64 { return f(v) }, z)
}

// multiplyByActivationDerivative scales g element-wise by act'(z).
func multiplyByActivationDerivative(name string, g, z *mat.Dense) {
	d := activationDerivative(name)
	rows, _ := g.Dims()
	for i := range rows {
		gr, zr := g.RawRowView(i), z.RawRowView(i)
		for j := range gr {
			gr[j] *= d(zr[j])
		}
	}
}

func activationFunc(name string) func(float64) float64 {
	if name == SiLU {
		return func(v float64) float64 { return v * sigmoid(v) }
	}
	return math.Tanh
}

func activationDerivative(name string) func(float64) float64 {
	if name == SiLU {
		return func(v float64) float64 {
			s := sigmoid(v)
			return s * (1 + v*(1-s))
		}
	}
	return func(v float64) float64 {
		t := math.Tanh(v)
		return 1 - t*t
	}
}

func sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
