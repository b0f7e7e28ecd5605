package controllers

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/runspec"
)

// newUser is a Kubernetes user holding the given disco ClusterRole in namespace ns, as a
// cluster admin would grant it with a RoleBinding.
func newUser(name, role, ns string) client.Client {
	u, err := testEnv.AddUser(envtest.User{Name: name}, nil)
	Expect(err).NotTo(HaveOccurred())
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-" + role, Namespace: ns},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: name, APIGroup: rbacv1.GroupName}},
		RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: role, APIGroup: rbacv1.GroupName},
	}
	Expect(k8sClient.Create(ctx, rb)).To(Succeed())
	c, err := client.New(u.Config(), client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// asAdmin is a system:masters client that is not one of disco's components.
func asAdmin() client.Client {
	c, err := client.New(adminCfg, client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// claimIn makes a claim as the run controller would, and waits for its finalizer.
func claimIn(c *discov1.Campaign, r *discov1.Run, score float64, controls bool) *discov1.Claim {
	claim := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Claim)), Namespace: c.Namespace,
			Labels: map[string]string{discov1.LabelProject: c.Spec.ProjectID, discov1.LabelRun: ids.FromName(r.Name)}},
		Spec: discov1.ClaimSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), RunID: ids.FromName(r.Name),
			Type: discov1.ClaimLaw, Tier: discov1.TierExplore, Summary: "y = 2*x", Score: score, Expression: "2*x",
			NegativeControlsPassed: controls},
	}
	Expect(k8sClient.Create(ctx, claim)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
		g.Expect(claim.Finalizers).To(ContainElement(discov1.Finalizer))
	}).Should(Succeed())
	return claim
}

func forbidden(err error, says string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden, got %v", err)
	Expect(err.Error()).To(ContainSubstring(says))
}

func ledgerOf(tenant *discov1.Tenant, projectID, claimID string) []ledger.Entry {
	GinkgoHelper()
	entries, err := testLedger.List(ctx, ids.FromName(tenant.Name), projectID, ledger.ListQuery{ClaimID: claimID, Limit: 100})
	Expect(err).NotTo(HaveOccurred())
	return entries
}

func promotionOf(c client.Client, ns, claimName string, target discov1.Tier) *discov1.ClaimPromotion {
	GinkgoHelper()
	pr := &discov1.ClaimPromotion{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "promote-", Namespace: ns},
		Spec:       discov1.ClaimPromotionSpec{ClaimName: claimName, TargetTier: target, Rationale: "replicated"},
	}
	Expect(c.Create(ctx, pr)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pr), pr)).To(Succeed())
		g.Expect(pr.Status.Phase).NotTo(BeEmpty())
	}).Should(Succeed())
	return pr
}

