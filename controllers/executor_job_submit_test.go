package controllers

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
)

// A Job the API server refuses (here a ResourceQuota that allows no Jobs) shows on the Run
// as its Admitted condition with the API server's reason, not as a silent queued; a quota's
// refusal is WaitingForCapacity and names the quota (issue 13).
func TestJobThatCannotBeCreatedShowsOnTheRun(t *testing.T) {
	scheme, objects, run := jobSubmitFixture(t, ids.ToName(ids.New(ids.Run)))
	quota := apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, run.Name,
		errorString("exceeded quota: no-jobs, requested: count/jobs.batch=1, used: count/jobs.batch=0, limited: count/jobs.batch=0"))
	refuse := true
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).WithStatusSubresource(&discov1.Run{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*batchv1.Job); ok && refuse {
				return quota
			}
			return c.Create(ctx, obj, opts...)
		}}).Build()
	x := &runexec.JobExecutor{Client: c, Image: "disco:test", BlobURL: "file:///blobs"}
	r := &RunReconciler{Client: c, Executor: x}
	key := client.ObjectKeyFromObject(run)

	if _, err := r.admit(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionAdmitted)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != discov1.ReasonWaitingForCapacity ||
		!strings.Contains(cond.Message, "ResourceQuota no-jobs") || !strings.Contains(cond.Message, "exceeded quota: no-jobs") || !strings.Contains(cond.Message, "Job") {
		t.Fatalf("Admitted condition %+v: want WaitingForCapacity naming the quota, with the API server's reason", cond)
	}

	// Once the Job can be made, the reason goes away.
	refuse = false
	if _, err := r.admit(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionAdmitted); cond == nil || strings.Contains(cond.Message, "quota") {
		t.Errorf("Admitted condition after a created Job: %+v", cond)
	}
	if err := c.Get(context.Background(), key, &batchv1.Job{}); err != nil {
		t.Errorf("the Job was not created once allowed: %v", err)
	}
}

// A run's Job takes the run's name, and so does a dataset's fetch Job ("fetch-" and the
// dataset's name). A Run named like another object's Job must neither take that Job for
// its own (its outcome, its liveness) nor delete it when cancelled or deleted: it fails at
// once, saying why, and the other Job is left alone.
func TestRunNamedLikeAnotherObjectsJobFailsAndLeavesItAlone(t *testing.T) {
	scheme, objects, run := jobSubmitFixture(t, "fetch-sachs")
	ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "sachs", Namespace: run.Namespace, UID: "ds-uid"}}
	fetch := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: runexec.FetchJobName(ds.Name), Namespace: run.Namespace, UID: "fetch-uid"}}
	if err := controllerutil.SetControllerReference(ds, fetch, scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(objects, ds, fetch)...).WithStatusSubresource(&discov1.Run{}).Build()
	x := &runexec.JobExecutor{Client: c, Image: "disco:test", BlobURL: "file:///blobs"}
	r := &RunReconciler{Client: c, Executor: x}
	ctx, key := context.Background(), client.ObjectKeyFromObject(run)

	if x.Active(ctx, key) {
		t.Error("the dataset's running fetch Job counts as the run's active execution")
	}
	if _, err := r.admit(ctx, run); err != nil {
		t.Fatal(err)
	}
	if run.Status.Phase != discov1.RunFailed || !strings.Contains(run.Status.Message, "Job named fetch-sachs already exists") ||
		!strings.Contains(run.Status.Message, "Dataset sachs") || !strings.Contains(run.Status.Message, "another name") {
		t.Errorf("run phase %q message %q: want failed, naming the Job, its owner and what to do", run.Status.Phase, run.Status.Message)
	}
	if msg, failed := x.Failure(ctx, run); !failed || !strings.Contains(msg, "not this run's") {
		t.Errorf("Failure = %q, %v: want the name clash", msg, failed)
	}
	if err := x.Cancel(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, &batchv1.Job{}); err != nil {
		t.Errorf("cancelling the run deleted the dataset's fetch Job: %v", err)
	}

	// The Job of an earlier Run of the same name (another UID, not yet collected) is no
	// record of this run either: the run waits for it to go instead of failing.
	earlier := run.DeepCopy()
	earlier.UID = "earlier-run"
	old := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "fetch-sachs", Namespace: run.Namespace},
		Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}}}
	if err := controllerutil.SetControllerReference(earlier, old, scheme); err != nil {
		t.Fatal(err)
	}
	c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(objects, old)...).WithStatusSubresource(&discov1.Run{}).Build()
	x = &runexec.JobExecutor{Client: c, Image: "disco:test", BlobURL: "file:///blobs"}
	run.UID = "this-run"
	if msg, failed := x.Failure(ctx, run); failed {
		t.Errorf("an earlier run's failed Job failed this run: %q", msg)
	}
	if started, err := x.Submit(ctx, run); started || err == nil || !strings.Contains(err.Error(), "earlier run") {
		t.Errorf("Submit = %v, %v: want not started, waiting for the earlier run's Job", started, err)
	}
}

// jobSubmitFixture is a tenant namespace with a project, a campaign, a dataset and a
// queued run of the given name, for the Job executor on a fake client.
func jobSubmitFixture(t *testing.T, runName string) (*runtime.Scheme, []client.Object, *discov1.Run) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tenantID, projectID, campaignID := ids.New(ids.Tenant), ids.New(ids.Project), ids.New(ids.Campaign)
	ns := "disco-" + ids.ToName(tenantID)
	run := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: runName, Namespace: ns, CreationTimestamp: metav1.Now()},
		Spec: discov1.RunSpec{ProjectID: projectID, CampaignID: campaignID, Mode: discov1.ModeSymbolic,
			DatasetID: ids.New(ids.Dataset), ComputeUnitsEstimated: 5},
		Status: discov1.RunStatus{Phase: discov1.RunQueued},
	}
	objects := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{discov1.LabelTenant: tenantID}}},
		&discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tenantID)}, Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam}},
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(projectID), Namespace: ns}, Spec: discov1.ProjectSpec{DisplayName: "p", TenantID: tenantID}},
		&discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(campaignID), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: projectID, DisplayName: "c", Budget: discov1.Budget{ComputeUnits: 1000, MaxRuns: 10}}},
		&discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: run.DatasetName(), Namespace: ns}, Spec: discov1.DatasetSpec{ProjectID: projectID}},
		run,
	}
	return scheme, objects, run
}

type errorString string

func (e errorString) Error() string { return string(e) }
