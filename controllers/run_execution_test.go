package controllers

import (
	"fmt"
	"math"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/metrics"
	"github.com/discolab/disco/runexec"
)

// uploadCSV stores a CSV in the blob store and creates its Dataset (profiled by the fake).
func uploadCSV(p *discov1.Project, body string) *discov1.Dataset {
	id := ids.New(ids.Dataset)
	key := tenantBlobKey(p.Namespace, ids.FromName(p.Name))
	Expect(testBlob.Put(ctx, key, []byte(body))).To(Succeed())
	ds := &discov1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: p.Namespace},
		Spec: discov1.DatasetSpec{ProjectID: ids.FromName(p.Name), DisplayName: "linear", Format: "csv", BlobKey: key,
			SizeBytes: int64(len(body)), SHA256: strings.Repeat("a", 64)},
	}
	Expect(k8sClient.Create(ctx, ds)).To(Succeed())
	return ds
}

func linearCSV(n int) string {
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := 0; i < n; i++ {
		x := float64(i%37)/7 + 0.1
		z := math.Sin(float64(i) * 1.3)
		fmt.Fprintf(&b, "%g,%g,%g\n", x, z, 3*x+1)
	}
	return b.String()
}

func submit(c *discov1.Campaign, ds *discov1.Dataset, mode discov1.Mode, targets ...string) *discov1.Run {
	id := ids.New(ids.Run)
	r := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: c.Namespace,
			Labels: map[string]string{discov1.LabelProject: c.Spec.ProjectID, discov1.LabelCampaign: ids.FromName(c.Name)}},
		Spec: discov1.RunSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), Mode: mode, DatasetID: ids.FromName(ds.Name),
			Parameters: discov1.RunParameters{TargetVariables: targets}, Seed: 7, ComputeUnitsEstimated: 5},
	}
	Expect(k8sClient.Create(ctx, r)).To(Succeed())
	return r
}

var _ = Describe("Run execution (local executor)", func() {
	It("runs the engine, reports stages, creates ledgered claims and completes", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newExecCampaign(p)
		ds := uploadCSV(p, linearCSV(200))
		run := submit(c, ds, discov1.ModeSymbolic, "y")

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunCompleted), "message: %s", run.Status.Message)
		}, 90*time.Second, 500*time.Millisecond).Should(Succeed())

		Expect(run.Status.StartedAt).NotTo(BeNil())
		Expect(run.Status.CompletedAt).NotTo(BeNil())
		Expect(run.Status.ComputeUnitsUsed).To(BeNumerically(">=", 1))
		Expect(run.Status.ClaimsCount).To(BeNumerically(">=", 1))
		Expect(run.Status.ArtifactsCount).To(BeNumerically(">=", 1))
		Expect(*run.Status.Progress).To(BeNumerically("==", 1))
		Expect(meta.IsStatusConditionTrue(run.Status.Conditions, discov1.RunConditionClaimsCreated)).To(BeTrue())
		for _, st := range run.Status.Pipeline.Stages {
			Expect(st.Status).To(BeElementOf("completed", "skipped"), "stage %s", st.Name)
		}
		Expect(run.Status.Summary).NotTo(BeNil())
		Expect(run.Status.Summary.BestClaimID).To(HavePrefix("clm_"))

		best := &discov1.Claim{}
		Expect(k8sClient.Get(ctx, objectKey(ns, run.Status.Summary.BestClaimID), best)).To(Succeed())
		Expect(best.Spec.Type).To(Equal(discov1.ClaimLaw))
		Expect(best.Spec.Tier).To(Equal(discov1.TierExplore))
		Expect(best.Spec.Expression).To(ContainSubstring("x"))
		Expect(best.Spec.Expression).NotTo(ContainSubstring("z"))
		Expect(best.Spec.Score).To(BeNumerically(">", 0.5))
		Expect(best.Spec.LedgerEntryID).To(HavePrefix("led_"))

		entries, err := testLedger.List(ctx, ids.FromName(tenant.Name), ids.FromName(p.Name), ledger.ListQuery{ClaimID: ids.FromName(best.Name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).NotTo(BeEmpty())
		Expect(entries[0].EventType).To(Equal("claim_created"))
		Expect(entries[0].ID).To(Equal(best.Spec.LedgerEntryID))
		Expect(entries[0].Actor).To(Equal("system"))

		ok, err := testBlob.Exists(ctx, runexec.RunBlobs(run, ids.FromName(tenant.Name)).Results())
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())

		runID := ids.FromName(run.Name)
		Eventually(func() int { return len(testEvents.ofType("run.completed", runID)) }).Should(Equal(1))
		Expect(testEvents.ofType("claim.created", runID)).To(HaveLen(int(run.Status.ClaimsCount)))
		Consistently(func() int { return len(testEvents.ofType("run.completed", runID)) }, 2*time.Second).Should(Equal(1))

		Expect(testutil.ToFloat64(metrics.RunsFinished.WithLabelValues("completed", "symbolic"))).To(BeNumerically(">=", 1))
		Expect(testutil.ToFloat64(metrics.ClaimsCreated.WithLabelValues("law", "explore"))).To(BeNumerically(">=", 1))
		Expect(testutil.ToFloat64(metrics.LedgerAppends.WithLabelValues("claim_created"))).To(BeNumerically(">=", 1))
		families, err := ctrlmetrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		// The state gauges count the cached objects: this run is completed and its claims
		// are laws in explore, among those of other specs.
		gauges := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				labels := f.GetName()
				for _, l := range m.GetLabel() {
					labels += "," + l.GetValue()
				}
				gauges[labels] = m.GetGauge().GetValue()
			}
		}
		Expect(gauges).To(HaveKeyWithValue("disco_runs,completed", BeNumerically(">=", 1)))
		Expect(gauges).To(HaveKeyWithValue("disco_claims,explore,law", BeNumerically(">=", float64(run.Status.ClaimsCount))))

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.RunsCompleted).To(BeEquivalentTo(1))
			g.Expect(c.Status.ComputeUnitsUsed).To(Equal(run.Status.ComputeUnitsUsed))
		}).Should(Succeed())
	})

	It("fails a run whose target is not in the data, with the reason, and announces it", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := newExecCampaign(p)
		ds := uploadCSV(p, linearCSV(50))
		run := submit(c, ds, discov1.ModeSymbolic, "nope")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunFailed))
			g.Expect(run.Status.Message).To(ContainSubstring("nope"))
		}, 60*time.Second).Should(Succeed())
		// What `kubectl wait --for=condition=Failed` reads: every final condition says failed.
		for typ, want := range map[string]metav1.ConditionStatus{
			discov1.RunConditionFinished: metav1.ConditionTrue, discov1.RunConditionFailed: metav1.ConditionTrue,
			discov1.RunConditionSucceeded: metav1.ConditionFalse, discov1.ConditionReady: metav1.ConditionFalse,
		} {
			cond := meta.FindStatusCondition(run.Status.Conditions, typ)
			Expect(cond).NotTo(BeNil(), typ)
			Expect(cond.Status).To(Equal(want), typ)
			Expect(cond.Message).To(ContainSubstring("nope"), typ)
		}
		// The pipeline shows where it failed: the data did not validate.
		Expect(run.Status.Pipeline.Stages).To(ContainElement(And(HaveField("Name", "data_validation"), HaveField("Status", "failed"))))
		Eventually(func() int { return len(testEvents.ofType("run.failed", ids.FromName(run.Name))) }).Should(Equal(1))
	})
})

