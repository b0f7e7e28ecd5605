package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

var _ = Describe("Project controller", func() {
	It("defaults settings, adds the finalizer and becomes Ready", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		Expect(p.Spec.State).To(Equal(discov1.ProjectActive))
		Expect(p.Spec.Settings.DefaultMode).To(Equal(discov1.ModeSymbolic))
		Expect(p.Spec.Settings.Governance.PromotionCeiling).To(Equal(discov1.TierValidate))
		Expect(*p.Spec.Settings.Governance.RequireNegativeControls).To(BeTrue())
		Expect(*p.Spec.Settings.Governance.TruthDialThreshold).To(BeNumerically("==", 0.7))

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Finalizers).To(ContainElement(discov1.Finalizer))
			cond := meta.FindStatusCondition(p.Status.Conditions, discov1.ConditionReady)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(cond.ObservedGeneration).To(Equal(p.Generation))
			g.Expect(p.Status.Phase).To(Equal(discov1.ProjectActive))
		}).Should(Succeed())

		update(p, func() { p.Spec.State = discov1.ProjectArchived })
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Status.Phase).To(Equal(discov1.ProjectArchived))
			g.Expect(p.Status.ObservedGeneration).To(Equal(p.Generation))
		}).Should(Succeed())
	})

	It("is not Ready in a namespace that is not its tenant's", func() {
		tenant, _ := newTenant()
		_, otherNS := newTenant()
		p := newProject(tenant, otherNS)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			cond := meta.FindStatusCondition(p.Status.Conditions, discov1.ConditionReady)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Reason).To(Equal("WrongNamespace"))
		}).Should(Succeed())
	})

	It("deletes its campaigns and runs when deleted", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 100, 10, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Finalizers).To(ContainElement(discov1.Finalizer))
		}).Should(Succeed())
		Expect(k8sClient.Delete(ctx, p)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), &discov1.Campaign{})) &&
				apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), &discov1.Run{})) &&
				apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), &discov1.Project{}))
		}).Should(BeTrue())
	})

	It("refuses invalid projects with the schema's message", func() {
		_, ns := newTenant()
		bad := &discov1.Project{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Project)), Namespace: ns},
			Spec: discov1.ProjectSpec{DisplayName: "p", TenantID: "ten_bogus", Settings: discov1.ProjectSettings{
				Governance: discov1.GovernanceSettings{PromotionCeiling: "gold"}}},
		}
		err := k8sClient.Create(ctx, bad)
		Expect(apierrors.IsInvalid(err)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("spec.tenantID"))
		Expect(err.Error()).To(ContainSubstring("spec.settings.governance.promotionCeiling"))
	})
})
