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
type surrogate struct {
	model     *neural.Model
	structure neural.Structure
	used      []int
}

func (r *runner) neuralOptions(effort float64, seed int64) neural.Options {
	epochs := r.plan.spec.Parameters.Epochs
	if epochs <= 0 {
		epochs = defaultEpochs
	}
	return neural.Options{
		Hidden: r.plan.hidden,
		Epochs: int(math.Max(10, math.Round(float64(epochs)*effort))),
		Seed:   seed,
	}
}

// trainSurrogate fits the network on (X, y) and analyses it on X.
func (r *runner) trainSurrogate(ctx context.Context, X [][]float64, y []float64, opts neural.Options) (*surrogate, error) {
	m, err := neural.Train(ctx, X, y, opts)
	if err != nil {
		return nil, err
	}
	probe := rowsOf(X, thin(seq(0, len(y)), separabilityRows))
	s := &surrogate{model: m, structure: m.Separability(probe)}
	imp := m.Importance(probe)
	top := 0.0
	for _, v := range imp {
		top = math.Max(top, v)
	}
	for j, v := range imp {
		if top > 0 && v >= importanceShare*top {
			s.used = append(s.used, j)
		}
	}
	return s, nil
}

// law presents the surrogate as a structural law: its expression is the
// separable form, e.g. "y = f(a, b) * g(c)".
func (s *surrogate) law(target string, names []string) *lawModel {
	desc := s.structure.Describe(target, names)
	return &lawModel{
		expression: desc,
		complexity: len(s.structure.Groups) + len(names),
		predict:    s.model.Predict,
		used:       s.used,
		form:       desc,
	}
}

func (r *runner) neuralFitter(target string) lawFitter {
	return func(ctx context.Context, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
		s, err := r.trainSurrogate(ctx, X, y, r.neuralOptions(effort, seed))
		if err != nil {
			return nil, err
		}
		return s.law(target, r.data.features), nil
	}
}

// pretrain is the neural_pretraining stage shared by the neural and
// neuro-symbolic modes.
func (r *runner) pretrain(ctx context.Context, target string, y []float64) (*surrogate, error) {
	r.track.begin(StageNeuralPretraining)
	searchCtx, cancel := r.searchContext(ctx)
	defer cancel()
	opts := r.neuralOptions(effortFull, r.plan.spec.Seed)
	opts.Progress = r.track.progressFunc(0, 0.9)
	s, err := r.trainSurrogate(searchCtx, rowsOf(r.data.X, r.data.train), pickRows(y, r.data.train), opts)
	r.noteExpiry(searchCtx)
	if err != nil {
		return nil, r.searchFailed(ctx, "neural pretraining", err)
	}
	var buf bytes.Buffer
	if err := s.model.Save(&buf); err == nil {
		r.result.Artifacts = append(r.result.Artifacts,
			NewArtifact("surrogate-"+target+".json", KindModel, "application/json", buf.Bytes()))
	}
	return s, nil
}

// neuralLaw is the neural mode: the surrogate's separable structure is the
// law; symbolic_regression does not run.
func (r *runner) neuralLaw(ctx context.Context, target string, y []float64) (*lawModel, []*lawModel, lawFitter, error) {
	s, err := r.pretrain(ctx, target, y)
	if err != nil {
		return nil, nil, nil, err
	}
	r.track.skip(StageSymbolic)
	return s.law(target, r.data.features), nil, r.neuralFitter(target), nil
}
