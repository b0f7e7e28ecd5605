package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

var _ = Describe("Run controller", func() {
	It("accepts a run as queued with pending stages, owned by its campaign", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.Phase).To(Equal(discov1.RunQueued))
			g.Expect(r.Status.Pipeline.Stages).To(HaveLen(len(discov1.PipelineStages)))
			g.Expect(r.Status.Pipeline.Stages[0].Status).To(Equal("pending"))
			g.Expect(meta.IsStatusConditionTrue(r.Status.Conditions, discov1.RunConditionAccepted)).To(BeTrue())
			g.Expect(r.OwnerReferences).To(HaveLen(1))
			g.Expect(r.OwnerReferences[0].Name).To(Equal(c.Name))
		}).Should(Succeed())
	})

	It("cancels a queued run on request", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.Phase).To(Equal(discov1.RunQueued))
			r.Annotations = map[string]string{discov1.AnnotationCancelRequested: "2026-01-01T00:00:00Z usr_x"}
			g.Expect(k8sClient.Update(ctx, r)).To(Succeed())
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Status.Phase).To(Equal(discov1.RunCancelled))
			g.Expect(r.Status.CompletedAt).NotTo(BeNil())
		}).Should(Succeed())
	})

	It("refuses changes to a submitted run's spec and unknown modes", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			r.Spec.Mode = discov1.ModeCausal
			err := k8sClient.Update(ctx, r)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("a run's spec is immutable once submitted"))
		}).Should(Succeed())

		bad := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Run)), Namespace: ns},
			Spec: discov1.RunSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), Mode: "alchemy", DatasetID: ids.New(ids.Dataset),
				Governance: discov1.RunGovernance{NegativeControls: []string{"astrology"}}}}
		err := k8sClient.Create(ctx, bad)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.mode"))
		Expect(err.Error()).To(ContainSubstring("spec.governance.negativeControls"))
	})
})

var _ = Describe("Claim controller", func() {
	It("records the previous tier when the tier moves and refuses content changes", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil)
		r := newRun(c, 5)
		claim := &discov1.Claim{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Claim)), Namespace: ns},
			Spec: discov1.ClaimSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), RunID: ids.FromName(r.Name),
				Type: discov1.ClaimLaw, Tier: discov1.TierExplore, Summary: "y = 2*x", Score: 0.9, Expression: "2*x"},
		}
		Expect(k8sClient.Create(ctx, claim)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
			g.Expect(claim.Status.Tier).To(Equal(discov1.TierExplore))
			g.Expect(claim.OwnerReferences).To(HaveLen(1))
		}).Should(Succeed())

		claim.Spec.Tier = discov1.TierValidate
		Expect(k8sClient.Update(ctx, claim)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
			g.Expect(claim.Status.Tier).To(Equal(discov1.TierValidate))
			g.Expect(claim.Status.PreviousTier).To(Equal(discov1.TierExplore))
		}).Should(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
			claim.Spec.Score = 0.1
			err := k8sClient.Update(ctx, claim)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("a claim's content is immutable"))
		}).Should(Succeed())
	})
})

var _ = Describe("Dataset controller", func() {
	newDataset := func(ns, projectID, name string) *discov1.Dataset {
		ds := &discov1.Dataset{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Dataset)), Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectID: projectID, DisplayName: name, Format: "csv", BlobKey: tenantBlobKey(ns, projectID), SizeBytes: 10,
				SHA256: "0000000000000000000000000000000000000000000000000000000000000000"},
		}
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		return ds
	}

	It("profiles a dataset to ready", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := newDataset(ns, ids.FromName(p.Name), "good")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady))
			g.Expect(ds.Status.Rows).To(BeEquivalentTo(100))
			g.Expect(ds.Status.Variables).To(Equal([]string{"a", "b", "c"}))
			g.Expect(ds.Status.ProfiledAt).NotTo(BeNil())
		}).Should(Succeed())
		Eventually(func() []string { return eventReasons(ns, ds.Name) }).Should(ContainElement("Profiled"))
	})

	It("marks an unusable dataset failed with the reason", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := newDataset(ns, ids.FromName(p.Name), "bad-file")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetFailed))
			g.Expect(ds.Status.Message).To(ContainSubstring("row 3"))
		}).Should(Succeed())
	})

	It("refuses unsupported formats", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := &discov1.Dataset{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Dataset)), Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectID: ids.FromName(p.Name), DisplayName: "x", Format: "xlsx", BlobKey: "k",
				SHA256: "0000000000000000000000000000000000000000000000000000000000000000"},
		}
		err := k8sClient.Create(ctx, ds)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.format"))
	})
})
