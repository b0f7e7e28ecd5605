package engine

import (
	"bytes"
	"context"
	"math"

	"github.com/discolab/disco/engine/neural"
)

// defaultEpochs is the surrogate's epoch budget when the run sets none.
const defaultEpochs = 200

// importanceShare is the share of the largest importance a feature needs to
// count as used by the surrogate.
const importanceShare = 0.1

// separabilityRows bounds the rows the separability tests look at; the
// mixed partials are averaged, so a few hundred rows are plenty.
const separabilityRows = 300

// surrogate is a trained network with what the engine derived from it.
// The network reads the columns cols of the features (screenSurrogate);
// structure and used index the features themselves.
type surrogate struct {
	model     *neural.Model
	cols      []int
	structure neural.Structure
	used      []int
}

// predict evaluates the network on the features X (column-major, every
// feature), reading only its own columns.
func (s *surrogate) predict(X [][]float64) []float64 {
	return s.model.Predict(pickRows(X, s.cols))
}

// neuralMode is the neural mode: an MLP surrogate of each target
// (engine/neural) whose separable structure is the law, e.g.
// "y = f(a, b) * g(c)"; symbolic_regression does not run.
type neuralMode struct{ *runner }

func (m *neuralMode) discover(ctx context.Context) error {
	return m.laws(ctx, m)
}

// searchLaw trains target's surrogate in neural_pretraining and states its
// structure as the law.
func (m *neuralMode) searchLaw(ctx context.Context, target string, y []float64) (*lawModel, []*lawModel, error) {
	s, err := m.pretrain(ctx, target, y)
	if err != nil {
		return nil, nil, err
	}
	m.track.skip(StageSymbolic)
	return s.law(target, m.data.features), nil, nil
}

// refit trains a surrogate on (X, y) at the given effort.
func (m *neuralMode) refit(ctx context.Context, target string, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
	s, err := trainSurrogate(ctx, X, y, m.options(effort, seed))
	if err != nil {
		return nil, err
	}
	return s.law(target, m.data.features), nil
}

// options are the surrogate's training options at the given effort.
func (m *neuralMode) options(effort float64, seed int64) neural.Options {
	epochs := m.plan.spec.Parameters.Epochs
	if epochs <= 0 {
		epochs = defaultEpochs
	}
	return neural.Options{
		Hidden: m.plan.hidden,
		Epochs: int(math.Max(10, math.Round(float64(epochs)*effort))),
		Seed:   seed,
	}
}

// trainSurrogate fits the network on (X, y), on the columns it uses
// (screenSurrogate), and analyses it on X.
func trainSurrogate(ctx context.Context, X [][]float64, y []float64, opts neural.Options) (*surrogate, error) {
	m, cols, used, err := screenSurrogate(ctx, X, y, opts)
	if err != nil {
		return nil, err
	}
	probe := rowsOf(pickRows(X, cols), thin(seq(0, len(y)), separabilityRows))
	s := &surrogate{model: m, cols: cols, structure: m.Separability(probe), used: used}
	for g, group := range s.structure.Groups {
		s.structure.Groups[g] = pickRows(cols, group)
	}
	return s, nil
}

// law presents the surrogate as a structural law: its expression is the
// separable form, e.g. "y = f(a, b) * g(c)".
func (s *surrogate) law(target string, names []string) *lawModel {
	desc := s.structure.Describe(target, names)
	return &lawModel{
		expression: desc,
		complexity: len(s.structure.Groups) + len(s.cols),
		predict:    s.predict,
		used:       s.used,
		form:       desc,
	}
}

// pretrain is the neural_pretraining stage, which the neuro-symbolic mode
// runs too.
func (m *neuralMode) pretrain(ctx context.Context, target string, y []float64) (*surrogate, error) {
	m.track.begin(StageNeuralPretraining)
	searchCtx, cancel := m.searchContext(ctx)
	defer cancel()
	opts := m.options(effortFull, m.plan.spec.Seed)
	opts.Progress = m.track.progressFunc(0, 0.9)
	s, err := trainSurrogate(searchCtx, rowsOf(m.data.X, m.data.train), pickRows(y, m.data.train), opts)
	m.noteExpiry(searchCtx)
	if err != nil {
		return nil, m.searchFailed(ctx, "neural pretraining", err)
	}
	s.model.Inputs = pickRows(m.data.features, s.cols)
	var buf bytes.Buffer
	if err := s.model.Save(&buf); err == nil {
		m.result.Artifacts = append(m.result.Artifacts,
			NewArtifact("surrogate-"+target+".json", KindModel, "application/json", buf.Bytes()))
	}
	return s, nil
}
