package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/discolab/disco/internal/ids"
)

func TestPublicIDForReadsRESTNamesAndDerivesHumanOnes(t *testing.T) {
	rest := ids.New(ids.Project)
	if got := PublicIDFor(ids.Project, "ns", ids.ToName(rest)); got != rest {
		t.Errorf("REST-named project: id %q, want %q", got, rest)
	}
	human := PublicIDFor(ids.Project, "ns", "free-fall")
	if !ids.Valid(ids.Project, human) {
		t.Fatalf("derived id %q is not a project id", human)
	}
	if PublicIDFor(ids.Project, "ns", "free-fall") != human {
		t.Error("the derived id is not deterministic")
	}
	for _, other := range []string{PublicIDFor(ids.Project, "other-ns", "free-fall"), PublicIDFor(ids.Campaign, "ns", "free-fall")} {
		if other == human {
			t.Errorf("%q: another namespace or kind gave the same id", other)
		}
	}
	// A name that is another kind's id is a human name for this kind.
	if got := PublicIDFor(ids.Campaign, "ns", ids.ToName(rest)); !ids.Valid(ids.Campaign, got) {
		t.Errorf("campaign named like a project id: %q", got)
	}
}

func TestReferenceHelpersReadEitherForm(t *testing.T) {
	campID, dsID := ids.New(ids.Campaign), ids.New(ids.Dataset)
	rest := &Run{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec: RunSpec{ProjectID: ids.New(ids.Project), CampaignID: campID, DatasetID: dsID}}
	if rest.CampaignName() != ids.ToName(campID) || rest.CampaignID() != campID || rest.DatasetName() != ids.ToName(dsID) ||
		rest.DatasetID() != dsID || rest.ProjectID() != rest.Spec.ProjectID {
		t.Errorf("REST run: %s %s %s %s %s", rest.CampaignName(), rest.CampaignID(), rest.DatasetName(), rest.DatasetID(), rest.ProjectID())
	}
	human := &Run{ObjectMeta: metav1.ObjectMeta{Name: "first-look", Namespace: "ns"},
		Spec: RunSpec{CampaignRef: &ObjectRef{Name: "drops"}, DatasetRef: &ObjectRef{Name: ids.ToName(dsID)}}}
	if human.CampaignName() != "drops" || human.CampaignID() != PublicIDFor(ids.Campaign, "ns", "drops") {
		t.Errorf("human run's campaign: %s %s", human.CampaignName(), human.CampaignID())
	}
	if human.DatasetID() != dsID {
		t.Errorf("a ref to a REST-created dataset names its id: %s", human.DatasetID())
	}
	if human.ProjectID() != "" {
		t.Errorf("a human run's project is its campaign's, unknown before the controller reads it: %q", human.ProjectID())
	}
	human.Status.ProjectID = "proj_x"
	if human.ProjectID() != "proj_x" {
		t.Errorf("ProjectID() does not read status: %q", human.ProjectID())
	}
	p := &Project{ObjectMeta: metav1.ObjectMeta{Name: "free-fall", Namespace: "ns"}, Status: ProjectStatus{TenantID: "ten_x"}}
	if p.TenantID() != "ten_x" {
		t.Errorf("a project's tenant is its namespace's: %q", p.TenantID())
	}
	c := &Campaign{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: CampaignSpec{ProjectRef: &ObjectRef{Name: "free-fall"}}}
	if c.ProjectName() != "free-fall" || c.ProjectID() != PublicIDFor(ids.Project, "ns", "free-fall") {
		t.Errorf("campaign's project: %s %s", c.ProjectName(), c.ProjectID())
	}
}
