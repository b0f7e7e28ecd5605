package neural

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// formatVersion is written with every saved model so a later layout change
// can be detected instead of silently misread.
const formatVersion = 1

type savedModel struct {
	Format int `json:"format"`
	*Model
}

// Save writes the model as JSON. float64 values round-trip exactly through
// encoding/json, so a loaded model predicts identically.
func (m *Model) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(savedModel{Format: formatVersion, Model: m}); err != nil {
		return fmt.Errorf("neural: save model: %w", err)
	}
	return nil
}

// Load reads a model written by Save and checks that its layers fit together.
func Load(r io.Reader) (*Model, error) {
	saved := savedModel{Model: &Model{}}
	if err := json.NewDecoder(r).Decode(&saved); err != nil {
		return nil, fmt.Errorf("neural: load model: %w", err)
	}
	if saved.Format != formatVersion {
		return nil, fmt.Errorf("neural: load model: format %d, want %d", saved.Format, formatVersion)
	}
	if err := saved.validate(); err != nil {
		return nil, fmt.Errorf("neural: load model: %w", err)
	}
	return saved.Model, nil
}

// validate checks the invariants the forward pass relies on.
func (m *Model) validate() error {
	if m.Activation != Tanh && m.Activation != SiLU {
		return fmt.Errorf("activation %q unknown", m.Activation)
	}
	n := len(m.InputMean)
	if n == 0 || len(m.InputStd) != n {
		return fmt.Errorf("%d input means and %d input stds", n, len(m.InputStd))
	}
	for j, s := range m.InputStd {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("input %d std %v is not positive and finite", j, s)
		}
	}
	if len(m.Inputs) != 0 && len(m.Inputs) != n {
		return fmt.Errorf("%d input names for %d inputs", len(m.Inputs), n)
	}
	if !(m.OutputStd > 0) || math.IsInf(m.OutputStd, 0) {
		return fmt.Errorf("output std %v is not positive and finite", m.OutputStd)
	}
	if len(m.Layers) < 2 || len(m.Layers) > MaxDepth+1 {
		return fmt.Errorf("%d layers, want 2..%d", len(m.Layers), MaxDepth+1)
	}
	in := n
	for l, layer := range m.Layers {
		if layer.Inputs != in || layer.Outputs < 1 || layer.Outputs > MaxWidth {
			return fmt.Errorf("layer %d is %d×%d after a layer of width %d", l, layer.Inputs, layer.Outputs, in)
		}
		if len(layer.Weights) != layer.Inputs*layer.Outputs || len(layer.Biases) != layer.Outputs {
			return fmt.Errorf("layer %d has %d weights and %d biases for %d×%d", l, len(layer.Weights), len(layer.Biases), layer.Inputs, layer.Outputs)
		}
		in = layer.Outputs
	}
	if in != 1 {
		return fmt.Errorf("last layer has %d outputs, want 1", in)
	}
	return nil
}
