package controllers

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

func TestEmptyMergePatch(t *testing.T) {
	for patch, want := range map[string]bool{
		`{}`:                                   true,
		`{"metadata":{"resourceVersion":"7"}}`: true,
		`{"metadata":{"resourceVersion":"7"},"status":{"phase":"exhausted"}}`: false,
		`{"metadata":{"resourceVersion":"7","labels":{"a":"b"}}}`:             false,
		`{"status":{"conditions":null}}`:                                      false,
		`not json`:                                                            false,
	} {
		if got := emptyMergePatch([]byte(patch)); got != want {
			t.Errorf("emptyMergePatch(%s) = %v, want %v", patch, got, want)
		}
	}
}
