package runs

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/resource/roomtest"
	"github.com/discolab/disco/internal/ids"
)

// The run service is tested without HTTP, over controller-runtime's fake client: the
// slot a run takes, duplicate detection and the budget's refusals.

const (
	testNS       = "disco-t"
	testTenant   = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testProject  = "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testCampaign = "camp_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testDataset  = "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"
)

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	sc := runtime.NewScheme()
	if err := discov1.AddToScheme(sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

func testCampaignWith(budget discov1.Budget) *discov1.Campaign {
	return &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(testCampaign), Namespace: testNS},
		Spec:       discov1.CampaignSpec{ProjectID: testProject, Budget: budget},
	}
}

func submission(camp *discov1.Campaign, estimate int64, targets ...string) Submission {
	return Submission{
		Namespace: testNS, TenantID: testTenant, ProjectID: testProject, Campaign: camp, DatasetID: testDataset,
		Mode: discov1.ModeSymbolic, Parameters: discov1.RunParameters{TargetVariables: targets},
		Estimate: estimate, Actor: "key_test",
	}
}

// newService serves the given runs, with funcs intercepting the fake client's calls.
func newService(t *testing.T, funcs interceptor.Funcs, runs ...client.Object) (*Service, client.WithWatch) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(runs...).WithInterceptorFuncs(funcs).Build()
	return &Service{Client: c, APIReader: c, Now: func() time.Time { return testNow }}, c
}

// existingRun is a run of the test campaign in slot n.
func existingRun(n int, phase discov1.RunPhase, targets ...string) *discov1.Run {
	id := runSlotID(testCampaign, n)
	return &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: testNS,
			Labels: map[string]string{discov1.LabelCampaign: testCampaign}},
		Spec: discov1.RunSpec{ProjectID: testProject, CampaignID: testCampaign, Mode: discov1.ModeSymbolic,
			DatasetID: testDataset, Parameters: discov1.RunParameters{TargetVariables: targets}, ComputeUnitsEstimated: 10},
		Status: discov1.RunStatus{Phase: phase},
	}
}

func TestCreateTakesTheNextFreeSlot(t *testing.T) {
	camp := testCampaignWith(discov1.Budget{ComputeUnits: 1000, MaxRuns: 10})
	// Slot 1 is taken by a finished run, slot 0 is free (its run is gone): two runs make
	// the count 2, and slot 2 is the first free one from there.
	svc, c := newService(t, interceptor.Funcs{},
		existingRun(1, discov1.RunCompleted, "y"), existingRun(3, discov1.RunFailed, "y"))
	run, err := svc.Create(context.Background(), submission(camp, 10, "y"))
	if err != nil {
		t.Fatal(err)
	}
	if want := ids.ToName(runSlotID(testCampaign, 2)); run.Name != want {
		t.Fatalf("run %s, want slot 2 (%s)", run.Name, want)
	}
	if run.Spec.Seed != seedOf(ids.FromName(run.Name)) || run.Spec.CreatedBy != "key_test" || run.Spec.ComputeUnitsEstimated != 10 {
		t.Fatalf("spec %+v", run.Spec)
	}
	if run.Labels[discov1.LabelTenant] != testTenant || run.Labels[discov1.LabelCampaign] != testCampaign {
		t.Fatalf("labels %v", run.Labels)
	}
	var got discov1.Run
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(run), &got); err != nil {
		t.Fatalf("the run was not created: %v", err)
	}
	// The next submission skips past slot 3, still taken.
	run, err = svc.Create(context.Background(), submission(camp, 10, "x"))
	if err != nil {
		t.Fatal(err)
	}
	if want := ids.ToName(runSlotID(testCampaign, 4)); run.Name != want {
		t.Fatalf("run %s, want slot 4 (%s)", run.Name, want)
	}
}

