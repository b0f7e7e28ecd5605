package engine

import "context"

// Mode is a discovery mode, as it appears on the wire (a Run's spec.mode).
type Mode string

// Run modes. Each is one method type, in the file named after it.
const (
	ModeSymbolic      Mode = "symbolic"       // mode_symbolic.go
	ModeNeural        Mode = "neural"         // mode_neural.go
	ModeNeuroSymbolic Mode = "neuro_symbolic" // mode_neuro_symbolic.go
	ModeCausal        Mode = "causal"         // mode_causal.go
)

var modes = []Mode{ModeSymbolic, ModeNeural, ModeNeuroSymbolic, ModeCausal}

func validMode(m Mode) bool {
	for _, v := range modes {
		if v == m {
			return true
		}
	}
	return false
}

// method is what a mode runs between feature extraction and claim
// generation: its search stages, which add claims and artifacts to the
// run. Like gonum's optimize.Method, each mode is one type behind one small
// interface. The conservation search (mode_conservation.go) is a method
// too, run by the symbolic and neuro-symbolic modes when a trajectory:
// constraint is given. What every mode shares stays with the runner it
// embeds: validation (validate.go), data preparation (prepare.go), the time
// budget and the summary (discover.go), the law pipeline's measurements,
// controls and claims (law.go), and artifacts (run_artifacts.go).
type method interface {
	discover(ctx context.Context) error
}

// lawMethod is a mode that explains each target by a law. The law pipeline
// (runner.laws) asks it for every target's law within the search stages,
// then measures each law on held-out rows with negative controls,
// cross-validation and bootstrap stability; the last two refit.
type lawMethod interface {
	// searchLaw finds target's law on the training rows: the chosen model
	// and up to maxAlternatives alternatives.
	searchLaw(ctx context.Context, target string, y []float64) (chosen *lawModel, alternatives []*lawModel, err error)
	// refit fits a law of target on (X, y), effort scaling the search.
	refit(ctx context.Context, target string, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error)
}

var (
	_ lawMethod = (*symbolicMode)(nil)
	_ lawMethod = (*neuralMode)(nil)
	_ lawMethod = (*neuroSymbolicMode)(nil)
	_ method    = (*causalMode)(nil)
	_ method    = (*conservationMode)(nil)
	_ method    = (*dynamicsMode)(nil)
)

// methodOf is the method of the run's mode; symbolic is the default, and
// a symbolic run with a dynamics: constraint discovers equations of motion.
func methodOf(r *runner) method {
	switch {
	case r.plan.spec.Mode == ModeCausal:
		return &causalMode{r}
	case r.plan.spec.Mode == ModeNeural:
		return &neuralMode{r}
	case r.plan.spec.Mode == ModeNeuroSymbolic:
		return newNeuroSymbolicMode(r)
	case len(r.plan.constraints.Dynamics) > 0:
		return &dynamicsMode{r}
	default:
		return &symbolicMode{r}
	}
}
