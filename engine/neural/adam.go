package neural

import "math"

// adam is the Adam optimiser (Kingma & Ba, 2015) with its first and second
// moment estimates laid out parallel to each layer's weights and biases.
type adam struct {
	rate, beta1, beta2, eps float64
	step                    int
	mw, vw, mb, vb          [][]float64
}

func newAdam(layers []Layer, rate float64) *adam {
	a := &adam{rate: rate, beta1: 0.9, beta2: 0.999, eps: 1e-8}
	for _, l := range layers {
		a.mw = append(a.mw, make([]float64, len(l.Weights)))
		a.vw = append(a.vw, make([]float64, len(l.Weights)))
		a.mb = append(a.mb, make([]float64, len(l.Biases)))
		a.vb = append(a.vb, make([]float64, len(l.Biases)))
	}
	return a
}

// update applies one Adam step to layers in place.
func (a *adam) update(layers []Layer, grads []layerGrad) {
	a.step++
	// Bias corrections for the zero-initialised moments, folded into the step size.
	c1 := 1 - math.Pow(a.beta1, float64(a.step))
	c2 := 1 - math.Pow(a.beta2, float64(a.step))
	rate := a.rate * math.Sqrt(c2) / c1
	for l := range layers {
		a.apply(layers[l].Weights, grads[l].weights.RawMatrix().Data, a.mw[l], a.vw[l], rate)
		a.apply(layers[l].Biases, grads[l].biases, a.mb[l], a.vb[l], rate)
	}
}

func (a *adam) apply(param, grad, m, v []float64, rate float64) {
	for i, g := range grad {
		m[i] = a.beta1*m[i] + (1-a.beta1)*g
		v[i] = a.beta2*v[i] + (1-a.beta2)*g*g
		param[i] -= rate * m[i] / (math.Sqrt(v[i]) + a.eps)
	}
}