func TestCreateRetriesASlotAnotherReplicaTook(t *testing.T) {
	camp := testCampaignWith(discov1.Budget{ComputeUnits: 1000, MaxRuns: 10})
	lost := 0
	svc, _ := newService(t, interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if lost < 2 {
			// Another replica created this slot's run between our list and our create.
			lost++
			other := obj.DeepCopyObject().(*discov1.Run)
			other.Spec.Parameters.TargetVariables = []string{"other"}
			if err := c.Create(ctx, other, opts...); err != nil {
				return err
			}
			return apierrors.NewAlreadyExists(schema.GroupResource{Group: "discovery.disco.dev", Resource: "runs"}, obj.GetName())
		}
		return c.Create(ctx, obj, opts...)
	}})
	run, err := svc.Create(context.Background(), submission(camp, 10, "y"))
	if err != nil {
		t.Fatal(err)
	}
	if lost != 2 || run.Name != ids.ToName(runSlotID(testCampaign, 2)) {
		t.Fatalf("lost %d slots, created %s; want slot 2 after losing two", lost, run.Name)
	}
}

func TestCreateGivesUpAfterMaxSlotAttempts(t *testing.T) {
	camp := testCampaignWith(discov1.Budget{ComputeUnits: 1000, MaxRuns: 100})
	tries := 0
	svc, _ := newService(t, interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		tries++
		return apierrors.NewAlreadyExists(schema.GroupResource{Group: "discovery.disco.dev", Resource: "runs"}, obj.GetName())
	}})
	_, err := svc.Create(context.Background(), submission(camp, 10, "y"))
	d := roomtest.WantError(t, err, 409, apierror.CodeConflict)
	if tries != maxSlotAttempts || d["campaign_id"] != testCampaign {
		t.Fatalf("%d attempts, details %v", tries, d)
	}
}

func TestCreateRefusesADuplicateOfAnActiveRun(t *testing.T) {
	camp := testCampaignWith(discov1.Budget{ComputeUnits: 1000, MaxRuns: 10})
	cancelled := existingRun(1, discov1.RunRunning, "z")
	cancelled.Annotations = map[string]string{discov1.AnnotationCancelRequested: "2026-01-01T00:00:00Z key_x"}
	svc, _ := newService(t, interceptor.Funcs{},
		existingRun(0, discov1.RunQueued, "y"), cancelled, existingRun(2, discov1.RunCompleted, "x"))

	_, err := svc.Create(context.Background(), submission(camp, 10, "y"))
	d := roomtest.WantError(t, err, 409, apierror.CodeDuplicateRun)
	if d["run_id"] != runSlotID(testCampaign, 0) || d["status"] != "queued" {
		t.Fatalf("details %v", d)
	}
	// Not duplicates: a run whose cancellation was asked for, a finished run, and other
	// parameters.
	for _, targets := range [][]string{{"z"}, {"x"}, {"y", "x"}} {
		if _, err := svc.Create(context.Background(), submission(camp, 10, targets...)); err != nil {
			t.Fatalf("targets %v: %v", targets, err)
		}
	}
}

func TestCreateRefusesBeyondTheBudget(t *testing.T) {
	ctx := context.Background()
	t.Run("compute units", func(t *testing.T) {
		camp := testCampaignWith(discov1.Budget{ComputeUnits: 25, MaxRuns: 10})
		svc, _ := newService(t, interceptor.Funcs{}, existingRun(0, discov1.RunRunning, "y")) // estimate 10 charged
		_, err := svc.Create(ctx, submission(camp, 16, "x"))
		d := roomtest.WantError(t, err, 403, apierror.CodeBudgetExhausted)
		if d["constraint"] != "compute_units" || d["compute_units_used"] != int64(10) || d["compute_units_estimated"] != int64(16) {
			t.Fatalf("details %v", d)
		}
		if _, err := svc.Create(ctx, submission(camp, 15, "x")); err != nil {
			t.Fatalf("a run that fits the budget: %v", err)
		}
	})
	t.Run("max runs", func(t *testing.T) {
		camp := testCampaignWith(discov1.Budget{ComputeUnits: 1000, MaxRuns: 1})
		svc, _ := newService(t, interceptor.Funcs{}, existingRun(0, discov1.RunCompleted, "y"))
		_, err := svc.Create(ctx, submission(camp, 1, "x"))
		if d := roomtest.WantError(t, err, 403, apierror.CodeBudgetExhausted); d["constraint"] != "max_runs" || d["runs_total"] != int32(1) {
			t.Fatalf("details %v", d)
		}
	})
	t.Run("the status's usage when higher", func(t *testing.T) {
		camp := testCampaignWith(discov1.Budget{ComputeUnits: 100, MaxRuns: 10})
		camp.Status.ComputeUnitsUsed = 95 // runs since deleted were charged
		svc, _ := newService(t, interceptor.Funcs{})
		_, err := svc.Create(ctx, submission(camp, 10, "x"))
		if d := roomtest.WantError(t, err, 403, apierror.CodeBudgetExhausted); d["compute_units_used"] != int64(95) {
			t.Fatalf("details %v", d)
		}
	})
}

