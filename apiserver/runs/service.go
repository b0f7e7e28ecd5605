package runs

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/campaigns"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
)

// Service admits run submissions to a campaign. Its checks need no HTTP: whether the
// campaign still takes runs, duplicates of a queued or running run, the campaign's
// budget, and the slot the run takes.
type Service struct {
	// Client creates runs.
	Client client.Client
	// APIReader lists a campaign's runs as the API server has them (not a cache, which
	// may not have the latest submissions yet).
	APIReader client.Reader
	Now       func() time.Time

	// locks serialises submissions to one campaign in this replica (see Create); across
	// replicas the run's slot id does.
	locks sync.Map
}

// Submission is a run to create, checked against the engine already (checkRunSpec).
type Submission struct {
	Namespace, TenantID, ProjectID string
	Campaign                       *discov1.Campaign
	DatasetID                      string
	Mode                           discov1.Mode
	Parameters                     discov1.RunParameters
	Governance                     discov1.RunGovernance
	// Estimate is the run's compute units (runspec.Estimate).
	Estimate int64
	// Actor is who submits: created_by.
	Actor string
	// DatasetName is the dataset's object name when it is not named by its id (applied
	// with kubectl): the run then refers to it by name (spec.datasetRef), the form the run
	// controller reads (issue 14, item 6).
	DatasetName string
}

// campaignRefusal refuses a submission to a campaign that takes no more runs at now:
// archived (409 conflict) or expired (403 budget_exhausted, constraint expires_at).
func campaignRefusal(camp *discov1.Campaign, now time.Time) error {
	id := camp.ID()
	switch st := campaigns.Status(camp, now); discov1.CampaignPhase(st) {
	case discov1.CampaignArchived:
		return apierror.Conflict("the campaign is archived and accepts no runs").With("campaign_id", id).With("status", st)
	case discov1.CampaignExpired:
		return budgetExhausted(id, "expires_at", "the campaign expired at %s", camp.Spec.Budget.ExpiresAt.UTC().Format(time.RFC3339)).
			With("expires_at", camp.Spec.Budget.ExpiresAt.UTC())
	}
	return nil
}

// lockCampaign serialises submissions to one campaign in this replica: the fast path,
// so that submissions through one replica do not race each other for a slot.
func (s *Service) lockCampaign(id string) func() {
	v, _ := s.locks.LoadOrStore(id, &sync.Mutex{})
	m := v.(*sync.Mutex)
	m.Lock()
	return m.Unlock
}

// Create creates the submitted run in the campaign's next free slot, unless a run with
// the same mode, dataset, parameters and governance is queued or running there (409
// duplicate_run) or the campaign's budget cannot admit its estimate (403
// budget_exhausted, with the same accounting as the campaign's status).
func (s *Service) Create(ctx context.Context, sub Submission) (*discov1.Run, error) {
	campaignID := sub.Campaign.ID()
	unlock := s.lockCampaign(campaignID)
	defer unlock()
	for attempt := 1; ; attempt++ {
		// Budget and duplicates, against every run of the campaign as the API server has
		// them (not the cache, which may not have the latest submissions yet).
		var runs discov1.RunList
		if err := s.APIReader.List(ctx, &runs, client.InNamespace(sub.Namespace),
			client.MatchingLabels{discov1.LabelCampaign: campaignID}); err != nil {
			return nil, apierror.Internal(err)
		}
		taken := make(map[string]bool, len(runs.Items))
		mine := make([]discov1.Run, 0, len(runs.Items))
		for i := range runs.Items {
			r := &runs.Items[i]
			taken[r.Name] = true
			if r.CampaignID() != campaignID {
				continue
			}
			mine = append(mine, *r)
			ph := runPhase(r)
			if (ph == discov1.RunQueued || ph == discov1.RunRunning) && r.Annotations[discov1.AnnotationCancelRequested] == "" &&
				r.Spec.Mode == sub.Mode && r.DatasetID() == sub.DatasetID &&
				sameParameters(r.Spec.Parameters, sub.Parameters) && sameGovernance(r.Spec.Governance, sub.Governance) {
				return nil, apierror.New(http.StatusConflict, apierror.CodeDuplicateRun,
					"run %s with the same mode, dataset and parameters is already %s in this campaign", r.ID(), ph).
					With("run_id", r.ID()).With("status", string(ph))
			}
		}
		// The same accounting as the campaign's status (governance.CampaignUsage), taken no lower
		// than what the status already reports.
		camp := sub.Campaign
		usage := governance.CampaignUsage(camp, mine)
		usage.ComputeUnitsUsed = max(usage.ComputeUnitsUsed, camp.Status.ComputeUnitsUsed)
		usage.RunsTotal = max(usage.RunsTotal, camp.Status.RunsTotal)
		if ok, constraint := governance.CanAdmit(camp, usage, sub.Estimate, s.Now()); !ok {
			return nil, budgetRefusal(camp, usage, sub.Estimate, constraint)
		}

		// The next free slot: the number of runs, past any slot still taken (a run of a
		// lower slot may be gone).
		slot := len(runs.Items)
		for taken[ids.ToName(runSlotID(campaignID, slot))] {
			slot++
		}
		id := runSlotID(campaignID, slot)
		run := &discov1.Run{
			ObjectMeta: metav1.ObjectMeta{
				Name: ids.ToName(id), Namespace: sub.Namespace,
				Labels: resource.Labels(sub.TenantID, discov1.LabelProject, sub.ProjectID, discov1.LabelCampaign, campaignID,
					discov1.LabelRun, id, discov1.LabelDataset, sub.DatasetID),
			},
			Spec: discov1.RunSpec{
				ProjectID: sub.ProjectID, CampaignID: campaignID, Mode: sub.Mode, DatasetID: sub.DatasetID,
				Parameters: sub.Parameters, Governance: sub.Governance, ComputeUnitsEstimated: sub.Estimate, Seed: seedOf(id), CreatedBy: sub.Actor,
			},
		}
		if sub.DatasetName != "" {
			run.Spec.DatasetID, run.Spec.DatasetRef = "", &discov1.ObjectRef{Name: sub.DatasetName}
		}
		err := s.Client.Create(ctx, run)
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
				With("campaign_id", campaignID).With("resource", "run")
		}
		if err != nil {
			return nil, resource.WriteErrorOf(err, "run", id)
		}
		return run, nil
	}
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

// budgetRefusal words governance.CanAdmit's refusal for the client.
func budgetRefusal(camp *discov1.Campaign, u governance.BudgetUsage, estimate int64, constraint string) *apierror.Error {
	id, b := camp.ID(), camp.Spec.Budget
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
