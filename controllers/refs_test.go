package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/lookup"
)

// reasonOf is the reason of a condition, "" when it is not there.
func reasonOf(conds []metav1.Condition, typ string) string {
	if c := meta.FindStatusCondition(conds, typ); c != nil {
		return c.Reason
	}
	return ""
}

// Issue 14, item 6: objects written by name and referred to by name.
var _ = Describe("References by name", func() {
	It("resolve for an editor's human-named objects, wait for missing referents, and derive ids", func() {
		tenant, ns := newTenant()
		tenantID := ids.FromName(tenant.Name)
		editor := newUser("rita", "disco-editor", ns)
		ref := func(name string) *discov1.ObjectRef { return &discov1.ObjectRef{Name: name} }

		// The run comes first, as a GitOps tool may apply it: it waits for its campaign.
		run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "first-look", Namespace: ns},
			Spec: discov1.RunSpec{CampaignRef: ref("drops"), DatasetRef: ref("heights"), Mode: discov1.ModeSymbolic, ComputeUnitsEstimated: 5}}
		Expect(editor.Create(ctx, run)).To(Succeed())
		waiting := func(reason string) {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
				g.Expect(reasonOf(run.Status.Conditions, discov1.RunConditionAdmitted)).To(Equal(reason))
				g.Expect(run.Status.Phase).To(Equal(discov1.RunQueued))
			}).Should(Succeed())
			Eventually(func() []string { return eventReasons(ns, run.Name) }).Should(ContainElement(reason))
		}
		waiting(discov1.ReasonCampaignNotFound)

		camp := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: "drops", Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectRef: ref("free-fall"), Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 5}}}
		Expect(editor.Create(ctx, camp)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(camp), camp)).To(Succeed())
			g.Expect(reasonOf(camp.Status.Conditions, discov1.ConditionReady)).To(Equal(discov1.ReasonProjectNotFound))
		}).Should(Succeed())
		waiting(discov1.ReasonProjectNotFound) // the campaign's creation woke the run

		project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "free-fall", Namespace: ns}}
		Expect(editor.Create(ctx, project)).To(Succeed())
		projectID := discov1.PublicIDFor(ids.Project, ns, "free-fall")
		Expect(ids.Valid(ids.Project, projectID)).To(BeTrue())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(project), project)).To(Succeed())
			g.Expect(project.Status.ID).To(Equal(projectID))
			g.Expect(project.Status.TenantID).To(Equal(tenantID))
			g.Expect(project.Spec.DisplayName).To(Equal("free-fall"))
			g.Expect(project.Labels).To(HaveKeyWithValue(discov1.LabelID, projectID))
			g.Expect(project.Labels).To(HaveKeyWithValue(discov1.LabelTenant, tenantID))
			g.Expect(reasonOf(project.Status.Conditions, discov1.ConditionReady)).To(Equal(discov1.ReasonReady))
		}).Should(Succeed())
		found := &discov1.Project{}
		Expect(lookup.ByID(ctx, k8sClient, ns, projectID, found)).To(Succeed())
		Expect(found.Name).To(Equal("free-fall"))

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(camp), camp)).To(Succeed())
			g.Expect(camp.Status.ID).To(Equal(discov1.PublicIDFor(ids.Campaign, ns, "drops")))
			g.Expect(camp.Status.ProjectID).To(Equal(projectID))
			g.Expect(camp.Spec.DisplayName).To(Equal("drops"))
			g.Expect(camp.Labels).To(HaveKeyWithValue(discov1.LabelProject, projectID))
			g.Expect(camp.OwnerReferences).To(HaveLen(1))
			g.Expect(reasonOf(camp.Status.Conditions, discov1.ConditionReady)).To(Equal(discov1.ReasonReconciled))
		}).Should(Succeed())
		waiting(discov1.ReasonDatasetNotFound)

		ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "heights", Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectRef: ref("free-fall"), Format: "csv", BlobKey: blob.DatasetPrefix(tenantID, ns) + "heights.csv",
				SizeBytes: 10, SHA256: "ca79f3ab5596208c5cd3d21e035dc3256ec4db9b53796544fad586662422752c"}}
		Expect(editor.Create(ctx, ds)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.ProjectID).To(Equal(projectID))
			g.Expect(ds.Labels).To(HaveKeyWithValue(discov1.LabelProject, projectID))
		}).Should(Succeed())

		// The dataset's creation woke the run: it is past its references (this suite's
		// executor takes no run of this campaign), with every id in status and label.
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(reasonOf(run.Status.Conditions, discov1.RunConditionAdmitted)).To(Equal(discov1.ReasonNotSubmitted))
			g.Expect(run.Status.ID).To(Equal(discov1.PublicIDFor(ids.Run, ns, "first-look")))
			g.Expect(run.Status.ProjectID).To(Equal(projectID))
			g.Expect(run.Status.CampaignID).To(Equal(camp.Status.ID))
			g.Expect(run.Status.DatasetID).To(Equal(ds.Status.ID))
			g.Expect(run.Labels).To(HaveKeyWithValue(discov1.LabelProject, projectID))
			g.Expect(run.Labels).To(HaveKeyWithValue(discov1.LabelCampaign, camp.Status.ID))
			g.Expect(run.Labels).To(HaveKeyWithValue(discov1.LabelID, run.Status.ID))
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(camp), camp)).To(Succeed())
			g.Expect(camp.Status.RunsTotal).To(BeEquivalentTo(1)) // the run counts by its campaign's id
		}).Should(Succeed())
	})

	It("fill in the names of REST-shaped objects that carry only ids", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 100, 5, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Status.ID).To(Equal(ids.FromName(p.Name)))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ID).To(Equal(ids.FromName(c.Name)))
			g.Expect(c.Status.ProjectRef).To(Equal(&discov1.ObjectRef{Name: p.Name}))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.CampaignRef).To(Equal(&discov1.ObjectRef{Name: c.Name}))
			g.Expect(r.Status.DatasetRef).To(Equal(&discov1.ObjectRef{Name: ids.ToName(r.Spec.DatasetID)}))
			g.Expect(r.Status.ProjectID).To(Equal(r.Spec.ProjectID))
		}).Should(Succeed())
	})

	It("resolve references by id to objects applied under human names, and wait for a source's file", func() {
		tenant, ns := newTenant()
		tenantID := ids.FromName(tenant.Name)
		project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "optics", Namespace: ns}}
		Expect(k8sClient.Create(ctx, project)).To(Succeed())
		projectID := discov1.PublicIDFor(ids.Project, ns, "optics")
		// A campaign and a run as the REST API writes them: named by id, parents by id.
		campID := ids.New(ids.Campaign)
		camp := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(campID), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: projectID, DisplayName: "c", Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 5}}}
		Expect(k8sClient.Create(ctx, camp)).To(Succeed())
		run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Run)), Namespace: ns},
			Spec: discov1.RunSpec{ProjectID: projectID, CampaignID: campID, DatasetID: discov1.PublicIDFor(ids.Dataset, ns, "lens"),
				Mode: discov1.ModeSymbolic, ComputeUnitsEstimated: 5}}
		Expect(k8sClient.Create(ctx, run)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(camp), camp)).To(Succeed())
			g.Expect(camp.Status.ProjectRef).To(Equal(&discov1.ObjectRef{Name: "optics"}))
			g.Expect(camp.OwnerReferences).To(HaveLen(1))
			g.Expect(camp.OwnerReferences[0].Name).To(Equal("optics"))
			g.Expect(reasonOf(camp.Status.Conditions, discov1.ConditionReady)).To(Equal(discov1.ReasonReconciled))
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(reasonOf(run.Status.Conditions, discov1.RunConditionAdmitted)).To(Equal(discov1.ReasonDatasetNotFound))
		}).Should(Succeed())

		// The dataset, by name, from a ConfigMap that is not there yet: the run waits for
		// its file, then goes on once it is fetched.
		ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "lens", Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectID: projectID, Format: "csv",
				Source: &discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: "lens", Key: "t.csv"}}}}
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(reasonOf(run.Status.Conditions, discov1.RunConditionAdmitted)).To(Equal(discov1.ReasonDatasetNotFetched))
			g.Expect(run.Status.DatasetRef).To(Equal(&discov1.ObjectRef{Name: "lens"}))
			g.Expect(run.Status.CampaignRef).To(Equal(&discov1.ObjectRef{Name: camp.Name}))
		}).Should(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lens", Namespace: ns},
			Data: map[string]string{"t.csv": string(smallCSV(10))}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady))
			g.Expect(ds.Status.ProjectRef).To(Equal(&discov1.ObjectRef{Name: "optics"}))
			g.Expect(ds.OwnerReferences).To(HaveLen(1))
			g.Expect(blob.UnderDatasetPrefix(tenantID, ns, ds.Status.Source.BlobKey)).To(BeTrue())
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(reasonOf(run.Status.Conditions, discov1.RunConditionAdmitted)).To(Equal(discov1.ReasonNotSubmitted))
		}).Should(Succeed())
	})

	It("hold the budget at admission for runs written with campaignRef", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 1000, 1, nil)
		editor := newUser("rudi", "disco-editor", ns)
		byName := func(name string) *discov1.Run {
			return &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: discov1.RunSpec{CampaignRef: &discov1.ObjectRef{Name: c.Name}, DatasetRef: &discov1.ObjectRef{Name: "any"},
					Mode: discov1.ModeSymbolic, ComputeUnitsEstimated: 5}}
		}
		Expect(editor.Create(ctx, byName("one"))).To(Succeed())
		forbidden(editor.Create(ctx, byName("two")), "budget_exhausted (max_runs)")
	})

	It("take exactly one form of each reference, and keep it", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		both := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "both", Namespace: ns},
			Spec: discov1.RunSpec{CampaignRef: &discov1.ObjectRef{Name: "c"}, CampaignID: ids.New(ids.Campaign),
				DatasetRef: &discov1.ObjectRef{Name: "d"}, Mode: discov1.ModeSymbolic}}
		Expect(k8sClient.Create(ctx, both)).To(MatchError(ContainSubstring("exactly one of campaignRef")))
		neither := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: "neither", Namespace: ns},
			Spec: discov1.CampaignSpec{Budget: discov1.Budget{ComputeUnits: 1, MaxRuns: 1}}}
		Expect(k8sClient.Create(ctx, neither)).To(MatchError(ContainSubstring("exactly one of projectRef")))
		// A project's tenant is immutable, also when it was left to the namespace.
		human := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "human", Namespace: ns}}
		Expect(k8sClient.Create(ctx, human)).To(Succeed())
		// A merge patch: the controller writes the new project at once, and an update from
		// the creation's version would meet that write's conflict instead of the rule.
		before := human.DeepCopy()
		human.Spec.TenantID = p.Spec.TenantID
		Expect(k8sClient.Patch(ctx, human, client.MergeFrom(before))).To(MatchError(ContainSubstring("tenantID is immutable")))
	})
})
