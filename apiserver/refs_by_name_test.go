package apiserver

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/auth"
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

// A Dataset and a Run applied with kubectl under human names, with references by name as
// kubectl users write them, are reachable over REST by the public ids their controllers
// show in status and the label discovery.disco.dev/id, and are listed under their
// project and campaign (issue 14, item 6). Another tenant's key gets 404.
func TestDatasetsAndRunsNamedByHandAreReachableByTheirID(t *testing.T) {
	ctx := context.Background()
	ns := nsA()
	pid := discov1.PublicIDFor(ids.Project, ns, "causal-lab")
	cid := discov1.PublicIDFor(ids.Campaign, ns, "first-screen")
	did := discov1.PublicIDFor(ids.Dataset, ns, "sachs-2024")
	rid := discov1.PublicIDFor(ids.Run, ns, "first-run")
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: "causal-lab", Namespace: ns},
		Spec:       discov1.ProjectSpec{DisplayName: "Causal lab", State: discov1.ProjectActive},
	}
	camp := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: "first-screen", Namespace: ns},
		Spec: discov1.CampaignSpec{ProjectRef: &discov1.ObjectRef{Name: "causal-lab"}, DisplayName: "First screen",
			Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 2}},
	}
	ds := &discov1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "sachs-2024", Namespace: ns},
		Spec: discov1.DatasetSpec{ProjectRef: &discov1.ObjectRef{Name: "causal-lab"}, Format: "csv",
			BlobKey: "tenants/" + env.tenantA + "/datasets/sachs-2024/data.csv"},
	}
	run := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: "first-run", Namespace: ns},
		Spec: discov1.RunSpec{CampaignRef: &discov1.ObjectRef{Name: "first-screen"}, DatasetRef: &discov1.ObjectRef{Name: "sachs-2024"},
			Mode: discov1.ModeSymbolic},
	}
	for _, o := range []client.Object{proj, camp, ds, run} {
		must(t, env.direct.Create(ctx, o))
	}
	// What the controllers record once they have read the references: the ids in status,
	// and the id labels.
	label := func(o client.Object, labels map[string]string) {
		t.Helper()
		o.SetLabels(labels)
		must(t, env.direct.Update(ctx, o))
	}
	label(proj, map[string]string{discov1.LabelID: pid, discov1.LabelProject: pid})
	proj.Status.ID, proj.Status.TenantID = pid, env.tenantA
	must(t, env.direct.Status().Update(ctx, proj))
	label(camp, map[string]string{discov1.LabelID: cid, discov1.LabelCampaign: cid, discov1.LabelProject: pid})
	camp.Status.ID, camp.Status.ProjectID = cid, pid
	must(t, env.direct.Status().Update(ctx, camp))
	label(ds, map[string]string{discov1.LabelID: did, discov1.LabelDataset: did, discov1.LabelProject: pid, discov1.LabelTenant: env.tenantA})
	ds.Status.ID, ds.Status.ProjectID, ds.Status.Phase = did, pid, discov1.DatasetReady
	must(t, env.direct.Status().Update(ctx, ds))
	label(run, map[string]string{discov1.LabelID: rid, discov1.LabelRun: rid, discov1.LabelCampaign: cid, discov1.LabelDataset: did, discov1.LabelProject: pid})
	run.Status.ID, run.Status.ProjectID, run.Status.CampaignID, run.Status.DatasetID = rid, pid, cid, did
	must(t, env.direct.Status().Update(ctx, run))

	datasets, runs := "/v1/projects/"+pid+"/datasets", "/v1/projects/"+pid+"/campaigns/"+cid+"/runs"
	eventually(t, func() error {
		r := call(t, "GET", datasets+"/"+did, env.adminA, nil)
		if r.Status != 200 || r.str("id") != did || r.str("project_id") != pid || r.str("status") != "ready" {
			return fmt.Errorf("dataset by id: %d %s", r.Status, r.Raw)
		}
		r = call(t, "GET", runs+"/"+rid, env.adminA, nil)
		if r.Status != 200 || r.str("id") != rid || r.str("project_id") != pid || r.str("campaign_id") != cid || r.str("dataset_id") != did {
			return fmt.Errorf("run by id: %d %s", r.Status, r.Raw)
		}
		return nil
	})
	listed := func(path, id string) {
		t.Helper()
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		r := call(t, "GET", path, env.adminA, nil).expect(t, 200)
		must(t, jsonUnmarshal(r.Raw, &page))
		if len(page.Data) != 1 || page.Data[0].ID != id {
			t.Fatalf("GET %s lists %s, want only %s", path, r.Raw, id)
		}
	}
	listed(datasets, did)
	listed(runs, rid)
	listed(runs+"?dataset_id="+did, rid)
	if r := call(t, "GET", runs+"/"+rid+"/status", env.adminA, nil).expect(t, 200); r.str("id") != rid {
		t.Fatalf("run status: %s", r.Raw)
	}
	call(t, "GET", datasets+"/"+did, env.adminB, nil).expect(t, 404, "not_found")
	call(t, "GET", runs+"/"+rid, env.adminB, nil).expect(t, 404, "not_found")
}

