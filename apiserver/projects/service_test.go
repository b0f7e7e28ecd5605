package projects

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/resource/roomtest"
	"github.com/discolab/disco/internal/ids"
)

// The project service's update is tested without HTTP, over controller-runtime's fake
// client: the merge patch, concurrent writers, If-Match and the governance scope.

const (
	testTenant  = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	testProject = "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func newService(t *testing.T, funcs interceptor.Funcs) (*Service, client.Client, *discov1.Project) {
	t.Helper()
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(testProject), Namespace: "ns"},
		Spec: discov1.ProjectSpec{TenantID: testTenant, DisplayName: "signalling", Description: "pathways",
			State: discov1.ProjectActive, Settings: discov1.ProjectSettings{DefaultMode: discov1.ModeCausal}},
	}
	kit, c := roomtest.Kit(t, funcs, proj)
	var cached discov1.Project
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(proj), &cached); err != nil {
		t.Fatal(err)
	}
	return &Service{Kit: kit, Policy: Policy{Kit: kit}}, c, &cached
}

func TestUpdateMergesThePatchAndNullResetsToTheDefault(t *testing.T) {
	svc, _, cached := newService(t, interceptor.Funcs{})
	upd, err := svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite}), cached, nil, map[string]any{
		"description": nil, "status": "archived", "settings": map[string]any{"default_mode": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Spec.DisplayName != "signalling" || upd.Spec.Description != "" || upd.Spec.State != discov1.ProjectArchived ||
		Of(upd).Settings.DefaultMode != string(discov1.ModeSymbolic) {
		t.Fatalf("spec %+v", upd.Spec)
	}
	if upd.Annotations[annotationUpdatedAt] != "2023-11-14T22:13:20Z" {
		t.Fatalf("updated-at %q", upd.Annotations[annotationUpdatedAt])
	}
}

// A write by someone else between the read and the update is retried against the new
// version without If-Match, and answered 412 with it.
func TestUpdateRetriesAConcurrentWriteUnlessIfMatchNamedAVersion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ifMatch  bool
		wantCode string
	}{{"no If-Match", false, ""}, {"If-Match", true, apierror.CodePreconditionFailed}} {
		t.Run(tc.name, func(t *testing.T) {
			svc, c, cached := newService(t, roomtest.RacingUpdate("projects", func(other *discov1.Project) {
				other.Spec.Description = "a controller's write"
			}))
			var cond *resource.IfMatch
			if tc.ifMatch {
				var err error
				if cond, err = resource.ParseIfMatch(resource.ETag(cached)); err != nil {
					t.Fatal(err)
				}
			}
			upd, err := svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite}), cached, cond, map[string]any{"name": "renamed"})
			if tc.wantCode != "" {
				roomtest.WantError(t, err, 412, tc.wantCode)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got discov1.Project
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(upd), &got); err != nil {
				t.Fatal(err)
			}
			if got.Spec.DisplayName != "renamed" || got.Spec.Description != "a controller's write" {
				t.Fatalf("the retry lost a write: %+v", got.Spec)
			}
		})
	}
}

func TestUpdateOfAStaleIfMatchIsPreconditionFailed(t *testing.T) {
	svc, _, cached := newService(t, interceptor.Funcs{})
	stale, err := resource.ParseIfMatch(`"1", W/"` + cached.ResourceVersion + `"`) // a weak tag never matches
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite}), cached, stale, map[string]any{"name": "x"})
	if d := roomtest.WantError(t, err, 412, apierror.CodePreconditionFailed); d["etag"] != resource.ETag(cached) {
		t.Fatalf("details %v", d)
	}
}

func TestUpdateOfGovernanceNeedsGovernanceWrite(t *testing.T) {
	patch := map[string]any{"settings": map[string]any{"governance": map[string]any{"truth_dial_threshold": 0.9}}}
	svc, _, cached := newService(t, interceptor.Funcs{})
	_, err := svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite}), cached, nil, patch)
	if d := roomtest.WantError(t, err, 403, apierror.CodeInsufficientScope); d["field"] != "body.settings.governance" {
		t.Fatalf("details %v", d)
	}
	upd, err := svc.Update(roomtest.Caller(testTenant, "ns", []string{auth.ProjectsWrite, auth.GovernanceWrite}), cached, nil, patch)
	if err != nil {
		t.Fatal(err)
	}
	if !ptr.Equal(upd.Spec.Settings.Governance.TruthDialThreshold, ptr.To(0.9)) {
		t.Fatalf("governance %+v", upd.Spec.Settings.Governance)
	}
}