var _ = Describe("Claims through the Kubernetes API", func() {
	It("refuses every claim write by users, admins included: create, tier, content, labels and status", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil)
		claim := claimIn(c, newRun(c, 5), 0.2, false)
		editor := newUser("edna", "disco-editor", ns)
		for _, w := range []client.Client{editor, asAdmin()} {
			forged := &discov1.Claim{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Claim)), Namespace: ns}, Spec: claim.Spec}
			forged.Spec.Tier, forged.Spec.Score = discov1.TierPublish, 0.999
			err := w.Create(ctx, forged)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		}
		admin := asAdmin()
		for _, patch := range []string{
			`{"spec":{"tier":"publish"}}`,
			`{"spec":{"negativeControlsPassed":true}}`,
			`{"spec":{"expression":"3*x"}}`,
			`{"spec":{"cause":"a","effect":"b"}}`,
			`{"spec":{"scope":{"domain":"everything"}}}`,
			`{"metadata":{"labels":{"discovery.disco.dev/run":"run_aaaaaaaaaaaaaaaaaaaaaaaaaa"}}}`,
			`{"metadata":{"finalizers":null}}`,
		} {
			forbidden(admin.Patch(ctx, claim.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))), "")
		}
		forbidden(admin.Status().Patch(ctx, claim.DeepCopy(), client.RawPatch(types.MergePatchType,
			[]byte(`{"status":{"tier":"publish","lastLedgerEntryID":"led_x"}}`))), "status is written by disco")
		// Annotations stay the user's.
		Expect(admin.Patch(ctx, claim.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"note":"checked"}}}`)))).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
		Expect(claim.Spec.Tier).To(Equal(discov1.TierExplore))
		Expect(claim.Spec.NegativeControlsPassed).To(BeFalse())
	})

	It("moves tiers only through a ClaimPromotion, under the same governance and ledger as REST", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns) // ceiling validate, threshold 0.7, controls required
		c := newCampaign(p, 100, 10, nil)
		r := newRun(c, 5)
		good, weak := claimIn(c, r, 0.9, true), claimIn(c, r, 0.5, true)
		promoter := newUser("pat", "disco-promoter", ns)

		above := promotionOf(promoter, ns, good.Name, discov1.TierPublish)
		Expect(above.Status.Phase).To(Equal(discov1.ClaimPromotionDenied))
		Expect(above.Status.Constraint).To(Equal(governance.ConstraintCeiling))
		Expect(above.Spec.RequestedBy).To(Equal("pat"))
		below := promotionOf(promoter, ns, weak.Name, discov1.TierValidate)
		Expect(below.Status.Constraint).To(Equal(governance.ConstraintThreshold))

		ok := promotionOf(promoter, ns, good.Name, discov1.TierValidate)
		Expect(ok.Status.Phase).To(Equal(discov1.ClaimPromotionApproved), ok.Status.Message)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(good), good)).To(Succeed())
		Expect(good.Spec.Tier).To(Equal(discov1.TierValidate))

		entries := ledgerOf(tenant, ids.FromName(p.Name), ids.FromName(good.Name))
		Expect(entries).To(HaveLen(2))
		Expect(entries[0].EventType).To(Equal(ledger.PolicyEvaluated))
		Expect(entries[1].EventType).To(Equal(ledger.ClaimPromoted))
		Expect(entries[1].Actor).To(Equal("kubernetes:pat"))
		Expect(entries[1].ID).To(Equal(ok.Status.LedgerEntryID))
		v, err := testLedger.Verify(ctx, ids.FromName(tenant.Name), ids.FromName(p.Name))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Valid).To(BeTrue())

		// A ClaimPromotion cannot be made in someone else's name, nor decided by its requester.
		forged := &discov1.ClaimPromotion{ObjectMeta: metav1.ObjectMeta{GenerateName: "promote-", Namespace: ns},
			Spec: discov1.ClaimPromotionSpec{ClaimName: weak.Name, TargetTier: discov1.TierValidate, RequestedBy: "someone-else"}}
		forbidden(promoter.Create(ctx, forged), "requestedBy")
		forbidden(asAdmin().Status().Patch(ctx, below.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"Approved"}}`))), "decision")
		// An editor may submit runs but not ask for promotions.
		editor := newUser("eddie", "disco-editor", ns)
		err = editor.Create(ctx, &discov1.ClaimPromotion{ObjectMeta: metav1.ObjectMeta{GenerateName: "promote-", Namespace: ns},
			Spec: discov1.ClaimPromotionSpec{ClaimName: good.Name, TargetTier: discov1.TierPublish}})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
	})

	It("ledgers a claim's deletion, and refuses deleting one above explore until it is demoted", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 100, 10, nil)
		claim := claimIn(c, newRun(c, 5), 0.9, true)
		promoter := newUser("pia", "disco-promoter", ns)
		Expect(promotionOf(promoter, ns, claim.Name, discov1.TierValidate).Status.Phase).To(Equal(discov1.ClaimPromotionApproved))

		admin := newUser("ada", "disco-admin", ns)
		forbidden(admin.Delete(ctx, claim.DeepCopy()), "demote it to explore first")
		Expect(promotionOf(admin, ns, claim.Name, discov1.TierExplore).Status.Phase).To(Equal(discov1.ClaimPromotionApproved))
		Expect(admin.Delete(ctx, claim.DeepCopy())).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), &discov1.Claim{}))
		}).Should(BeTrue())
		entries := ledgerOf(tenant, ids.FromName(p.Name), ids.FromName(claim.Name))
		Expect(entries).NotTo(BeEmpty())
		last := entries[len(entries)-1]
		Expect(last.EventType).To(Equal(ledger.ClaimDeleted))
		Expect(entries[len(entries)-2].EventType).To(Equal(ledger.ClaimDemoted))
	})

	It("ledgers the deletion of a claim whose tenant is already gone, and lets it go", func() {
		// Deleting a tenant deletes its namespace and then the Tenant; the namespace
		// controller deletes the claims after that, and each still names its tenant.
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newCampaign(p, 100, 10, nil)
		claim := claimIn(c, newRun(c, 5), 0.9, true)
		Expect(k8sClient.Delete(ctx, tenant.DeepCopy())).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), &discov1.Tenant{}))
		}).Should(BeTrue())
		Expect(k8sClient.Delete(ctx, claim.DeepCopy())).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(claim), &discov1.Claim{}))
		}).Should(BeTrue())
		entries := ledgerOf(tenant, ids.FromName(p.Name), ids.FromName(claim.Name))
		Expect(entries).NotTo(BeEmpty())
		Expect(entries[len(entries)-1].EventType).To(Equal(ledger.ClaimDeleted))
	})
})

