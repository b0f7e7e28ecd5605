package runs

import (
	"cmp"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/resource"
)

type RunParameters struct {
	TargetVariables []string `json:"target_variables" maxItems:"64"`
	Constraints     []string `json:"constraints" maxItems:"64"`
	MaxComplexity   *int32   `json:"max_complexity,omitempty" minimum:"1" maximum:"200"`
	SymbolicPrior   string   `json:"symbolic_prior,omitempty" maxLength:"64"`
	NeuralBackbone  string   `json:"neural_backbone,omitempty" maxLength:"64"`
	Epochs          *int32   `json:"epochs,omitempty" minimum:"1" maximum:"100000" doc:"Symbolic mode: generations of the main search (default 1500; a search stops earlier once its law is exact or has settled). Neural and neuro-symbolic modes: surrogate training epochs (default 200)."`
	CrossValidate   bool     `json:"cross_validate"`
}

type RunGovernance struct {
	NegativeControls  []string `json:"negative_controls" maxItems:"8" enum:"shuffled_target,noise_feature,time_shift,placebo_cause" doc:"Negative controls to run; time_shift needs the constraint time:<column>."`
	EvidenceThreshold *float64 `json:"evidence_threshold,omitempty" minimum:"0" maximum:"1"`
}

type Run struct {
	ID                    string        `json:"id" example:"run_abcdefghijklmnopqrstuvwxyz"`
	ProjectID             string        `json:"project_id"`
	CampaignID            string        `json:"campaign_id"`
	Mode                  string        `json:"mode" enum:"symbolic,neural,neuro_symbolic,causal"`
	DatasetID             string        `json:"dataset_id"`
	Status                string        `json:"status" enum:"queued,running,completed,failed,cancelled"`
	CreatedAt             time.Time     `json:"created_at"`
	CreatedBy             string        `json:"created_by"`
	Parameters            RunParameters `json:"parameters"`
	Governance            RunGovernance `json:"governance"`
	ComputeUnitsEstimated int64         `json:"compute_units_estimated"`
	CancelRequested       bool          `json:"cancel_requested"`
	Message               string        `json:"message,omitempty" doc:"Why the run failed or waits."`
}

// runPhase is the run's phase, queued until the controller has set one.
func runPhase(r *discov1.Run) discov1.RunPhase {
	return cmp.Or(r.Status.Phase, discov1.RunQueued)
}

func runOf(r *discov1.Run) Run {
	p := r.Spec.Parameters
	g := r.Spec.Governance
	return Run{
		ID:         r.ID(),
		ProjectID:  r.ProjectID(),
		CampaignID: r.CampaignID(),
		Mode:       string(r.Spec.Mode),
		DatasetID:  r.DatasetID(),
		Status:     string(runPhase(r)),
		CreatedAt:  resource.UTC(r.CreationTimestamp),
		CreatedBy:  r.Spec.CreatedBy,
		Parameters: RunParameters{
			TargetVariables: resource.NonNil(p.TargetVariables),
			Constraints:     resource.NonNil(p.Constraints),
			MaxComplexity:   p.MaxComplexity,
			SymbolicPrior:   p.SymbolicPrior,
			NeuralBackbone:  p.NeuralBackbone,
			Epochs:          p.Epochs,
			CrossValidate:   p.CrossValidate,
		},
		Governance:            RunGovernance{NegativeControls: resource.NonNil(g.NegativeControls), EvidenceThreshold: g.EvidenceThreshold},
		ComputeUnitsEstimated: r.Spec.ComputeUnitsEstimated,
		CancelRequested:       r.Annotations[discov1.AnnotationCancelRequested] != "",
		Message:               r.Status.Message,
	}
}

type runSubmit struct {
	Mode       string         `json:"mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal" doc:"Default: the project's settings.default_mode."`
	DatasetID  string         `json:"dataset_id" required:"true" maxLength:"64"`
	Parameters *RunParameters `json:"parameters,omitempty"`
	Governance *RunGovernance `json:"governance,omitempty"`
}

// spec is the run's spec as submitted, in mode (the body's or the project's default).
func (b runSubmit) spec(mode string) discov1.RunSpec {
	params := discov1.RunParameters{}
	if bp := b.Parameters; bp != nil {
		params = discov1.RunParameters{
			TargetVariables: bp.TargetVariables, Constraints: bp.Constraints, MaxComplexity: bp.MaxComplexity,
			SymbolicPrior: bp.SymbolicPrior, NeuralBackbone: bp.NeuralBackbone, Epochs: bp.Epochs, CrossValidate: bp.CrossValidate,
		}
	}
	gov := discov1.RunGovernance{}
	if bg := b.Governance; bg != nil {
		gov = discov1.RunGovernance{NegativeControls: bg.NegativeControls, EvidenceThreshold: bg.EvidenceThreshold}
	}
	return discov1.RunSpec{Mode: discov1.Mode(mode), Parameters: params, Governance: gov}
}

type runOutput struct {
	Location string `header:"Location"`
	Body     Run
}

type RunPath struct {
	resource.CampaignPath
	RunID string `path:"run_id" maxLength:"64" doc:"Run id (run_ prefix)."`
}

type Stage struct {
	Name       string   `json:"name"`
	Status     string   `json:"status" enum:"pending,running,completed,skipped,failed"`
	Progress   *float64 `json:"progress,omitempty"`
	DurationMS *int64   `json:"duration_ms,omitempty"`
}

type Pipeline struct {
	CurrentStage string  `json:"current_stage"`
	Stages       []Stage `json:"stages"`
}

type RunStatus struct {
	ID                  string     `json:"id"`
	Status              string     `json:"status" enum:"queued,running,completed,failed,cancelled"`
	ComputeUnitsUsed    int64      `json:"compute_units_used"`
	StartedAt           *time.Time `json:"started_at"`
	EstimatedCompletion *time.Time `json:"estimated_completion"`
	Progress            *float64   `json:"progress,omitempty"`
	Pipeline            Pipeline   `json:"pipeline"`
	Message             string     `json:"message,omitempty"`
}

type RunSummary struct {
	BestClaimID            string   `json:"best_claim_id"`
	BestClaimType          string   `json:"best_claim_type"`
	BestClaimScore         *float64 `json:"best_claim_score"`
	NegativeControlsPassed bool     `json:"negative_controls_passed"`
}

type RunResults struct {
	RunID            string     `json:"run_id"`
	Status           string     `json:"status"`
	ClaimsCount      int32      `json:"claims_count"`
	ArtifactsCount   int32      `json:"artifacts_count"`
	Summary          RunSummary `json:"summary"`
	ComputeUnitsUsed int64      `json:"compute_units_used"`
	DurationMS       int64      `json:"duration_ms"`
	CompletedAt      *time.Time `json:"completed_at"`
}
