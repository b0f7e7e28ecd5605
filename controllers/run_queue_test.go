package controllers

import (
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

var _ = Describe("Run queue (issue 14, items 8 and 9)", func() {
	It("runs at most the tenant's limit at once, first in first out, each woken when the one before finishes", func() {
		tenant, ns := newTenant()
		update(tenant, func() { tenant.Spec.ConcurrentRuns = ptr.To[int32](1) })
		p := newProject(tenant, ns)
		c := newExecCampaign(p)
		ds := uploadCSV(p, linearCSV(120))
		var runs []*discov1.Run
		for range 3 {
			runs = append(runs, submit(c, ds, discov1.ModeSymbolic, "y"))
			time.Sleep(1100 * time.Millisecond) // creation timestamps have one-second resolution
		}

		// Sample while they run: never two running at once.
		var mu sync.Mutex
		most := 0
		stop := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				list := &discov1.RunList{}
				if k8sClient.List(ctx, list, client.InNamespace(ns)) != nil {
					continue
				}
				n := 0
				for _, r := range list.Items {
					if r.Status.Phase == discov1.RunRunning {
						n++
					}
				}
				mu.Lock()
				most = max(most, n)
				mu.Unlock()
			}
		}()
		// Without the wake-up on finish a waiting run is looked at again only after a
		// minute: three runs in a row would not all finish in time.
		Eventually(func(g Gomega) {
			for _, r := range runs {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
				g.Expect(r.Status.Phase).To(Equal(discov1.RunCompleted), r.Name)
			}
		}).WithTimeout(100 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		close(stop)
		mu.Lock()
		Expect(most).To(Equal(1))
		mu.Unlock()
		for i := 1; i < len(runs); i++ {
			Expect(runs[i].Status.StartedAt.Time.Before(runs[i-1].Status.StartedAt.Time)).To(BeFalse(), "run %d started before run %d", i, i-1)
		}
		for _, r := range runs {
			Expect(meta.IsStatusConditionTrue(r.Status.Conditions, discov1.RunConditionSucceeded)).To(BeTrue())
			Expect(meta.IsStatusConditionFalse(r.Status.Conditions, discov1.RunConditionFailed)).To(BeTrue())
			Expect(meta.IsStatusConditionTrue(r.Status.Conditions, discov1.ConditionReady)).To(BeTrue())
		}
	})
})

var _ = Describe("Run admission with several run workers (Concurrency.Runs)", func() {
	It("never hands more runs than the tenant's limit to the executor when they are reconciled at once", func() {
		const limit, n = 2, 6
		tenant, ns := newTenant()
		update(tenant, func() { tenant.Spec.ConcurrentRuns = ptr.To[int32](limit) })
		p := newProject(tenant, ns)
		c := createCampaign(p, "job", 1000, 20, nil) // Job executor: in envtest a Job never ends
		id := ids.New(ids.Dataset)
		ds := &discov1.Dataset{
			ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectID: ids.FromName(p.Name), DisplayName: "d", Format: "csv", BlobKey: "datasets/unread/" + id,
				SizeBytes: 1, SHA256: strings.Repeat("0", 64)},
		}
		// The runs wait for their dataset; its creation wakes them all at once, and the
		// run workers admit them together.
		var runs []*discov1.Run
		for range n {
			runID := ids.New(ids.Run)
			r := &discov1.Run{
				// Labelled as the controller labels a run (labelRun), so that admitting it
				// writes nothing before its slot is counted.
				ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(runID), Namespace: ns, Labels: map[string]string{
					discov1.LabelProject: c.Spec.ProjectID, discov1.LabelCampaign: ids.FromName(c.Name), discov1.LabelID: runID,
					discov1.LabelRun: runID, discov1.LabelDataset: id}},
				Spec: discov1.RunSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), Mode: discov1.ModeSymbolic, DatasetID: id,
					Parameters: discov1.RunParameters{TargetVariables: []string{"y"}}, ComputeUnitsEstimated: 5},
			}
			Expect(k8sClient.Create(ctx, r)).To(Succeed())
			runs = append(runs, r)
		}
		Eventually(func(g Gomega) {
			for _, r := range runs {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
				cond := meta.FindStatusCondition(r.Status.Conditions, discov1.RunConditionAdmitted)
				g.Expect(cond).NotTo(BeNil(), r.Name)
				g.Expect(cond.Reason).To(Equal(discov1.ReasonDatasetNotFound), r.Name)
			}
		}).Should(Succeed())
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())

		jobs := func() int {
			list := &batchv1.JobList{}
			Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			return len(list.Items)
		}
		// Every run has been admitted since the dataset appeared, and the slots are taken.
		Eventually(func(g Gomega) {
			for _, r := range runs {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
				cond := meta.FindStatusCondition(r.Status.Conditions, discov1.RunConditionAdmitted)
				g.Expect(cond).NotTo(BeNil(), r.Name)
				g.Expect(cond.Reason).To(Equal(discov1.ReasonWaitingForCapacity), r.Name)
			}
			g.Expect(jobs()).To(BeNumerically(">=", limit))
		}).Should(Succeed())
		// A Job is never deleted here, so their number is the most ever handed over.
		Expect(jobs()).To(Equal(limit))
		waiting := 0
		for _, r := range runs {
			cond := meta.FindStatusCondition(r.Status.Conditions, discov1.RunConditionAdmitted)
			if strings.Contains(cond.Message, "already runs") || strings.Contains(cond.Message, "waiting for a slot first") {
				waiting++
			}
		}
		Expect(waiting).To(Equal(n-limit), "runs refused a slot")
	})
})

var _ = Describe("Tenant status (issue 14, item 8)", func() {
	It("shows its runs against its limit, and is not Ready while its LocalQueue does not exist", func() {
		tenant, ns := newTenant()
		c := newCampaign(newProject(tenant, ns), 100, 10, nil) // not routed: its runs stay queued
		newRun(c, 5)
		newRun(c, 5)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
			g.Expect(tenant.Status.RunsQueued).To(Equal(int32(2)))
			g.Expect(tenant.Status.RunsRunning).To(BeZero())
			g.Expect(tenant.Status.ConcurrentRunLimit).To(Equal(int32(ConcurrentRunLimit(discov1.TenantTierTeam))))
		}).Should(Succeed())

		update(tenant, func() { tenant.Spec.LocalQueue = "nowhere" })
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
			ready := meta.FindStatusCondition(tenant.Status.Conditions, discov1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal("KueueNotInstalled")) // envtest has no Kueue CRDs
			g.Expect(ready.Message).To(ContainSubstring("nowhere"))
		}).Should(Succeed())
	})
})
