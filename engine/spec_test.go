package engine

import (
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/engine/data"
)

func specFrame(t *testing.T) *data.Frame {
	rng := rand.New(rand.NewSource(1))
	f := frameOf(t, []string{"t", "x0", "x1", "y"}, seqf(30), gaussian(rng, 30), gaussian(rng, 30), gaussian(rng, 30))
	labels := make([]string, 30)
	for i := range labels {
		labels[i] = []string{"a", "b"}[i%2]
	}
	f.Columns = append(f.Columns, data.Column{Name: "name", DType: data.String, Strings: labels})
	return f
}

func seqf(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

func TestSpecValidateErrors(t *testing.T) {
	f := specFrame(t)
	cases := []struct {
		name  string
		spec  Spec
		code  string
		field string
	}{
		{"unknown mode", Spec{Mode: "magic"}, CodeModeInvalid, "mode"},
		{"unknown constraint key", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"colour:red"}}}, CodeConstraintInvalid, "constraints"},
		{"no colon", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"max_depth"}}}, CodeConstraintInvalid, "constraints"},
		{"malformed depth", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"max_depth:deep"}}}, CodeConstraintInvalid, "constraints"},
		{"alpha out of range", Spec{Mode: ModeCausal, Parameters: Parameters{Constraints: []string{"alpha:2"}}}, CodeConstraintInvalid, "constraints"},
		{"bad lag", Spec{Mode: ModeCausal, Parameters: Parameters{Constraints: []string{"max_lag:0"}}}, CodeConstraintInvalid, "constraints"},
		{"unknown operator", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"operators:+,%"}}}, CodeConstraintInvalid, "constraints"},
		{"excluded column missing", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"exclude:x9"}}}, CodeConstraintInvalid, "constraints"},
		{"time column missing", Spec{Mode: ModeCausal, Parameters: Parameters{Constraints: []string{"time:when"}}}, CodeConstraintInvalid, "constraints"},
		{"time column not numeric", Spec{Mode: ModeCausal, Parameters: Parameters{Constraints: []string{"time:name"}}}, CodeConstraintInvalid, "constraints"},
		{"duplicate key", Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"max_depth:3", "max_depth:4"}}}, CodeConstraintInvalid, "constraints"},
		{"bad backbone", Spec{Mode: ModeNeural, Parameters: Parameters{NeuralBackbone: "transformer"}}, CodeParameterInvalid, "neural_backbone"},
		{"unknown prior", Spec{Mode: ModeSymbolic, Parameters: Parameters{SymbolicPrior: "astrology"}}, CodeParameterInvalid, "symbolic_prior"},
		{"unknown control", Spec{Mode: ModeSymbolic, NegativeControls: []string{"coin_flip"}}, CodeParameterInvalid, "negative_controls"},
		{"time_shift without time", Spec{Mode: ModeSymbolic, NegativeControls: []string{ControlTimeShift}}, CodeParameterInvalid, "negative_controls"},
		{"unknown target", Spec{Mode: ModeSymbolic, Targets: []string{"z"}}, CodeParameterInvalid, "target_variables"},
		{"string target", Spec{Mode: ModeSymbolic, Parameters: Parameters{TargetVariables: []string{"name"}}}, CodeParameterInvalid, "target_variables"},
		{"negative complexity", Spec{Mode: ModeSymbolic, Parameters: Parameters{MaxComplexity: -1}}, CodeParameterInvalid, "max_complexity"},
		{"negative epochs", Spec{Mode: ModeNeural, Parameters: Parameters{Epochs: -5}}, CodeParameterInvalid, "epochs"},
		{"threshold above one", Spec{Mode: ModeSymbolic, EvidenceThreshold: 1.5}, CodeParameterInvalid, "evidence_threshold"},
		{"no features left", Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Parameters: Parameters{Constraints: []string{"exclude:x0,x1,t"}}}, CodeConstraintInvalid, "constraints"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate(f)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("want *SpecError, got %v", err)
			}
			if se.Code != tc.code || se.Field != tc.field {
				t.Fatalf("got %s/%s (%s), want %s/%s", se.Code, se.Field, se.Message, tc.code, tc.field)
			}
		})
	}
}

// A time column that is not numeric is refused with the fix, in every
// mode: one check, not one per mode.
func TestSpecTimeColumnNotNumericSaysTheFix(t *testing.T) {
	f := specFrame(t)
	for _, mode := range []Mode{ModeCausal, ModeSymbolic} {
		err := Spec{Mode: mode, Parameters: Parameters{Constraints: []string{"time:name"}}}.Validate(f)
		var se *SpecError
		if !errors.As(err, &se) || se.Code != CodeConstraintInvalid || !strings.Contains(se.Message, `"name"`) || !strings.Contains(se.Message, "numeric times in time:") {
			t.Errorf("%s: %v, want constraint_invalid naming \"name\" and asking for numeric times in time:", mode, err)
		}
	}
}

