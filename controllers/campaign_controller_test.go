package controllers

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

func finishRun(r *discov1.Run, phase discov1.RunPhase, used int64) {
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
		g.Expect(r.Status.Phase).NotTo(BeEmpty())
		r.Status.Phase = phase
		r.Status.ComputeUnitsUsed = used
		g.Expect(k8sClient.Status().Update(ctx, r)).To(Succeed())
	}).Should(Succeed())
}

var _ = Describe("Campaign controller", func() {
	It("owns the campaign to its project and computes budget counters from its runs", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 100, 5, nil)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.OwnerReferences).To(HaveLen(1))
			g.Expect(c.OwnerReferences[0].Name).To(Equal(p.Name))
			g.Expect(c.Status.Phase).To(Equal(discov1.CampaignActive))
		}).Should(Succeed())

		r1 := newRun(c, 30)
		r2 := newRun(c, 20)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ComputeUnitsUsed).To(BeEquivalentTo(50)) // reserved by the estimates
			g.Expect(c.Status.RunsActive).To(BeEquivalentTo(2))
			g.Expect(c.Status.RunsTotal).To(BeEquivalentTo(2))
		}).Should(Succeed())

		finishRun(r1, discov1.RunCompleted, 12)
		finishRun(r2, discov1.RunFailed, 3)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ComputeUnitsUsed).To(BeEquivalentTo(15))
			g.Expect(c.Status.RunsCompleted).To(BeEquivalentTo(1))
			g.Expect(c.Status.RunsActive).To(BeEquivalentTo(0))
			g.Expect(c.Status.ObservedGeneration).To(Equal(c.Generation))
		}).Should(Succeed())
	})

	It("becomes exhausted when the compute budget is used up, and records an event", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 10, 5, nil)
		r := newRun(c, 4)
		finishRun(r, discov1.RunCompleted, 10)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.Phase).To(Equal(discov1.CampaignExhausted))
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(eventReasons(ns, c.Name)).To(ContainElement("BudgetExhausted"))
		}).Should(Succeed())
	})

	It("becomes exhausted when max runs is reached", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 1000, 1, nil)
		newRun(c, 1)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.Phase).To(Equal(discov1.CampaignExhausted))
		}).Should(Succeed())
	})

	It("expires at expiresAt without any other event", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		// Real wall time drives RequeueAfter; the fake clock decides what "now" is.
		expires := testClock.Now().Add(2 * time.Second)
		c := newCampaign(p, 1000, 10, &expires)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.Phase).To(Equal(discov1.CampaignActive))
		}).Should(Succeed())
		testClock.Step(3 * time.Second)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.Phase).To(Equal(discov1.CampaignExpired))
		}, 10*time.Second).Should(Succeed())
	})

	It("refuses negative budgets", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		bad := &discov1.Campaign{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Campaign)), Namespace: ns},
			Spec:       discov1.CampaignSpec{ProjectID: ids.FromName(p.Name), DisplayName: "c", Budget: discov1.Budget{ComputeUnits: -1, MaxRuns: -2}},
		}
		err := k8sClient.Create(ctx, bad)
		Expect(apierrors.IsInvalid(err)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("spec.budget.computeUnits"))
		Expect(err.Error()).To(ContainSubstring("spec.budget.maxRuns"))
	})

	It("refuses auto-promotion above the ceiling with the CEL message", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		bad := &discov1.Campaign{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Campaign)), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: ids.FromName(p.Name), DisplayName: "c", Budget: discov1.Budget{ComputeUnits: 1, MaxRuns: 1},
				Governance: discov1.CampaignGovernance{PromotionCeiling: discov1.TierExplore, AutoPromoteTo: discov1.TierValidate}},
		}
		err := k8sClient.Create(ctx, bad)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("autoPromoteTo must not be above promotionCeiling"))
	})
})