var _ = Describe("Auto-promotion", func() {
	It("starts claims that pass the checks in the campaign's auto_promote_to tier, ledgered by system", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		id := ids.New(ids.Campaign)
		c := &discov1.Campaign{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: ids.FromName(p.Name), DisplayName: "exec", Budget: discov1.Budget{ComputeUnits: 1000, MaxRuns: 5},
				Governance: discov1.CampaignGovernance{AutoPromoteTo: discov1.TierValidate}},
		}
		Expect(k8sClient.Create(ctx, c)).To(Succeed())
		ds := uploadCSV(p, linearCSV(200))
		run := submit(c, ds, discov1.ModeSymbolic, "y")
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunCompleted), run.Status.Message)
		}, 90*time.Second, 500*time.Millisecond).Should(Succeed())

		claims := &discov1.ClaimList{}
		Expect(k8sClient.List(ctx, claims, client.InNamespace(ns), client.MatchingLabels{discov1.LabelRun: ids.FromName(run.Name)})).To(Succeed())
		Expect(claims.Items).NotTo(BeEmpty())
		promoted := 0
		for _, claim := range claims.Items {
			entries, err := testLedger.List(ctx, ids.FromName(tenant.Name), ids.FromName(p.Name), ledger.ListQuery{ClaimID: ids.FromName(claim.Name), Limit: 100})
			Expect(err).NotTo(HaveOccurred())
			var kinds []string
			for _, e := range entries {
				kinds = append(kinds, e.EventType)
			}
			// Project defaults: threshold 0.7, controls required, ceiling validate.
			if claim.Spec.Score >= 0.7 && claim.Spec.NegativeControlsPassed {
				Expect(claim.Spec.Tier).To(Equal(discov1.TierValidate))
				Expect(kinds).To(ContainElement("claim_promoted"))
				promoted++
			} else {
				Expect(claim.Spec.Tier).To(Equal(discov1.TierExplore))
				Expect(kinds).To(ContainElement("policy_evaluated"))
			}
		}
		Expect(promoted).To(BeNumerically(">=", 1), "the exact law passes every check")
		Eventually(func() int { return len(testEvents.ofType("claim.promoted", ids.FromName(run.Name))) }).Should(Equal(promoted))
	})
})