func TestCampaignRefusal(t *testing.T) {
	open := testCampaignWith(discov1.Budget{ComputeUnits: 10, MaxRuns: 1})
	if err := campaignRefusal(open, testNow); err != nil {
		t.Fatalf("an active campaign: %v", err)
	}
	archived := open.DeepCopy()
	archived.Spec.Archived = true
	if d := roomtest.WantError(t, campaignRefusal(archived, testNow), 409, apierror.CodeConflict); d["status"] != "archived" {
		t.Fatalf("details %v", d)
	}
	expired := open.DeepCopy()
	expired.Spec.Budget.ExpiresAt = &metav1.Time{Time: testNow}
	if d := roomtest.WantError(t, campaignRefusal(expired, testNow), 403, apierror.CodeBudgetExhausted); d["constraint"] != "expires_at" {
		t.Fatalf("details %v", d)
	}
}

func TestSameParametersTreatsNilAndEmptyListsAlike(t *testing.T) {
	if !sameParameters(discov1.RunParameters{TargetVariables: []string{}}, discov1.RunParameters{}) ||
		!sameGovernance(discov1.RunGovernance{NegativeControls: []string{}}, discov1.RunGovernance{}) {
		t.Fatal("nil and empty lists differ")
	}
	if sameParameters(discov1.RunParameters{CrossValidate: true}, discov1.RunParameters{}) {
		t.Fatal("different parameters are the same")
	}
}

// A run applied with kubectl refers to its campaign and dataset by name; it uses the
// campaign's budget as a REST-made run does, and a submission over a dataset applied under
// a human name refers to that dataset by name, the form the run controller reads (issue
// 14, item 6).
func TestCreateSeesRunsAndDatasetsNamedByHand(t *testing.T) {
	byName := existingRun(0, discov1.RunRunning, "y")
	byName.Name = "first-run"
	byName.Spec.ProjectID, byName.Spec.CampaignID, byName.Spec.DatasetID = "", "", ""
	byName.Spec.CampaignRef = &discov1.ObjectRef{Name: ids.ToName(testCampaign)}
	byName.Spec.DatasetRef = &discov1.ObjectRef{Name: "sachs-2024"}
	svc, c := newService(t, interceptor.Funcs{}, byName)
	camp := testCampaignWith(discov1.Budget{ComputeUnits: 15, MaxRuns: 10})

	_, err := svc.Create(context.Background(), submission(camp, 10, "x"))
	if d := roomtest.WantError(t, err, 403, apierror.CodeBudgetExhausted); d["compute_units_used"] != int64(10) {
		t.Fatalf("details %v: the run applied by name was not charged", d)
	}

	camp.Spec.Budget.ComputeUnits = 100
	sub := submission(camp, 10, "x")
	sub.DatasetID, sub.DatasetName = discov1.PublicIDFor(ids.Dataset, testNS, "sachs-2024"), "sachs-2024"
	run, err := svc.Create(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	var got discov1.Run
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(run), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.DatasetRef == nil || got.Spec.DatasetRef.Name != "sachs-2024" || got.Spec.DatasetID != "" || got.DatasetID() != sub.DatasetID {
		t.Fatalf("dataset ref %+v, id %q", got.Spec.DatasetRef, got.Spec.DatasetID)
	}
}
