package campaigns

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource/roomtest"
	"github.com/discolab/disco/internal/ids"
)

// The campaign service's update is tested without HTTP, over controller-runtime's fake
// client: the merge patch and its validation, a concurrent writer, and the governance scope.

const (
	testTenant   = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testProject  = "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testCampaign = "camp_aaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func newService(t *testing.T, funcs interceptor.Funcs) (*Service, client.Client, *discov1.Campaign) {
	t.Helper()
	camp := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(testCampaign), Namespace: "ns"},
		Spec: discov1.CampaignSpec{ProjectID: testProject, DisplayName: "screen", Description: "first pass",
			Budget:     discov1.Budget{ComputeUnits: 1000, MaxRuns: 10, ExpiresAt: &metav1.Time{Time: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}},
			Governance: discov1.CampaignGovernance{PromotionCeiling: discov1.TierValidate}},
		Status: discov1.CampaignStatus{ComputeUnitsUsed: 600},
	}
	kit, c := roomtest.Kit(t, funcs, camp)
	var cached discov1.Campaign
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(camp), &cached); err != nil {
		t.Fatal(err)
	}
	return &Service{Kit: kit, Policy: projects.Policy{Kit: kit}}, c, &cached
}

func writer() context.Context {
	return roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite})
}

func TestUpdateMergesThePatchAndNullResets(t *testing.T) {
	svc, _, cached := newService(t, interceptor.Funcs{})
	upd, err := svc.Update(writer(), cached, nil, map[string]any{
		"description": nil, "status": "archived", "budget": map[string]any{"compute_units": 100, "expires_at": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := upd.Spec
	if s.DisplayName != "screen" || s.Description != "" || !s.Archived || s.Budget.ComputeUnits != 100 || s.Budget.MaxRuns != 10 ||
		s.Budget.ExpiresAt != nil || s.Governance.PromotionCeiling != discov1.TierValidate {
		t.Fatalf("spec %+v", s)
	}
	// Below the 600 units used: allowed, the campaign is exhausted by its controller.
	if Status(upd, svc.Kit.Now()) != string(discov1.CampaignArchived) {
		t.Fatalf("status %s", Status(upd, svc.Kit.Now()))
	}
	upd, err = svc.Update(writer(), upd, nil, map[string]any{"status": nil})
	if err != nil || upd.Spec.Archived {
		t.Fatalf("status null: %v, archived %v", err, upd.Spec.Archived)
	}
}

func TestUpdateValidatesTheMergedCampaign(t *testing.T) {
	governor := roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite, auth.GovernanceWrite})
	for _, tc := range []struct {
		patch map[string]any
		field string
	}{
		{map[string]any{"name": nil}, "body.name"},
		{map[string]any{"budget": nil}, "body.budget"},
		{map[string]any{"budget": map[string]any{"compute_units": nil}}, "body.budget.compute_units"},
		{map[string]any{"budget": map[string]any{"compute_units": -1}}, "body.budget.compute_units"},
		{map[string]any{"budget": map[string]any{"max_runs": 1000001}}, "body.budget.max_runs"},
		{map[string]any{"status": "expired"}, "body.status"},
		{map[string]any{"governance": map[string]any{"promotion_ceiling": "top"}}, "body.governance.promotion_ceiling"},
		{map[string]any{"governance": map[string]any{"auto_promote_to": "publish"}}, "body.governance.auto_promote_to"},
	} {
		svc, c, cached := newService(t, interceptor.Funcs{})
		_, err := svc.Update(governor, cached, nil, tc.patch)
		d := roomtest.WantError(t, err, 400, apierror.CodeValidation)
		if fields, _ := d["fields"].([]apierror.Field); len(fields) == 0 || fields[0].Field != tc.field {
			t.Errorf("%v: details %v, want field %s", tc.patch, d, tc.field)
		}
		var got discov1.Campaign
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(cached), &got); err != nil || got.ResourceVersion != cached.ResourceVersion {
			t.Errorf("%v: a refused patch was written (%v)", tc.patch, err)
		}
	}
}

// A write by someone else between the read and the update is retried against the new
// version; the campaign's governance needs governance:write, restating it does not.
func TestUpdateRetriesAConcurrentWriteAndGuardsGovernance(t *testing.T) {
	svc, c, cached := newService(t, roomtest.RacingUpdate("campaigns", func(other *discov1.Campaign) {
		other.Spec.Description = "a controller's write"
	}))
	if _, err := svc.Update(writer(), cached, nil, map[string]any{"name": "renamed", "governance": map[string]any{"promotion_ceiling": "validate"}}); err != nil {
		t.Fatal(err)
	}
	var got discov1.Campaign
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cached), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.DisplayName != "renamed" || got.Spec.Description != "a controller's write" {
		t.Fatalf("the retry lost a write: %+v", got.Spec)
	}
	_, err := svc.Update(writer(), &got, nil, map[string]any{"governance": map[string]any{"require_negative_controls": true}})
	if d := roomtest.WantError(t, err, 403, apierror.CodeInsufficientScope); d["field"] != "body.governance" {
		t.Fatalf("details %v", d)
	}
	upd, err := svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite, auth.GovernanceWrite}), &got, nil,
		map[string]any{"governance": map[string]any{"require_negative_controls": true, "promotion_ceiling": nil}})
	if err != nil {
		t.Fatal(err)
	}
	if g := upd.Spec.Governance; !ptr.Equal(g.RequireNegativeControls, ptr.To(true)) || g.PromotionCeiling != "" {
		t.Fatalf("governance %+v", g)
	}
}
