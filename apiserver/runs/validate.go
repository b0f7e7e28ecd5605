package runs

import (
	"errors"
	"net/http"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/engine"
)

// A submission is checked and priced by the engine itself (engine.Spec.ValidateParameters
// and engine.EstimateComputeUnits), so the facade refuses exactly what the engine would
// refuse without reading the data, and budgets use the engine's own estimate. The
// engine's data_validation stage checks everything again, with the data.

// specFields maps the engine's field names to where they are in a submission.
var specFields = map[string]string{
	"mode":               "mode",
	"constraints":        "parameters.constraints",
	"target_variables":   "parameters.target_variables",
	"max_complexity":     "parameters.max_complexity",
	"epochs":             "parameters.epochs",
	"neural_backbone":    "parameters.neural_backbone",
	"symbolic_prior":     "parameters.symbolic_prior",
	"negative_controls":  "governance.negative_controls",
	"evidence_threshold": "governance.evidence_threshold",
}

// checkRunSpec refuses at submission what the engine refuses without the data, including
// targets and constraint columns the dataset does not have when its profile lists them.
func checkRunSpec(spec engine.Spec, variables []string) *apierror.Error {
	err := spec.ValidateParameters(variables)
	if err == nil {
		return nil
	}
	var se *engine.SpecError
	if !errors.As(err, &se) {
		return apierror.Internal(err)
	}
	field := specFields[se.Field]
	if field == "" {
		field = se.Field
	}
	var e *apierror.Error
	switch se.Code {
	case engine.CodeConstraintInvalid:
		e = apierror.New(http.StatusUnprocessableEntity, apierror.CodeConstraintInvalid, "%s: %s", field, se.Message)
	case engine.CodeModeInvalid:
		return apierror.Invalid("body."+field, se.Message)
	default:
		e = apierror.New(http.StatusUnprocessableEntity, apierror.CodeParameterInvalid, "%s: %s", field, se.Message)
	}
	e = e.With("field", field).With("reason", se.Message)
	if se.Field == "target_variables" || se.Code == engine.CodeConstraintInvalid && len(variables) > 0 {
		e = e.With("variables", variables)
	}
	return e
}

// stageNames are the pipeline stages of a mode.
func stageNames(mode string) []string { return engine.StageNames(mode) }