// A Project and Campaign applied with kubectl under human names are governed under their
// public ids: a key restricted to the project lists it, and governance changes through
// REST are ledgered in the project's ledger, naming the campaign by its id (issue 14, item
// 6; DESIGN.md: every governance event is ledgered).
func TestObjectsNamedByHandAreGovernedUnderTheirIDs(t *testing.T) {
	ctx := context.Background()
	ns := nsA()
	pid := discov1.PublicIDFor(ids.Project, ns, "governed-lab")
	cid := discov1.PublicIDFor(ids.Campaign, ns, "governed-screen")
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: "governed-lab", Namespace: ns, Labels: map[string]string{discov1.LabelID: pid}},
		Spec:       discov1.ProjectSpec{DisplayName: "Governed lab", State: discov1.ProjectActive},
	}
	must(t, env.direct.Create(ctx, proj))
	proj.Status.ID, proj.Status.TenantID = pid, env.tenantA // as the controller records them
	must(t, env.direct.Status().Update(ctx, proj))
	camp := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: "governed-screen", Namespace: ns, Labels: map[string]string{discov1.LabelID: cid}},
		Spec: discov1.CampaignSpec{ProjectRef: &discov1.ObjectRef{Name: "governed-lab"}, DisplayName: "Governed screen",
			Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 2}},
	}
	must(t, env.direct.Create(ctx, camp))

	eventually(t, func() error {
		if r := call(t, "GET", "/v1/projects/"+pid+"/campaigns/"+cid, env.adminA, nil); r.Status != 200 {
			return fmt.Errorf("campaign by id: %d %s", r.Status, r.Raw)
		}
		return nil
	})
	restricted := newKey(t, env.tenantA, []string{auth.ProjectsRead}, pid)
	r := call(t, "GET", "/v1/projects", restricted, nil).expect(t, 200)
	if data, _ := r.JSON["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != pid {
		t.Fatalf("projects of a key restricted to %s: %s", pid, r.Raw)
	}

	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"settings": map[string]any{
		"governance": map[string]any{"promotion_ceiling": "explore"}}}).expect(t, 200)
	call(t, "PATCH", "/v1/projects/"+pid+"/campaigns/"+cid, env.adminA, map[string]any{
		"governance": map[string]any{"promotion_ceiling": "explore"}}).expect(t, 200)
	entries := policyEntries(t, pid)
	if len(entries) != 2 {
		t.Fatalf("%d policy_changed entries in the project's ledger, want 2: %v", len(entries), entries)
	}
	if d := entries[0]["details"].(map[string]any); entries[0]["project_id"] != pid || d["resource"] != "project" || d["project_id"] != pid {
		t.Fatalf("project entry: %v", entries[0])
	}
	if d := entries[1]["details"].(map[string]any); entries[1]["project_id"] != pid || d["resource"] != "campaign" || d["campaign_id"] != cid {
		t.Fatalf("campaign entry: %v", entries[1])
	}
}
