package runs

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/datasets"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/runspec"
)

// Deps is what the runs room needs.
type Deps struct {
	Kit *resource.Kit
	// Blob holds run artifacts; nil answers 501 for their content.
	Blob *blob.Bucket
}

type handlers struct {
	Deps
	service *Service
}

// Register adds the run operations, and a run's artifacts, under
// /projects/{project_id}/campaigns/{campaign_id}/runs.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d, service: &Service{Client: d.Kit.Client, APIReader: d.Kit.APIReader, Now: d.Kit.Now}}
	g := huma.NewGroup(api, "/projects/{project_id}/campaigns/{campaign_id}/runs")
	base := ""
	transport.Register(g, huma.Operation{
		OperationID: "submitRun", Method: http.MethodPost, Path: base,
		Summary: "Submit a run", Tags: []string{"Runs"}, DefaultStatus: http.StatusCreated,
		Description: "The dataset must be ready. An archived project or campaign accepts no runs (409 conflict, " +
			"details.status archived). The campaign budget is checked against the run's estimate " +
			"(403 budget_exhausted, details.constraint compute_units, max_runs or expires_at). A run with the same " +
			"mode, dataset and parameters already queued or running in the campaign gives 409 duplicate_run. " +
			"Run submission has its own, lower rate limit.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, auth.RunsWrite, s.submitRun)
	transport.Register(g, huma.Operation{
		OperationID: "listRuns", Method: http.MethodGet, Path: base,
		Summary: "List a campaign's runs", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.listRuns)
	transport.Register(g, huma.Operation{
		OperationID: "getRun", Method: http.MethodGet, Path: base + "/{run_id}",
		Summary: "Get a run", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.getRun)
	transport.Register(g, huma.Operation{
		OperationID: "getRunStatus", Method: http.MethodGet, Path: base + "/{run_id}/status",
		Summary: "Get a run's progress", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.getRunStatus)
	transport.Register(g, huma.Operation{
		OperationID: "getRunResults", Method: http.MethodGet, Path: base + "/{run_id}/results",
		Summary: "Get a completed run's results", Tags: []string{"Runs"},
		Description: "409 run_not_completed until the run has completed.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, auth.RunsRead, s.getRunResults)
	transport.Register(g, huma.Operation{
		OperationID: "cancelRun", Method: http.MethodPost, Path: base + "/{run_id}/cancel",
		Summary: "Cancel a run", Tags: []string{"Runs"}, DefaultStatus: http.StatusAccepted,
		Description: "Asks for the run to stop; it moves to cancelled once the executor has stopped it. " +
			"409 run_already_finished for a run that has finished.",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.RunsWrite, s.cancelRun)
	s.registerArtifacts(g, "/{run_id}")
}

type listRunsInput struct {
	resource.CampaignPath
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

func (s *handlers) listRuns(ctx context.Context, in *listRunsInput) (*resource.ListOutput[Run], error) {
	_, t := auth.Who(ctx)
	if _, _, err := s.Kit.Campaign(ctx, in.ProjectID, in.CampaignID); err != nil {
		return nil, err
	}
	var list discov1.RunList
	if err := s.Kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Campaign: in.CampaignID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Run, 0, len(list.Items))
	for i := range list.Items {
		r := &list.Items[i]
		if r.ProjectID() != in.ProjectID || (in.Status != "" && string(runPhase(r)) != in.Status) ||
			(in.Mode != "" && string(r.Spec.Mode) != in.Mode) || (in.DatasetID != "" && r.DatasetID() != in.DatasetID) {
			continue
		}
		items = append(items, r)
	}
	return resource.Paginate(s.Kit, items, runSort, in.PageParams, in.Sort, resource.FilterKey("campaign", in.CampaignID, "status", in.Status, "mode", in.Mode, "dataset_id", in.DatasetID), runOf)
}

// run loads a run of a reachable campaign.
func (s *handlers) run(ctx context.Context, in *RunPath) (*discov1.Run, error) {
	if _, _, err := s.Kit.Campaign(ctx, in.ProjectID, in.CampaignID); err != nil {
		return nil, err
	}
	var r discov1.Run
	if err := s.Kit.GetIn(ctx, "run", ids.Run, in.RunID, &r); err != nil {
		return nil, err
	}
	if r.CampaignID() != in.CampaignID || r.ProjectID() != in.ProjectID {
		return nil, apierror.NotFound("run", in.RunID)
	}
	return &r, nil
}

func (s *handlers) getRun(ctx context.Context, in *RunPath) (*struct{ Body Run }, error) {
	r, err := s.run(ctx, in)
	if err != nil {
		return nil, err
	}
	return &struct{ Body Run }{Body: runOf(r)}, nil
}

func (s *handlers) getRunStatus(ctx context.Context, in *RunPath) (*struct{ Body RunStatus }, error) {
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

func (s *handlers) getRunResults(ctx context.Context, in *RunPath) (*struct{ Body RunResults }, error) {
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

func (s *handlers) cancelRun(ctx context.Context, in *RunPath) (*struct{ Body Run }, error) {
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
		r.Annotations[discov1.AnnotationCancelRequested] = s.Kit.Now().UTC().Format(time.RFC3339) + " " + p.Actor
		if err := s.Kit.Client.Patch(ctx, r, patch); err != nil {
			return nil, resource.WriteErrorOf(err, "run", in.RunID)
		}
		s.Kit.AwaitCache(ctx, r)
	}
	return &struct{ Body Run }{Body: runOf(r)}, nil
}

func (s *handlers) submitRun(ctx context.Context, in *struct {
	resource.CampaignPath
	Body runSubmit
}) (*runOutput, error) {
	p, t := auth.Who(ctx)
	proj, camp, err := s.Kit.Campaign(ctx, in.ProjectID, in.CampaignID)
	if err != nil {
		return nil, err
	}
	if err := projects.Archived(proj, "runs"); err != nil {
		return nil, err
	}
	if err := campaignRefusal(camp, s.Kit.Now()); err != nil {
		return nil, err
	}

	mode := in.Body.Mode
	if mode == "" {
		mode = projects.Of(proj).Settings.DefaultMode
	}
	var ds discov1.Dataset
	if err := s.Kit.GetIn(ctx, "dataset", ids.Dataset, in.Body.DatasetID, &ds); err != nil || ds.ProjectID() != in.ProjectID {
		return nil, apierror.NotFound("dataset", in.Body.DatasetID).With("field", "body.dataset_id")
	}
	if ph := datasets.Phase(&ds); ph != discov1.DatasetReady {
		return nil, apierror.New(http.StatusConflict, apierror.CodeDatasetNotReady,
			"dataset %s is %s; runs need a ready dataset", in.Body.DatasetID, ph).
			With("dataset_id", in.Body.DatasetID).With("status", string(ph))
	}

	spec := in.Body.spec(mode)
	if e := checkRunSpec(runspec.Engine(spec, 0), ds.Status.Variables); e != nil {
		return nil, e
	}
	run, err := s.service.Create(ctx, Submission{
		Namespace: t.Namespace, TenantID: t.ID, ProjectID: in.ProjectID, Campaign: camp, DatasetID: in.Body.DatasetID,
		DatasetName: humanName(&ds),
		Mode:        spec.Mode, Parameters: spec.Parameters, Governance: spec.Governance, Actor: p.Actor,
		Estimate: runspec.Estimate(spec, int(ds.Status.Rows), int(ds.Status.Columns)),
	})
	if err != nil {
		return nil, err
	}
	s.Kit.AwaitCache(ctx, run)
	id := run.ID()
	return &runOutput{Location: s.Kit.BaseURL + "/projects/" + in.ProjectID + "/campaigns/" + in.CampaignID + "/runs/" + id, Body: runOf(run)}, nil
}

// humanName is the dataset's object name when it is not named by its id (applied with
// kubectl under a name of its author's), else "".
func humanName(ds *discov1.Dataset) string {
	if ds.Name == ids.ToName(ds.ID()) {
		return ""
	}
	return ds.Name
}
