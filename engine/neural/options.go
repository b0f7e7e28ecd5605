package neural

import "fmt"

// Activation names accepted in Options and stored in a Model.
const (
	Tanh = "tanh"
	SiLU = "silu"
)

// Options configures Train. Zero values select the documented defaults.
type Options struct {
	Hidden             []int         // hidden-layer widths; default DefaultHidden
	Activation         string        // Tanh (default) or SiLU
	Epochs             int           // passes over the training split; default 500
	LearningRate       float64       // initial Adam step size; default 1e-2 (see Train for its schedule)
	BatchSize          int           // rows per Adam step; default 64
	ValidationFraction float64       // share of rows held out for early stopping; default 0.2
	Patience           int           // epochs without validation improvement before stopping; default 30
	Seed               int64         // seeds initialisation, the split and the batch order
	Progress           func(float64) // called with the fraction of epochs done, 0..1; may be nil
}

// withDefaults fills zero fields and rejects values no default can repair.
func (o Options) withDefaults() (Options, error) {
	if o.Hidden == nil {
		o.Hidden = append([]int(nil), DefaultHidden...)
	}
	if err := checkHidden(o.Hidden); err != nil {
		return o, fmt.Errorf("neural: hidden layers: %v", err)
	}
	if o.Activation == "" {
		o.Activation = Tanh
	}
	if o.Activation != Tanh && o.Activation != SiLU {
		return o, fmt.Errorf("neural: activation %q unknown; use %q or %q", o.Activation, Tanh, SiLU)
	}
	if o.Epochs <= 0 {
		o.Epochs = 500
	}
	if o.LearningRate <= 0 {
		// 1e-2 rather than Adam's usual 1e-3 (Kingma & Ba, 2015): on
		// standardised data the plateau halving (down to 1/64) settles it,
		// and at the engine's 200 epochs the Feynman benchmark's surrogates
		// fit closer with it (test/bench/CALIBRATION.md#learning-rate).
		o.LearningRate = 1e-2
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 64
	}
	if o.ValidationFraction == 0 {
		o.ValidationFraction = 0.2
	}
	if o.ValidationFraction < 0 || o.ValidationFraction >= 0.9 {
		return o, fmt.Errorf("neural: validation fraction %g outside (0, 0.9)", o.ValidationFraction)
	}
	if o.Patience <= 0 {
		o.Patience = 30
	}
	return o, nil
}
