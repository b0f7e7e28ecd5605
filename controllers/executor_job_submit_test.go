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

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
)

// A Job the API server refuses (here a ResourceQuota that allows no Jobs) shows on the Run
// as its Admitted condition with the API server's reason, not as a silent queued; a quota's
// refusal is WaitingForCapacity and names the quota (issue 13).
func TestJobThatCannotBeCreatedShowsOnTheRun(t *testing.T) {
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
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Run)), Namespace: ns, CreationTimestamp: metav1.Now()},
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

type errorString string

func (e errorString) Error() string { return string(e) }
