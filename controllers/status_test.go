package controllers

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A reconcile that changes nothing sends no status request; one that changes the status
// sends exactly one patch, and the change is stored (issue 16 item 3: diff before patching).
func TestStatusPatcherSendsNothingWhenNothingChanged(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	stored := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec:       discov1.CampaignSpec{ProjectID: "p", DisplayName: "c"},
		Status:     discov1.CampaignStatus{Phase: discov1.CampaignActive},
	}
	patches := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(stored).WithStatusSubresource(&discov1.Campaign{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	ctx := context.Background()
	key := client.ObjectKeyFromObject(stored)

	campaign := &discov1.Campaign{}
	if err := c.Get(ctx, key, campaign); err != nil {
		t.Fatal(err)
	}
	p := newStatusPatcher(c, campaign)
	campaign.Status.Phase = discov1.CampaignActive // set to what it already is
	if err := p.patch(ctx); err != nil {
		t.Fatal(err)
	}
	if patches != 0 {
		t.Fatalf("unchanged status: %d status patches sent, want none", patches)
	}

	p = newStatusPatcher(c, campaign)
	campaign.Status.Phase = discov1.CampaignExhausted
	if err := p.patch(ctx); err != nil {
		t.Fatal(err)
	}
	if patches != 1 {
		t.Fatalf("changed status: %d status patches sent, want 1", patches)
	}
	got := &discov1.Campaign{}
	if err := c.Get(ctx, key, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != discov1.CampaignExhausted {
		t.Fatalf("stored phase %q, want %q", got.Status.Phase, discov1.CampaignExhausted)
	}
}

// status.observedGeneration says the status describes that generation, so a reconcile that
// failed leaves it where it was (issue 16 item 3), and one that succeeded moves it.
func TestObservedGenerationMovesOnlyWhenTheReconcileSucceeds(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	stored := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: "run-a", Namespace: "ns", Generation: 3, Finalizers: []string{discov1.Finalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: discov1.GroupVersion.String(), Kind: "Campaign", Name: "camp-a", UID: "u"}}},
		Spec:   discov1.RunSpec{ProjectID: "proj_a", CampaignID: "camp_a", Mode: discov1.ModeSymbolic},
		Status: discov1.RunStatus{Phase: discov1.RunQueued, ObservedGeneration: 2},
	}
	failing := true
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(stored,
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "proj-a", Namespace: "ns"}, Spec: discov1.ProjectSpec{TenantID: "ten_a"}},
		&discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: "camp-a", Namespace: "ns"},
			Spec: discov1.CampaignSpec{ProjectID: "proj_a", Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 10}}}).
		WithStatusSubresource(&discov1.Run{}).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, project := obj.(*discov1.Project); project && failing {
				return errors.New("the API server is unreachable")
			}
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	r := &RunReconciler{Client: c, Executor: activeSet{}}
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(stored)}
	got := &discov1.Run{}

	if _, err := r.Reconcile(ctx, req); err == nil {
		t.Fatal("the reconcile succeeded although the project could not be read")
	}
	if err := c.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 2 {
		t.Errorf("after a failed reconcile observedGeneration = %d, want 2 (unchanged)", got.Status.ObservedGeneration)
	}

	failing = false
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 3 {
		t.Errorf("after a successful reconcile observedGeneration = %d, want 3", got.Status.ObservedGeneration)
	}
}
