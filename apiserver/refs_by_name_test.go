package apiserver

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// A Project and Campaign applied with kubectl under human names are reachable over REST by
// the ids their controller shows in status and the label discovery.disco.dev/id (issue 14,
// item 6); another tenant's key still gets 404, and a label copied onto another object
// does not make it answer for that id.
func TestObjectsNamedByHandAreReachableByTheirID(t *testing.T) {
	ctx := context.Background()
	ns := "disco-" + ids.ToName(env.tenantA)
	pid := discov1.PublicIDFor(ids.Project, ns, "signalling")
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: "signalling", Namespace: ns, Labels: map[string]string{discov1.LabelID: pid}},
		Spec:       discov1.ProjectSpec{DisplayName: "Signalling", State: discov1.ProjectActive},
	}
	if err := env.direct.Create(ctx, proj); err != nil {
		t.Fatal(err)
	}
	proj.Status.TenantID = env.tenantA // as the controller records it
	if err := env.direct.Status().Update(ctx, proj); err != nil {
		t.Fatal(err)
	}
	cid := discov1.PublicIDFor(ids.Campaign, ns, "screen")
	camp := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: "screen", Namespace: ns, Labels: map[string]string{discov1.LabelID: cid}},
		Spec: discov1.CampaignSpec{ProjectRef: &discov1.ObjectRef{Name: "signalling"}, DisplayName: "Screen",
			Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 2}},
	}
	if err := env.direct.Create(ctx, camp); err != nil {
		t.Fatal(err)
	}
	// A second object carrying the project's label is not the project.
	forged := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: "impostor", Namespace: ns, Labels: map[string]string{discov1.LabelID: discov1.PublicIDFor(ids.Project, ns, "absent")}},
		Spec:       discov1.ProjectSpec{DisplayName: "Impostor", State: discov1.ProjectActive, TenantID: env.tenantA},
	}
	if err := env.direct.Create(ctx, forged); err != nil {
		t.Fatal(err)
	}

	eventually(t, func() error {
		r := call(t, "GET", "/v1/projects/"+pid, env.adminA, nil)
		if r.Status != 200 || r.str("id") != pid || r.str("name") != "Signalling" || r.str("tenant_id") != env.tenantA {
			return fmt.Errorf("project by id: %d %s", r.Status, r.Raw)
		}
		r = call(t, "GET", "/v1/projects/"+pid+"/campaigns/"+cid, env.adminA, nil)
		if r.Status != 200 || r.str("id") != cid || r.str("project_id") != pid {
			return fmt.Errorf("campaign by id: %d %s", r.Status, r.Raw)
		}
		return nil
	})
	call(t, "PATCH", "/v1/projects/"+pid+"/campaigns/"+cid, env.adminA, map[string]any{"description": "by REST"}).expect(t, 200)
	call(t, "GET", "/v1/projects/"+pid, env.adminB, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/projects/"+discov1.PublicIDFor(ids.Project, ns, "absent"), env.adminA, nil).expect(t, 404, "not_found")
}