var _ = Describe("Runs through the Kubernetes API", func() {
	userRun := func(c *discov1.Campaign, estimate int64) *discov1.Run {
		return &discov1.Run{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Run)), Namespace: c.Namespace},
			Spec: discov1.RunSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), Mode: discov1.ModeSymbolic,
				DatasetID: ids.New(ids.Dataset), ComputeUnitsEstimated: estimate},
		}
	}

	It("refuses runs over max_runs and compute units, with the REST constraint names", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		editor := newUser("ed", "disco-editor", ns)
		c := newCampaign(p, 100, 2, nil)
		for range 2 {
			Expect(editor.Create(ctx, userRun(c, 5))).To(Succeed())
		}
		forbidden(editor.Create(ctx, userRun(c, 5)), "budget_exhausted (max_runs)")

		units := newCampaign(p, 10, 10, nil)
		forbidden(editor.Create(ctx, userRun(units, 50)), "budget_exhausted (compute_units)")
		expired := time.Now().Add(-time.Hour)
		forbidden(editor.Create(ctx, userRun(newCampaign(p, 100, 10, &expired), 5)), "budget_exhausted (expires_at)")
	})

	It("prices a hand-written run as REST does, so it cannot reserve nothing", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		editor := newUser("est", "disco-editor", ns)
		ds := uploadCSV(p, linearCSV(100))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Rows).To(BeNumerically(">", 0))
		}).Should(Succeed())
		r := userRun(newCampaign(p, 10000, 10, nil), 0)
		r.Spec.DatasetID = ids.FromName(ds.Name)
		Expect(editor.Create(ctx, r)).To(Succeed())
		want := runspec.Estimate(r.Spec, int(ds.Status.Rows), int(ds.Status.Columns))
		Expect(want).To(BeNumerically(">", 0))
		Expect(r.Spec.ComputeUnitsEstimated).To(Equal(want))

		tight := userRun(newCampaign(p, want-1, 10, nil), 0)
		tight.Spec.DatasetID = ids.FromName(ds.Name)
		forbidden(editor.Create(ctx, tight), "budget_exhausted (compute_units)")
	})

	It("refuses a run the engine would refuse, as REST does at submission", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		editor := newUser("spec", "disco-editor", ns)
		c := newCampaign(p, 10000, 20, nil)
		ds := uploadCSV(p, linearCSV(100))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Variables).To(Equal([]string{"a", "b", "c"}), "the suite's profiler")
		}).Should(Succeed())
		invalid := func(r *discov1.Run, says ...string) {
			GinkgoHelper()
			err := editor.Create(ctx, r)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			for _, s := range says {
				Expect(err.Error()).To(ContainSubstring(s))
			}
		}
		on := func(dataset string, mutate func(*discov1.RunSpec)) *discov1.Run {
			r := userRun(c, 5)
			r.Spec.DatasetID = dataset
			mutate(&r.Spec)
			return r
		}
		profiled := ids.FromName(ds.Name)
		invalid(on(profiled, func(s *discov1.RunSpec) { s.Parameters.Constraints = []string{"units:a=kgg/s"} }),
			"constraint_invalid: spec.parameters.constraints", `"kgg"`)
		invalid(on(profiled, func(s *discov1.RunSpec) { s.Parameters.Constraints = []string{"dynamics:a"} }),
			"constraint_invalid", "time:<column>")
		invalid(on(profiled, func(s *discov1.RunSpec) { s.Parameters.Constraints = []string{"time:b", "dynamics:a,wolf"} }),
			`"wolf" is not a column`, "the dataset's columns: a, b, c")
		invalid(on(profiled, func(s *discov1.RunSpec) { s.Parameters.TargetVariables = []string{"nope"} }),
			"spec.parameters.targetVariables")
		Expect(editor.Create(ctx, on(profiled, func(s *discov1.RunSpec) { s.Parameters.Constraints = []string{"time:b", "dynamics:a"} }))).To(Succeed())

		// A run written before its dataset exists is checked without the columns.
		later := ids.New(ids.Dataset)
		invalid(on(later, func(s *discov1.RunSpec) { s.Parameters.Constraints = []string{"units:a=kgg/s"} }), "constraint_invalid")
		Expect(editor.Create(ctx, on(later, func(s *discov1.RunSpec) { s.Parameters.TargetVariables = []string{"wolf"} }))).To(Succeed())
	})

	It("refuses runs in archived campaigns and projects", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		editor := newUser("eva", "disco-editor", ns)
		c := newCampaign(p, 100, 10, nil)
		Expect(k8sClient.Patch(ctx, c.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"archived":true}}`)))).To(Succeed())
		Eventually(func() error { return editor.Create(ctx, userRun(c, 5)) }).Should(MatchError(ContainSubstring("budget_exhausted (archived)")))

		c2 := newCampaign(p, 100, 10, nil)
		Expect(k8sClient.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"state":"archived"}}`)))).To(Succeed())
		Eventually(func() error { return editor.Create(ctx, userRun(c2, 5)) }).Should(MatchError(ContainSubstring("budget_exhausted (archived): the project")))
	})

	It("admits racing runs one at a time: the one over max_runs fails with BudgetExhausted and uses nothing", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 1, nil)
		// Created as disco's component, the webhook does not look: the controller must.
		a, b := newRun(c, 5), newRun(c, 5)
		var refused *discov1.Run
		Eventually(func(g Gomega) {
			for _, r := range []*discov1.Run{a, b} {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			}
			g.Expect(governance.Refused(a)).ToNot(Equal(governance.Refused(b)), "exactly one refused")
		}).WithTimeout(20 * time.Second).Should(Succeed())
		refused = b
		if governance.Refused(a) {
			refused = a
		}
		Expect(refused.Status.Message).To(ContainSubstring("budget_exhausted (max_runs)"))
		Expect(refused.Status.ComputeUnitsUsed).To(BeZero())
		Expect(meta.IsStatusConditionTrue(refused.Status.Conditions, discov1.RunConditionFailed)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(refused.Status.Conditions, discov1.RunConditionSucceeded)).To(BeTrue())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.RunsTotal).To(Equal(int32(1)))
		}).Should(Succeed())
	})

	It("keeps the budget a deleted run used", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 3, nil)
		r := newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Finalizers).To(ContainElement(discov1.Finalizer))
		}).Should(Succeed())
		finishRun(r, discov1.RunCompleted, 7)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ComputeUnitsUsed).To(Equal(int64(7)))
		}).Should(Succeed())
		editor := newUser("del", "disco-editor", ns)
		Expect(editor.Delete(ctx, r.DeepCopy())).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)) }).Should(BeTrue())
		Consistently(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ComputeUnitsUsed).To(Equal(int64(7)))
			g.Expect(c.Status.RunsTotal).To(Equal(int32(1)))
			g.Expect(c.Status.RunsCompleted).To(Equal(int32(1)))
		}, "2s").Should(Succeed())
	})

	It("charges a run deleted while running the compute it ran", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 1000, 3, nil)
		r := newRun(c, 5)
		started := metav1.NewTime(testClock.Now().Add(-90 * time.Second))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			g.Expect(r.Finalizers).To(ContainElement(discov1.Finalizer))
			g.Expect(r.Status.Phase).NotTo(BeEmpty())
			r.Status.Phase, r.Status.StartedAt = discov1.RunRunning, &started
			g.Expect(k8sClient.Status().Update(ctx, r)).To(Succeed())
		}).Should(Succeed())
		Expect(k8sClient.Delete(ctx, r.DeepCopy())).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)) }).Should(BeTrue())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.Retired).NotTo(BeNil())
			g.Expect(c.Status.Retired.ComputeUnits).To(BeNumerically(">=", 90))
			g.Expect(c.Status.ComputeUnitsUsed).To(BeNumerically(">=", 90))
			g.Expect(c.Status.RunsTotal).To(Equal(int32(1)))
		}).Should(Succeed())
	})
})

