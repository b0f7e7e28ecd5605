package neural

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Train fits an MLP to y from the features X (column-major: X[j][i] is
// feature j at row i) with Adam on shuffled mini-batches of mean squared
// error. A random ValidationFraction of the rows is held out; training stops
// after Patience epochs without a better validation loss, and the model keeps
// the weights with the best validation loss seen. The step size is halved
// after every max(5, Patience/3) epochs without improvement, down to 1/64 of
// LearningRate, so the fit settles and its input derivatives become smooth.
//
// If ctx is cancelled, Train stops at the next mini-batch and returns the
// best model so far together with ctx.Err(), so callers may keep it or
// discard it. Results depend only on the data and Options (Seed included).
func Train(ctx context.Context, X [][]float64, y []float64, opts Options) (*Model, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkTrainingData(X, y); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x6e657572616c)) // "neural"

	m := newModel(X, y, opts, rng)
	z := m.standardise(X)
	target := make([]float64, len(y))
	for i, v := range y {
		target[i] = (v - m.OutputMean) / m.OutputStd
	}
	trainRows, valRows := splitRows(len(y), opts.ValidationFraction, rng)
	zVal, tVal := gatherRows(z, target, valRows)

	t := &trainer{model: m, opt: newAdam(m.Layers, opts.LearningRate)}
	t.keepIfBest(zVal, tVal)
	stale := 0
	plateau := max(5, opts.Patience/3)
	minRate := opts.LearningRate / 64
	for epoch := 0; epoch < opts.Epochs; epoch++ {
		rng.Shuffle(len(trainRows), func(a, b int) { trainRows[a], trainRows[b] = trainRows[b], trainRows[a] })
		for start := 0; start < len(trainRows); start += opts.BatchSize {
			if err := ctx.Err(); err != nil {
				t.finish(zVal, tVal, y, valRows)
				return m, err
			}
			batch := trainRows[start:min(start+opts.BatchSize, len(trainRows))]
			t.step(gatherRows(z, target, batch))
		}
		if t.keepIfBest(zVal, tVal) {
			stale = 0
		} else if stale++; stale >= opts.Patience {
			break
		} else if stale%plateau == 0 && t.opt.rate > minRate {
			// Reduce on plateau: smaller steps let Adam settle into the
			// minimum instead of rattling around it, which matters for the
			// smoothness of the surrogate's derivatives.
			t.opt.rate /= 2
		}
		if opts.Progress != nil && epoch+1 < opts.Epochs {
			opts.Progress(float64(epoch+1) / float64(opts.Epochs))
		}
	}
	t.finish(zVal, tVal, y, valRows)
	if opts.Progress != nil {
		opts.Progress(1)
	}
	return m, nil
}

// newModel computes the standardisation statistics and draws Glorot-uniform
// initial weights, which keep tanh and SiLU units out of saturation at the start.
func newModel(X [][]float64, y []float64, opts Options, rng *rand.Rand) *Model {
	m := &Model{Activation: opts.Activation}
	for _, col := range X {
		mean, std := meanStd(col)
		m.InputMean = append(m.InputMean, mean)
		m.InputStd = append(m.InputStd, std)
	}
	m.OutputMean, m.OutputStd = meanStd(y)
	widths := append(append([]int{len(X)}, opts.Hidden...), 1)
	for l := 0; l+1 < len(widths); l++ {
		in, out := widths[l], widths[l+1]
		limit := math.Sqrt(6 / float64(in+out))
		w := make([]float64, in*out)
		for i := range w {
			w[i] = (2*rng.Float64() - 1) * limit
		}
		m.Layers = append(m.Layers, Layer{Inputs: in, Outputs: out, Weights: w, Biases: make([]float64, out)})
	}
	return m
}

// splitRows shuffles the row indices and holds out a validation share of at
// least two rows.
func splitRows(n int, fraction float64, rng *rand.Rand) (train, val []int) {
	rows := rng.Perm(n)
	nVal := max(2, int(math.Round(fraction*float64(n))))
	return rows[nVal:], rows[:nVal]
}

// gatherRows copies the given rows of z and t into a batch.
func gatherRows(z *mat.Dense, t []float64, rows []int) (*mat.Dense, []float64) {
	_, cols := z.Dims()
	zb := mat.NewDense(len(rows), cols, nil)
	tb := make([]float64, len(rows))
	for k, i := range rows {
		zb.SetRow(k, z.RawRowView(i))
		tb[k] = t[i]
	}
	return zb, tb
}

// trainer holds the optimiser state and the best weights seen so far.
type trainer struct {
	model    *Model
	opt      *adam
	best     []Layer
	bestLoss float64
}

// step takes one Adam step on the mean squared error of a mini-batch.
func (t *trainer) step(z *mat.Dense, target []float64) {
	p := t.model.forward(z)
	out := p.post[len(p.post)-1]
	dOut := mat.NewDense(len(target), 1, nil)
	scale := 2 / float64(len(target))
	for i, v := range target {
		dOut.Set(i, 0, scale*(out.At(i, 0)-v))
	}
	grads, _ := t.model.backward(p, dOut, true)
	t.opt.update(t.model.Layers, grads)
}

// keepIfBest snapshots the weights when the validation loss improves and
// reports whether it did.
func (t *trainer) keepIfBest(zVal *mat.Dense, tVal []float64) bool {
	loss := t.model.meanSquaredError(zVal, tVal)
	if t.best != nil && !(loss < t.bestLoss) {
		return false
	}
	t.bestLoss = loss
	t.best = t.best[:0]
	for _, l := range t.model.Layers {
		t.best = append(t.best, l.clone())
	}
	return true
}

// finish restores the best weights and records their validation R² in
// original units.
func (t *trainer) finish(zVal *mat.Dense, tVal, y []float64, valRows []int) {
	t.model.Layers = t.best
	t.best = nil
	predicted := t.model.outputs(t.model.forward(zVal), len(valRows))
	observed := make([]float64, len(valRows))
	for k, i := range valRows {
		observed[k] = y[i]
	}
	t.model.ValR2 = rSquared(predicted, observed)
}

// meanSquaredError is the loss in standardised units on the given rows.
func (m *Model) meanSquaredError(z *mat.Dense, target []float64) float64 {
	out := m.forward(z).post[len(m.Layers)]
	var sum float64
	for i, v := range target {
		d := out.At(i, 0) - v
		sum += d * d
	}
	return sum / float64(len(target))
}