func TestSpecValidateAccepts(t *testing.T) {
	f := specFrame(t)
	good := []Spec{
		{Mode: ModeSymbolic},
		{Mode: ModeSymbolic, Targets: []string{"y"}, Parameters: Parameters{Constraints: []string{"operators:+,-,*,/", "max_depth:6", "exclude:t", "time:t"}},
			NegativeControls: []string{ControlShuffledTarget, ControlTimeShift}},
		{Mode: ModeNeuroSymbolic, Parameters: Parameters{NeuralBackbone: "mlp-2x16", SymbolicPrior: "physics", Epochs: 50}},
		{Mode: ModeCausal, Parameters: Parameters{Constraints: []string{"alpha:0.01", "include:x0,x1,y", "max_lag:3"}}},
	}
	for _, s := range good {
		if err := s.Validate(f); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestSpecValidateDataProblems(t *testing.T) {
	short := frameOf(t, []string{"x", "y"}, seqf(5), seqf(5))
	var ve *data.ValidationError
	if err := (Spec{Mode: ModeSymbolic}).Validate(short); !errors.As(err, &ve) || ve.Code != data.CodeTooFewRows {
		t.Fatalf("too few rows: %v", err)
	}
	constant := frameOf(t, []string{"x", "y"}, seqf(30), make([]float64, 30))
	if err := (Spec{Mode: ModeSymbolic, Targets: []string{"y"}}).Validate(constant); !errors.As(err, &ve) || ve.Code != data.CodeColumnConstant {
		t.Fatalf("constant target: %v", err)
	}
}

func TestEstimateComputeUnits(t *testing.T) {
	sym := func(rows, cols int, p Parameters, limit time.Duration) int {
		return EstimateComputeUnits(rows, cols, Spec{Mode: ModeSymbolic, Parameters: p, TimeLimit: limit})
	}
	for _, c := range []struct {
		name       string
		rows, cols int
		p          Parameters
		limit      time.Duration
		want       int
	}{
		// (1500 + 4·18)/60 = 26.2 generations-seconds, 0.008 for the data, 2 controls.
		{"symbolic default", 1000, 4, Parameters{}, 0, 27 + 2},
		// The search runs on sampled rows: 100,000 rows add 2 units, not 4,000.
		{"symbolic, large data", 100000, 10, Parameters{}, 0, 29 + 2},
		{"symbolic, 60 epochs", 1000, 4, Parameters{Epochs: 60}, 0, 3 + 2},
		{"symbolic, cross-validated", 1000, 4, Parameters{CrossValidate: true}, 0, 28 + 2},
		{"symbolic, time limit", 1000, 4, Parameters{Epochs: 100000}, 10 * time.Second, 10},
	} {
		if got := sym(c.rows, c.cols, c.p, c.limit); got != c.want {
			t.Errorf("%s: %d units, want %d", c.name, got, c.want)
		}
	}
	if got := EstimateComputeUnits(1000, 4, Spec{Mode: ModeNeural}); got != 8+2 {
		t.Errorf("neural: %d units, want 10 (4000 cells / 1000 * 2, 2 controls)", got)
	}
	// Neuro-symbolic: the neural surrogate plus the symbolic search.
	if got := EstimateComputeUnits(1000, 4, Spec{Mode: ModeNeuroSymbolic}); got != 35+2 {
		t.Errorf("neuro_symbolic: %d units, want 37 (8 for the surrogate + (1500 + 4*18)/60 + 0.008 for the search, 2 controls)", got)
	}
	if got := EstimateComputeUnits(1000, 4, Spec{Mode: ModeCausal, NegativeControls: []string{"placebo_cause"}}); got != 8+1 {
		t.Errorf("causal: %d units, want 9 (4000 cells / 1000 * 4/2, 1 control)", got)
	}
	// Empty data counts as one cell: 1 unit of work, plus the 2 default controls.
	if got := EstimateComputeUnits(0, 0, Spec{Mode: ModeNeural, NegativeControls: []string{}}); got < 1 || got != 1+2 {
		t.Errorf("empty data: %d units, want 3 (and at least 1)", got)
	}
}

// A prior that names the default operator set keeps the seeding passes' extra
// functions (symbolic.SeedOperators), as a run without a prior does; a prior
// with its own set, or an operators: constraint, is used as it is.
func TestSymbolicPriorOfTheDefaultSetKeepsSeedOperators(t *testing.T) {
	f := specFrame(t)
	for _, c := range []struct {
		prior       string
		constraints []string
		want        []string
	}{
		{"", nil, nil},
		{"default", nil, nil},
		{"physics", nil, nil},
		{"trigonometric", nil, []string{"+", "-", "*", "/", "sin", "cos", "tan"}},
		{"physics", []string{"operators:+,-,*,/"}, []string{"+", "-", "*", "/"}},
	} {
		p, err := Spec{Mode: ModeSymbolic, Parameters: Parameters{SymbolicPrior: c.prior, Constraints: c.constraints}}.resolve(f)
		if err != nil {
			t.Fatalf("%q %v: %v", c.prior, c.constraints, err)
		}
		if !slices.Equal(p.operators, c.want) {
			t.Errorf("prior %q, constraints %v: operators %v, want %v", c.prior, c.constraints, p.operators, c.want)
		}
	}
}
