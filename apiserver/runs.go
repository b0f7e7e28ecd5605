package apiserver

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/runspec"
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

func runPhase(r *discov1.Run) discov1.RunPhase {
	if r.Status.Phase == "" {
		return discov1.RunQueued
	}
	return r.Status.Phase
}

func runOf(r *discov1.Run) Run {
	p := r.Spec.Parameters
	g := r.Spec.Governance
	return Run{
		ID:         ids.FromName(r.Name),
		ProjectID:  r.Spec.ProjectID,
		CampaignID: r.Spec.CampaignID,
		Mode:       string(r.Spec.Mode),
		DatasetID:  r.Spec.DatasetID,
		Status:     string(runPhase(r)),
		CreatedAt:  resource.UTC(r.CreationTimestamp),
		CreatedBy:  r.Spec.CreatedBy,
		Parameters: RunParameters{
			TargetVariables: nonNil(p.TargetVariables),
			Constraints:     nonNil(p.Constraints),
			MaxComplexity:   p.MaxComplexity,
			SymbolicPrior:   p.SymbolicPrior,
			NeuralBackbone:  p.NeuralBackbone,
			Epochs:          p.Epochs,
			CrossValidate:   p.CrossValidate,
		},
		Governance:            RunGovernance{NegativeControls: nonNil(g.NegativeControls), EvidenceThreshold: g.EvidenceThreshold},
		ComputeUnitsEstimated: r.Spec.ComputeUnitsEstimated,
		CancelRequested:       r.Annotations[discov1.AnnotationCancelRequested] != "",
		Message:               r.Status.Message,
	}
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

type runSubmit struct {
	Mode       string         `json:"mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal" doc:"Default: the project's settings.default_mode."`
	DatasetID  string         `json:"dataset_id" required:"true" maxLength:"64"`
	Parameters *RunParameters `json:"parameters,omitempty"`
	Governance *RunGovernance `json:"governance,omitempty"`
}

func (s *Server) registerRuns() {
	base := "/projects/{project_id}/campaigns/{campaign_id}/runs"
	transport.Register(s.api, huma.Operation{
		OperationID: "submitRun", Method: http.MethodPost, Path: base,
		Summary: "Submit a run", Tags: []string{"Runs"}, DefaultStatus: http.StatusCreated,
		Description: "The dataset must be ready. An archived project or campaign accepts no runs (409 conflict, " +
			"details.status archived). The campaign budget is checked against the run's estimate " +
			"(403 budget_exhausted, details.constraint compute_units, max_runs or expires_at). A run with the same " +
			"mode, dataset and parameters already queued or running in the campaign gives 409 duplicate_run. " +
			"Run submission has its own, lower rate limit.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, auth.RunsWrite, s.submitRun)
	transport.Register(s.api, huma.Operation{
		OperationID: "listRuns", Method: http.MethodGet, Path: base,
		Summary: "List a campaign's runs", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.listRuns)
	transport.Register(s.api, huma.Operation{
		OperationID: "getRun", Method: http.MethodGet, Path: base + "/{run_id}",
		Summary: "Get a run", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.getRun)
	transport.Register(s.api, huma.Operation{
		OperationID: "getRunStatus", Method: http.MethodGet, Path: base + "/{run_id}/status",
		Summary: "Get a run's progress", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.getRunStatus)
	transport.Register(s.api, huma.Operation{
		OperationID: "getRunResults", Method: http.MethodGet, Path: base + "/{run_id}/results",
		Summary: "Get a completed run's results", Tags: []string{"Runs"},
		Description: "409 run_not_completed until the run has completed.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, auth.RunsRead, s.getRunResults)
	transport.Register(s.api, huma.Operation{
		OperationID: "cancelRun", Method: http.MethodPost, Path: base + "/{run_id}/cancel",
		Summary: "Cancel a run", Tags: []string{"Runs"}, DefaultStatus: http.StatusAccepted,
		Description: "Asks for the run to stop; it moves to cancelled once the executor has stopped it. " +
			"409 run_already_finished for a run that has finished.",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.RunsWrite, s.cancelRun)
	s.registerArtifacts(base + "/{run_id}")
}

type runOutput struct {
	Location string `header:"Location"`
	Body     Run
}

// lockCampaign serialises submissions to one campaign in this replica: the fast path,
// so that submissions through one replica do not race each other for a slot.
func (s *Server) lockCampaign(id string) func() {
	v, _ := s.campaignLocks.LoadOrStore(id, &sync.Mutex{})
	m := v.(*sync.Mutex)
	m.Lock()
	return m.Unlock
}

// maxSlotAttempts bounds how often one submission re-reads the campaign after losing a
// slot to a concurrent submission (through another replica).
const maxSlotAttempts = 16

// runSlotID is the id of a campaign's n-th run (from 0). Runs are named by their slot, so
// two submissions that read the same runs and both fit the budget try to create the same
// object: the API server accepts one and refuses the other with AlreadyExists, which then
// reads the runs again and checks the budget and duplicates anew. That makes run creation
// the serialisation point across replicas, and the budget is never overspent.
func runSlotID(campaignID string, n int) string {
	return ids.Derive(ids.Run, campaignID, "slot", strconv.Itoa(n))
}

func (s *Server) submitRun(ctx context.Context, in *struct {
	CampaignPath
	Body runSubmit
}) (*runOutput, error) {
	p, t := auth.Who(ctx)
	proj, camp, err := s.kit.Campaign(ctx, in.ProjectID, in.CampaignID)
	if err != nil {
		return nil, err
	}
	if err := archivedProject(proj, "runs"); err != nil {
		return nil, err
	}
	unlock := s.lockCampaign(in.CampaignID)
	defer unlock()

	switch st := s.campaignStatus(camp); discov1.CampaignPhase(st) {
	case discov1.CampaignArchived:
		return nil, apierror.Conflict("the campaign is archived and accepts no runs").With("campaign_id", in.CampaignID).With("status", st)
	case discov1.CampaignExpired:
		return nil, budgetExhausted(in.CampaignID, "expires_at", "the campaign expired at %s", camp.Spec.Budget.ExpiresAt.UTC().Format(time.RFC3339)).
			With("expires_at", camp.Spec.Budget.ExpiresAt.UTC())
	}

	mode := in.Body.Mode
	if mode == "" {
		mode = projectOf(proj).Settings.DefaultMode
	}
	var ds discov1.Dataset
	if err := s.kit.GetIn(ctx, "dataset", ids.Dataset, in.Body.DatasetID, &ds); err != nil || ds.Spec.ProjectID != in.ProjectID {
		return nil, apierror.NotFound("dataset", in.Body.DatasetID).With("field", "body.dataset_id")
	}
	if ph := datasetPhase(&ds); ph != discov1.DatasetReady {
		return nil, apierror.New(http.StatusConflict, apierror.CodeDatasetNotReady,
			"dataset %s is %s; runs need a ready dataset", in.Body.DatasetID, ph).
			With("dataset_id", in.Body.DatasetID).With("status", string(ph))
	}

	params := discov1.RunParameters{}
	if bp := in.Body.Parameters; bp != nil {
		params = discov1.RunParameters{
			TargetVariables: bp.TargetVariables, Constraints: bp.Constraints, MaxComplexity: bp.MaxComplexity,
			SymbolicPrior: bp.SymbolicPrior, NeuralBackbone: bp.NeuralBackbone, Epochs: bp.Epochs, CrossValidate: bp.CrossValidate,
		}
	}
	gov := discov1.RunGovernance{}
	if bg := in.Body.Governance; bg != nil {
		gov = discov1.RunGovernance{NegativeControls: bg.NegativeControls, EvidenceThreshold: bg.EvidenceThreshold}
	}
	spec := runspec.Engine(discov1.RunSpec{Mode: discov1.Mode(mode), Parameters: params, Governance: gov}, 0)
	if e := checkRunSpec(spec, ds.Status.Variables); e != nil {
		return nil, e
	}
	estimate := runspec.Estimate(discov1.RunSpec{Mode: discov1.Mode(mode), Parameters: params, Governance: gov}, int(ds.Status.Rows), int(ds.Status.Columns))

	for attempt := 1; ; attempt++ {
		// Budget and duplicates, against every run of the campaign as the API server has
		// them (not the cache, which may not have the latest submissions yet).
		var runs discov1.RunList
		if err := s.opts.APIReader.List(ctx, &runs, client.InNamespace(t.Namespace),
			client.MatchingLabels{discov1.LabelCampaign: in.CampaignID}); err != nil {
			return nil, apierror.Internal(err)
		}
		taken := make(map[string]bool, len(runs.Items))
		mine := make([]discov1.Run, 0, len(runs.Items))
		for i := range runs.Items {
			r := &runs.Items[i]
			taken[r.Name] = true
			if r.Spec.CampaignID != in.CampaignID {
				continue
			}
			mine = append(mine, *r)
			ph := runPhase(r)
			if (ph == discov1.RunQueued || ph == discov1.RunRunning) && r.Annotations[discov1.AnnotationCancelRequested] == "" &&
				string(r.Spec.Mode) == mode && r.Spec.DatasetID == in.Body.DatasetID &&
				sameParameters(r.Spec.Parameters, params) && sameGovernance(r.Spec.Governance, gov) {
				return nil, apierror.New(http.StatusConflict, apierror.CodeDuplicateRun,
					"run %s with the same mode, dataset and parameters is already %s in this campaign", ids.FromName(r.Name), ph).
					With("run_id", ids.FromName(r.Name)).With("status", string(ph))
			}
		}
		// The same accounting as the campaign's status (governance.CampaignUsage), taken no lower
		// than what the status already reports.
		usage := governance.CampaignUsage(camp, mine)
		usage.ComputeUnitsUsed = max(usage.ComputeUnitsUsed, camp.Status.ComputeUnitsUsed)
		usage.RunsTotal = max(usage.RunsTotal, camp.Status.RunsTotal)
		if ok, constraint := governance.CanAdmit(camp, usage, estimate, s.now()); !ok {
			return nil, budgetRefusal(camp, usage, estimate, constraint)
		}

		// The next free slot: the number of runs, past any slot still taken (a run of a
		// lower slot may be gone).
		slot := len(runs.Items)
		for taken[ids.ToName(runSlotID(in.CampaignID, slot))] {
			slot++
		}
		id := runSlotID(in.CampaignID, slot)
		run := &discov1.Run{
			ObjectMeta: metav1.ObjectMeta{
				Name: ids.ToName(id), Namespace: t.Namespace,
				Labels: resource.Labels(t.ID, discov1.LabelProject, in.ProjectID, discov1.LabelCampaign, in.CampaignID,
					discov1.LabelRun, id, discov1.LabelDataset, in.Body.DatasetID),
			},
			Spec: discov1.RunSpec{
				ProjectID: in.ProjectID, CampaignID: in.CampaignID, Mode: discov1.Mode(mode), DatasetID: in.Body.DatasetID,
				Parameters: params, Governance: gov, ComputeUnitsEstimated: estimate, Seed: seedOf(id), CreatedBy: p.Actor,
			},
		}
		err := s.opts.Client.Create(ctx, run)
		if apierrors.IsAlreadyExists(err) {
			// Another submission (through another replica) took the slot: read again.
			if attempt < maxSlotAttempts {
				select {
				case <-ctx.Done():
					return nil, apierror.Internal(ctx.Err())
				case <-time.After(time.Duration(rand.IntN(5*attempt)+1) * time.Millisecond):
				}
				continue
			}
			return nil, apierror.Conflict("too many concurrent submissions to this campaign; retry").
				With("campaign_id", in.CampaignID).With("resource", "run")
		}
		if err != nil {
			return nil, resource.WriteErrorOf(err, "run", id)
		}
		s.kit.AwaitCache(ctx, run)
		return &runOutput{Location: s.opts.BaseURL + "/projects/" + in.ProjectID + "/campaigns/" + in.CampaignID + "/runs/" + id, Body: runOf(run)}, nil
	}
}

// budgetRefusal words governance.CanAdmit's refusal for the client.
func budgetRefusal(camp *discov1.Campaign, u governance.BudgetUsage, estimate int64, constraint string) *apierror.Error {
	id, b := ids.FromName(camp.Name), camp.Spec.Budget
	switch constraint {
	case "archived":
		return apierror.Conflict("the campaign is archived and accepts no runs").With("campaign_id", id).With("status", string(discov1.CampaignArchived))
	case "expires_at":
		return budgetExhausted(id, "expires_at", "the campaign expired at %s", b.ExpiresAt.UTC().Format(time.RFC3339)).
			With("expires_at", b.ExpiresAt.UTC())
	case "max_runs":
		return budgetExhausted(id, "max_runs", "the campaign allows %d runs and has %d", b.MaxRuns, u.RunsTotal).
			With("max_runs", b.MaxRuns).With("runs_total", u.RunsTotal)
	default:
		return budgetExhausted(id, "compute_units",
			"the run needs an estimated %d compute units; the campaign has %d of %d left", estimate, max(b.ComputeUnits-u.ComputeUnitsUsed, 0), b.ComputeUnits).
			With("compute_units", b.ComputeUnits).With("compute_units_used", u.ComputeUnitsUsed).With("compute_units_estimated", estimate)
	}
}

func budgetExhausted(campaignID, constraint, format string, args ...any) *apierror.Error {
	return apierror.New(http.StatusForbidden, apierror.CodeBudgetExhausted, format, args...).
		With("constraint", constraint).With("campaign_id", campaignID)
}

// sameParameters compares parameters as submitted, treating nil and empty lists alike.
func sameParameters(a, b discov1.RunParameters) bool {
	norm := func(p discov1.RunParameters) discov1.RunParameters {
		if len(p.TargetVariables) == 0 {
			p.TargetVariables = nil
		}
		if len(p.Constraints) == 0 {
			p.Constraints = nil
		}
		return p
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func sameGovernance(a, b discov1.RunGovernance) bool {
	if len(a.NegativeControls) == 0 {
		a.NegativeControls = nil
	}
	if len(b.NegativeControls) == 0 {
		b.NegativeControls = nil
	}
	return reflect.DeepEqual(a, b)
}

// seedOf derives the run's seed from its id: reproducible for the run, different
// between runs.
func seedOf(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int64(h.Sum64() & 0x7fffffffffffffff)
}

type listRunsInput struct {
	CampaignPath
	resource.PageParams
	Sort      string `query:"sort" enum:"created_at,compute_units_estimated" doc:"Field to sort by; default created_at."`
	Status    string `query:"status" enum:"queued,running,completed,failed,cancelled" doc:"Only runs with this status."`
	Mode      string `query:"mode" enum:"symbolic,neural,neuro_symbolic,causal" doc:"Only runs of this mode."`
	DatasetID string `query:"dataset_id" maxLength:"64" doc:"Only runs over this dataset."`
}

var runSort = pagination.Spec[*discov1.Run]{
	Name: "runs",
	Fields: map[string]func(*discov1.Run) pagination.Key{
		"created_at":              func(r *discov1.Run) pagination.Key { return resource.CreatedKey(r) },
		"compute_units_estimated": func(r *discov1.Run) pagination.Key { return pagination.Number(float64(r.Spec.ComputeUnitsEstimated)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(r *discov1.Run) string { return r.Name },
}

func (s *Server) listRuns(ctx context.Context, in *listRunsInput) (*resource.ListOutput[Run], error) {
	_, t := auth.Who(ctx)
	if _, _, err := s.kit.Campaign(ctx, in.ProjectID, in.CampaignID); err != nil {
		return nil, err
	}
	var list discov1.RunList
	if err := s.kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Campaign: in.CampaignID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Run, 0, len(list.Items))
	for i := range list.Items {
		r := &list.Items[i]
		if r.Spec.ProjectID != in.ProjectID || (in.Status != "" && string(runPhase(r)) != in.Status) ||
			(in.Mode != "" && string(r.Spec.Mode) != in.Mode) || (in.DatasetID != "" && r.Spec.DatasetID != in.DatasetID) {
			continue
		}
		items = append(items, r)
	}
	return resource.Paginate(s.kit, items, runSort, in.PageParams, in.Sort, resource.FilterKey("campaign", in.CampaignID, "status", in.Status, "mode", in.Mode, "dataset_id", in.DatasetID), runOf)
}

type RunPath struct {
	CampaignPath
	RunID string `path:"run_id" maxLength:"64" doc:"Run id (run_ prefix)."`
}

// run loads a run of a reachable campaign.
func (s *Server) run(ctx context.Context, in *RunPath) (*discov1.Run, error) {
	if _, _, err := s.kit.Campaign(ctx, in.ProjectID, in.CampaignID); err != nil {
		return nil, err
	}
	var r discov1.Run
	if err := s.kit.GetIn(ctx, "run", ids.Run, in.RunID, &r); err != nil {
		return nil, err
	}
	if r.Spec.CampaignID != in.CampaignID || r.Spec.ProjectID != in.ProjectID {
		return nil, apierror.NotFound("run", in.RunID)
	}
	return &r, nil
}

func (s *Server) getRun(ctx context.Context, in *RunPath) (*struct{ Body Run }, error) {
	r, err := s.run(ctx, in)
	if err != nil {
		return nil, err
	}
	return &struct{ Body Run }{Body: runOf(r)}, nil
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

func (s *Server) getRunStatus(ctx context.Context, in *RunPath) (*struct{ Body RunStatus }, error) {
	r, err := s.run(ctx, in)
	if err != nil {
		return nil, err
	}
	st := RunStatus{
		ID:                  in.RunID,
		Status:              string(runPhase(r)),
		ComputeUnitsUsed:    r.Status.ComputeUnitsUsed,
		StartedAt:           resource.UTCPtr(r.Status.StartedAt),
		EstimatedCompletion: resource.UTCPtr(r.Status.EstimatedCompletion),
		Progress:            r.Status.Progress,
		Pipeline:            Pipeline{CurrentStage: r.Status.Pipeline.CurrentStage, Stages: []Stage{}},
		Message:             r.Status.Message,
	}
	for _, sg := range r.Status.Pipeline.Stages {
		st.Pipeline.Stages = append(st.Pipeline.Stages, Stage{Name: sg.Name, Status: sg.Status, Progress: sg.Progress, DurationMS: sg.DurationMS})
	}
	if len(st.Pipeline.Stages) == 0 {
		// Not started: every stage the mode goes through is pending.
		for _, name := range stageNames(string(r.Spec.Mode)) {
			st.Pipeline.Stages = append(st.Pipeline.Stages, Stage{Name: name, Status: "pending"})
		}
	}
	return &struct{ Body RunStatus }{Body: st}, nil
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

func (s *Server) getRunResults(ctx context.Context, in *RunPath) (*struct{ Body RunResults }, error) {
	r, err := s.run(ctx, in)
	if err != nil {
		return nil, err
	}
	if ph := runPhase(r); ph != discov1.RunCompleted {
		return nil, apierror.New(http.StatusConflict, apierror.CodeRunNotCompleted, "run %s is %s; results exist once it has completed", in.RunID, ph).
			With("run_id", in.RunID).With("status", string(ph))
	}
	res := RunResults{
		RunID:            in.RunID,
		Status:           string(discov1.RunCompleted),
		ClaimsCount:      r.Status.ClaimsCount,
		ArtifactsCount:   r.Status.ArtifactsCount,
		ComputeUnitsUsed: r.Status.ComputeUnitsUsed,
		DurationMS:       r.Status.DurationMS,
		CompletedAt:      resource.UTCPtr(r.Status.CompletedAt),
	}
	if sm := r.Status.Summary; sm != nil {
		res.Summary = RunSummary{BestClaimID: sm.BestClaimID, BestClaimType: sm.BestClaimType, BestClaimScore: sm.BestClaimScore, NegativeControlsPassed: sm.NegativeControlsPassed}
	}
	return &struct{ Body RunResults }{Body: res}, nil
}

func (s *Server) cancelRun(ctx context.Context, in *RunPath) (*struct{ Body Run }, error) {
	p, _ := auth.Who(ctx)
	r, err := s.run(ctx, in)
	if err != nil {
		return nil, err
	}
	if ph := runPhase(r); ph.Finished() {
		return nil, apierror.New(http.StatusConflict, apierror.CodeRunFinished, "run %s has already finished (%s)", in.RunID, ph).
			With("run_id", in.RunID).With("status", string(ph))
	}
	if r.Annotations[discov1.AnnotationCancelRequested] == "" {
		patch := client.MergeFrom(r.DeepCopy())
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[discov1.AnnotationCancelRequested] = s.now().UTC().Format(time.RFC3339) + " " + p.Actor
		if err := s.opts.Client.Patch(ctx, r, patch); err != nil {
			return nil, resource.WriteErrorOf(err, "run", in.RunID)
		}
		s.kit.AwaitCache(ctx, r)
	}
	return &struct{ Body Run }{Body: runOf(r)}, nil
}