var _ = Describe("Governance settings through the Kubernetes API", func() {
	It("need the promoter role: an editor may edit a project but not its governance", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		editor, promoter := newUser("ella", "disco-editor", ns), newUser("pete", "disco-promoter", ns)
		Expect(editor.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"description":"renamed"}}`)))).To(Succeed())
		for _, patch := range []string{
			`{"spec":{"settings":{"governance":{"promotionCeiling":"publish"}}}}`,
			`{"spec":{"settings":{"governance":{"truthDialThreshold":0}}}}`,
			`{"spec":{"settings":{"governance":{"requireNegativeControls":false}}}}`,
		} {
			forbidden(editor.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))), "projects/governance")
		}
		c := newCampaign(p, 100, 10, nil)
		forbidden(editor.Patch(ctx, c.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"governance":{"requireNegativeControls":false}}}`))), "campaigns/governance")
		forged := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Campaign)), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: ids.FromName(p.Name), DisplayName: "c", Budget: discov1.Budget{ComputeUnits: 1, MaxRuns: 1},
				Governance: discov1.CampaignGovernance{AutoPromoteTo: discov1.TierValidate}}}
		forbidden(editor.Create(ctx, forged), "campaigns/governance")
		Expect(promoter.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"settings":{"governance":{"truthDialThreshold":0.8}}}}`)))).
			To(MatchError(ContainSubstring("forbidden")), "a promoter holds governance but not project edits")
		both := newUser("bo", "disco-admin", ns)
		Expect(both.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(`{"spec":{"settings":{"governance":{"truthDialThreshold":0.8}}}}`)))).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		Expect(ptr.Deref(p.Spec.Settings.Governance.TruthDialThreshold, 0)).To(Equal(0.8))

		// The change is ledgered with its author, before and after, and the attribution
		// the webhook put on the project is gone once it is.
		var changed []ledger.Entry
		Eventually(func(g Gomega) {
			entries, err := testLedger.List(ctx, ids.FromName(tenant.Name), ids.FromName(p.Name), ledger.ListQuery{Limit: 100})
			g.Expect(err).NotTo(HaveOccurred())
			changed = nil
			for _, e := range entries {
				if e.EventType == ledger.PolicyChanged {
					changed = append(changed, e)
				}
			}
			g.Expect(changed).To(HaveLen(1))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Annotations).NotTo(HaveKey(discov1.AnnotationGovernanceChangedBy))
		}).Should(Succeed())
		Expect(changed[0].Actor).To(Equal("kubernetes:bo"))
		Expect(changed[0].Details["before"]).To(HaveKeyWithValue("truthDialThreshold", 0.7))
		Expect(changed[0].Details["after"]).To(HaveKeyWithValue("truthDialThreshold", 0.8))

		// Nobody can attribute a change to someone else: the annotation is the webhook's.
		Expect(editor.Patch(ctx, p.DeepCopy(), client.RawPatch(types.MergePatchType,
			[]byte(`{"metadata":{"annotations":{"discovery.disco.dev/governance-changed-by":"bo"}}}`)))).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		Expect(p.Annotations).NotTo(HaveKey(discov1.AnnotationGovernanceChangedBy))
	})
})
