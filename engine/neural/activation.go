package neural

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// activate writes act(z) into dst element-wise.
func activate(name string, dst, z *mat.Dense) {
	f := activationFunc(name)
	rows, _ := z.Dims()
	for i := range rows {
		dr, zr := dst.RawRowView(i), z.RawRowView(i)
		for j, v := range zr {
			dr[j] = f(v)
		}
	}
}

// multiplyByActivationDerivative scales g element-wise by act'(z), where
// a = act(z) is the forward pass's output of the same layer: tanh' is
// 1 − a², so tanh is not evaluated a second time.
func multiplyByActivationDerivative(name string, g, z, a *mat.Dense) {
	rows, _ := g.Dims()
	if name != SiLU {
		for i := range rows {
			gr, ar := g.RawRowView(i), a.RawRowView(i)
			for j, t := range ar {
				gr[j] *= 1 - t*t
			}
		}
		return
	}
	for i := range rows {
		gr, zr := g.RawRowView(i), z.RawRowView(i)
		for j, v := range zr {
			gr[j] *= siluDerivative(v)
		}
	}
}

func activationFunc(name string) func(float64) float64 {
	if name == SiLU {
		return func(v float64) float64 { return v * sigmoid(v) }
	}
	return math.Tanh
}

// siluDerivative is d/dv of v·σ(v).
func siluDerivative(v float64) float64 {
	s := sigmoid(v)
	return s * (1 + v*(1-s))
}

func sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
