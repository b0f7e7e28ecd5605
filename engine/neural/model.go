package neural

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Layer is one dense layer: out = in · W + b.
type Layer struct {
	Inputs  int       `json:"inputs"`
	Outputs int       `json:"outputs"`
	Weights []float64 `json:"weights"` // row-major Inputs × Outputs
	Biases  []float64 `json:"biases"`  // length Outputs
}

// weights views the layer's weights as a matrix without copying, so
// optimiser updates to Weights are seen by the next forward pass.
func (l *Layer) weights() *mat.Dense { return mat.NewDense(l.Inputs, l.Outputs, l.Weights) }

func (l Layer) clone() Layer {
	l.Weights = append([]float64(nil), l.Weights...)
	l.Biases = append([]float64(nil), l.Biases...)
	return l
}

// Model is a trained MLP surrogate. The network sees standardised inputs
// (x - InputMean) / InputStd and predicts a standardised target, which is
// mapped back to original units with OutputStd and OutputMean. The hidden
// layers use Activation; the last layer is linear with one output.
type Model struct {
	Activation string    `json:"activation"`
	Layers     []Layer   `json:"layers"`
	InputMean  []float64 `json:"input_mean"`
	InputStd   []float64 `json:"input_std"`
	OutputMean float64   `json:"output_mean"`
	OutputStd  float64   `json:"output_std"`
	// ValR2 is the coefficient of determination on the held-out validation
	// rows, for the weights the model keeps.
	ValR2 float64 `json:"validation_r2"`
	// Inputs optionally names the features the model reads, in order, for
	// a model trained on some columns of a table; Train leaves it empty.
	Inputs []string `json:"inputs,omitempty"`
}

// ValidationR2 returns R² on the validation split for the kept weights.
func (m *Model) ValidationR2() float64 { return m.ValR2 }

// NumInputs is the number of features the model expects.
func (m *Model) NumInputs() int { return len(m.InputMean) }

// pass keeps every intermediate of a forward pass for backpropagation.
// pre[l] is layer l's pre-activation; post[l] its input (post[0] is the
// network input) and post[len(Layers)] the network output.
type pass struct {
	pre  []*mat.Dense
	post []*mat.Dense
}

// forward runs the network on standardised inputs z (rows × features).
func (m *Model) forward(z *mat.Dense) pass {
	p := pass{post: []*mat.Dense{z}}
	in := z
	for l := range m.Layers {
		layer := &m.Layers[l]
		rows, _ := in.Dims()
		out := mat.NewDense(rows, layer.Outputs, nil)
		out.Mul(in, layer.weights())
		addRowVector(out, layer.Biases)
		p.pre = append(p.pre, out)
		if l < len(m.Layers)-1 {
			act := mat.NewDense(rows, layer.Outputs, nil)
			activate(m.Activation, act, out)
			in = act
		} else {
			in = out
		}
		p.post = append(p.post, in)
	}
	return p
}

// layerGrad holds the loss gradient for one layer's parameters.
type layerGrad struct {
	weights *mat.Dense
	biases  []float64
}

// backward propagates dOut (the derivative of some scalar with respect to
// each row's network output, rows × 1) back through a forward pass. With
// wantParams it returns the parameter gradients and no input derivative
// (training needs none); without, only the derivative with respect to the
// network input (rows × features).
func (m *Model) backward(p pass, dOut *mat.Dense, wantParams bool) ([]layerGrad, *mat.Dense) {
	var grads []layerGrad
	if wantParams {
		grads = make([]layerGrad, len(m.Layers))
	}
	delta := dOut // derivative with respect to the current layer's pre-activation
	for l := len(m.Layers) - 1; l >= 0; l-- {
		layer := &m.Layers[l]
		if wantParams {
			gw := mat.NewDense(layer.Inputs, layer.Outputs, nil)
			gw.Mul(p.post[l].T(), delta)
			grads[l] = layerGrad{weights: gw, biases: columnSums(delta)}
		}
		if l == 0 && wantParams {
			return grads, nil
		}
		rows, _ := delta.Dims()
		dIn := mat.NewDense(rows, layer.Inputs, nil)
		dIn.Mul(delta, layer.weights().T())
		if l > 0 {
			multiplyByActivationDerivative(m.Activation, dIn, p.pre[l-1], p.post[l])
		}
		delta = dIn
	}
	return grads, delta
}

// checkShape panics unless X has one column per model input, all of the
// same length; it returns that length.
func (m *Model) checkShape(X [][]float64) int {
	if len(X) != m.NumInputs() {
		panic(fmt.Sprintf("neural: model expects %d features, got %d", m.NumInputs(), len(X)))
	}
	rows := rowCount(X)
	for j, col := range X {
		if len(col) != rows {
			panic(fmt.Sprintf("neural: feature %d has %d rows, feature 0 has %d", j, len(col), rows))
		}
	}
	return rows
}

// standardise maps column-major data in original units (rows > 0) to the
// network's row-major standardised input matrix.
func (m *Model) standardise(X [][]float64) *mat.Dense {
	z := mat.NewDense(len(X[0]), len(X), nil)
	for j, col := range X {
		for i, v := range col {
			z.Set(i, j, (v-m.InputMean[j])/m.InputStd[j])
		}
	}
	return z
}

// Predict returns the model's prediction for every row of X (column-major,
// in original units). It panics if X has the wrong number of features or
// ragged columns, as gonum does for mismatched dimensions.
func (m *Model) Predict(X [][]float64) []float64 {
	rows := m.checkShape(X)
	y := make([]float64, rows)
	forBatches(X, func(lo int, part [][]float64) {
		copy(y[lo:], m.outputs(m.forward(m.standardise(part)), rowCount(part)))
	})
	return y
}

// predictBatch is the most rows a forward pass of Predict or
// InputGradients holds: each layer's activations are rows × width, so
// without a bound a pass over 10⁶ rows held gigabytes. Every row is
// computed alone (a row of a product depends only on its own row), so the
// results do not depend on the batching.
const predictBatch = 4096

// forBatches calls f on consecutive slices of at most predictBatch rows of
// the column-major X, with the first row's index.
func forBatches(X [][]float64, f func(lo int, part [][]float64)) {
	rows := rowCount(X)
	part := make([][]float64, len(X))
	for lo := 0; lo < rows; lo += predictBatch {
		hi := min(lo+predictBatch, rows)
		for j, col := range X {
			part[j] = col[lo:hi]
		}
		f(lo, part)
	}
}

// outputs converts the network's standardised outputs to original units.
func (m *Model) outputs(p pass, rows int) []float64 {
	out := p.post[len(p.post)-1]
	y := make([]float64, rows)
	for i := range y {
		y[i] = out.At(i, 0)*m.OutputStd + m.OutputMean
	}
	return y
}

func rowCount(X [][]float64) int {
	if len(X) == 0 {
		return 0
	}
	return len(X[0])
}

// addRowVector adds b to every row of a.
func addRowVector(a *mat.Dense, b []float64) {
	rows, _ := a.Dims()
	for i := range rows {
		row := a.RawRowView(i)
		for j := range row {
			row[j] += b[j]
		}
	}
}

func columnSums(a *mat.Dense) []float64 {
	rows, cols := a.Dims()
	s := make([]float64, cols)
	for i := range rows {
		for j, v := range a.RawRowView(i) {
			s[j] += v
		}
	}
	return s
}
