package controllers

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
)

func TestTenantQuotaSpec(t *testing.T) {
	tenant := &discov1.Tenant{Spec: discov1.TenantSpec{Tier: discov1.TenantTierFree}}
	hard := tenantQuotaSpec(tenant).Hard
	if ptr.To(hard[corev1.ResourcePods]).Value() != 10 || quantityOf(hard, corev1.ResourceRequestsCPU) != "10" {
		t.Errorf("free tier quota %v", hard)
	}
	// A run limit above the tier's raises the pods with it.
	tenant.Spec.ConcurrentRuns = ptr.To[int32](30)
	if got := ptr.To(tenantQuotaSpec(tenant).Hard[corev1.ResourcePods]).Value(); got != 30 {
		t.Errorf("pods with concurrentRuns 30: %d", got)
	}
	// The admin's figures win, and the run limit follows the pods.
	tenant.Spec.Quota = &discov1.TenantQuota{Pods: ptr.To[int32](4), Memory: ptr.To(resource.MustParse("3Gi"))}
	if got := TenantRunLimit(tenant); got != 4 {
		t.Errorf("run limit with concurrentRuns 30 and a quota of 4 pods: %d", got)
	}
	hard = tenantQuotaSpec(tenant).Hard
	if ptr.To(hard[corev1.ResourcePods]).Value() != 4 || quantityOf(hard, corev1.ResourceRequestsMemory) != "3Gi" ||
		quantityOf(hard, corev1.ResourceLimitsMemory) != "3Gi" || quantityOf(hard, corev1.ResourceRequestsCPU) != "10" {
		t.Errorf("quota with an override %v", hard)
	}
}

func quantityOf(l corev1.ResourceList, name corev1.ResourceName) string {
	q := l[name]
	return q.String()
}

func TestQuotaFull(t *testing.T) {
	q := &corev1.ResourceQuota{Status: corev1.ResourceQuotaStatus{
		Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4"), corev1.ResourceRequestsCPU: resource.MustParse("1")},
		Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3"), corev1.ResourceRequestsCPU: resource.MustParse("750m")},
	}}
	need := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1"), corev1.ResourceRequestsCPU: resource.MustParse("250m")}
	if got := quotaFull(q, need); got != "" {
		t.Errorf("a pod that fits exactly: %q", got)
	}
	need[corev1.ResourceRequestsCPU] = resource.MustParse("500m")
	if got := quotaFull(q, need); got != "requests.cpu: 750m used of 1" {
		t.Errorf("a pod over the CPU quota: %q", got)
	}
	q.Status.Used[corev1.ResourcePods] = resource.MustParse("4")
	if got := quotaFull(q, need); got != "pods: 4 used of 4, requests.cpu: 750m used of 1" {
		t.Errorf("a full quota: %q", got)
	}
	if got := quotaFull(&corev1.ResourceQuota{}, need); got != "" {
		t.Errorf("a quota not counted yet: %q", got)
	}
}

var _ = Describe("Tenant quota (issue 13, item 6)", func() {
	key := func(ns string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: TenantQuotaName} }
	// touch makes the run controller look at the run again now, rather than at its requeue.
	touch := func(run *discov1.Run) {
		patch := client.MergeFrom(run.DeepCopy())
		run.Annotations = map[string]string{"test.disco.dev/touched": time.Now().Format(time.RFC3339Nano)}
		Expect(k8sClient.Patch(ctx, run, patch)).To(Succeed())
	}
	admitted := func(run *discov1.Run) *metav1.Condition {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
		return meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionAdmitted)
	}
	// waitingFor touches the run until its Admitted condition is WaitingForCapacity with a
	// message that contains every part.
	waitingFor := func(run *discov1.Run, parts ...string) {
		Eventually(func(g Gomega) {
			touch(run)
			cond := admitted(run)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Reason).To(Equal(discov1.ReasonWaitingForCapacity))
			for _, p := range parts {
				g.Expect(cond.Message).To(ContainSubstring(p))
			}
			g.Expect(run.Status.Phase).To(Equal(discov1.RunQueued))
		}).WithTimeout(time.Minute).WithPolling(2 * time.Second).Should(Succeed()) // a touch each poll: slower than a reconcile
	}

	// The engine pod of the executor's default size fits every tier's LimitRange, and each
	// tier's quota admits its concurrent-run limit of them: the quota binds only when an
	// admin makes it tighter.
	It("lets every tier's LimitRange and quota admit the run limit of default engine pods", func() {
		run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "run-a", Namespace: "disco-ten-a"}}
		pod := testJobs.JobFor(run, "", "ten_a").Spec.Template.Spec
		need := podNeeds(&pod)
		for tier := range tierQuotas {
			tenant := &discov1.Tenant{Spec: discov1.TenantSpec{Tier: tier}}
			limits := tenantLimitRangeSpec(tenant).Limits[0]
			for _, ctr := range pod.Containers {
				for _, l := range []corev1.ResourceList{ctr.Resources.Requests, ctr.Resources.Limits} {
					for name, q := range l {
						Expect(q.Cmp(limits.Max[name])).To(BeNumerically("<=", 0), "%s tier: the engine's %s %s is above the LimitRange's %s", tier, name, q.String(), quantityOf(limits.Max, name))
					}
				}
			}
			hard := tenantQuotaSpec(tenant).Hard
			n := int64(ConcurrentRunLimit(tier))
			Expect(quantityOf(hard, corev1.ResourcePods)).To(Equal(fmt.Sprint(n)))
			for name, q := range need {
				if limit, ok := hard[name]; ok {
					total := q.DeepCopy()
					total.Mul(n)
					Expect(total.Cmp(limit)).To(BeNumerically("<=", 0), "%s tier: %d engines need %s %s, above the quota's %s", tier, n, name, total.String(), limit.String())
				}
			}
		}
	})

	It("gives the namespace its tier's ResourceQuota and LimitRange, follows the tier and spec.quota, and restores them", func() {
		tenant, ns := newTenant() // team
		quota, limits := &corev1.ResourceQuota{}, &corev1.LimitRange{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key(ns), quota)).To(Succeed())
			g.Expect(k8sClient.Get(ctx, key(ns), limits)).To(Succeed())
		}).Should(Succeed())
		Expect(quantityOf(quota.Spec.Hard, corev1.ResourcePods)).To(Equal("50"))
		Expect(quantityOf(quota.Spec.Hard, corev1.ResourceRequestsCPU)).To(Equal("50"))
		Expect(quantityOf(quota.Spec.Hard, corev1.ResourceRequestsMemory)).To(Equal("100Gi"))
		Expect(quantityOf(quota.Spec.Hard, corev1.ResourceLimitsMemory)).To(Equal("100Gi"))
		Expect(metav1.IsControlledBy(quota, tenant)).To(BeTrue())
		Expect(metav1.IsControlledBy(limits, tenant)).To(BeTrue())
		Expect(limits.Spec.Limits).To(HaveLen(1))
		Expect(limits.Spec.Limits[0].Type).To(Equal(corev1.LimitTypeContainer))
		Expect(quantityOf(limits.Spec.Limits[0].Max, corev1.ResourceCPU)).To(Equal("4"))
		Expect(quantityOf(limits.Spec.Limits[0].Max, corev1.ResourceMemory)).To(Equal("8Gi"))
		Expect(quantityOf(limits.Spec.Limits[0].DefaultRequest, corev1.ResourceCPU)).To(Equal("250m"))

		By("a change of tier")
		update(tenant, func() { tenant.Spec.Tier = discov1.TenantTierFree })
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key(ns), quota)).To(Succeed())
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourcePods)).To(Equal("10"))
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourceRequestsMemory)).To(Equal("20Gi"))
			g.Expect(k8sClient.Get(ctx, key(ns), limits)).To(Succeed())
			g.Expect(quantityOf(limits.Spec.Limits[0].Max, corev1.ResourceCPU)).To(Equal("2"))
		}).Should(Succeed())

		By("an admin's spec.quota")
		update(tenant, func() {
			tenant.Spec.Quota = &discov1.TenantQuota{Pods: ptr.To[int32](4), CPU: ptr.To(resource.MustParse("3"))}
		})
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key(ns), quota)).To(Succeed())
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourcePods)).To(Equal("4"))
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourceRequestsCPU)).To(Equal("3"))
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourceRequestsMemory)).To(Equal("20Gi"))
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
			g.Expect(tenant.Status.ConcurrentRunLimit).To(BeEquivalentTo(4)) // the run limit follows the pods
		}).Should(Succeed())

		By("a user deleting the quota, and editing the LimitRange")
		uid := quota.UID
		Expect(k8sClient.Delete(ctx, quota)).To(Succeed())
		Expect(k8sClient.Get(ctx, key(ns), limits)).To(Succeed())
		limits.Spec.Limits[0].Max[corev1.ResourceCPU] = resource.MustParse("64")
		limits.Spec.Limits[0].Default[corev1.ResourceCPU] = resource.MustParse("64")
		Expect(k8sClient.Update(ctx, limits)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, key(ns), quota)).To(Succeed())
			g.Expect(quota.UID).NotTo(Equal(uid))
			g.Expect(quantityOf(quota.Spec.Hard, corev1.ResourcePods)).To(Equal("4"))
			g.Expect(k8sClient.Get(ctx, key(ns), limits)).To(Succeed())
			g.Expect(quantityOf(limits.Spec.Limits[0].Max, corev1.ResourceCPU)).To(Equal("2"))
		}).Should(Succeed())
	})

	It("says a run whose engine pod the quota has no room for waits for capacity, naming the quota", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := createCampaign(p, "job", 1000, 10, nil)
		ds := uploadCSV(p, linearCSV(50))
		quota := &corev1.ResourceQuota{}
		Eventually(func() error { return k8sClient.Get(ctx, key(ns), quota) }).Should(Succeed())
		// envtest has no quota controller: count the quota full by hand, as it would.
		quota.Status.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}
		quota.Status.Used = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}
		Expect(k8sClient.Status().Update(ctx, quota)).To(Succeed())

		run := submit(c, ds, discov1.ModeSymbolic, "y")
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &batchv1.Job{}) }).Should(Succeed())
		waitingFor(run, "ResourceQuota "+TenantQuotaName, "namespace "+ns, "pods: 2 used of 2")

		By("room in the quota")
		Expect(k8sClient.Get(ctx, key(ns), quota)).To(Succeed())
		quota.Status.Used = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
		Expect(k8sClient.Status().Update(ctx, quota)).To(Succeed())
		waitingFor(run, "waits for its engine pod")
		Expect(admitted(run).Message).NotTo(ContainSubstring("ResourceQuota"))
	})

	It("holds a run whose Job Kueue has not admitted, naming the LocalQueue, and runs one Kueue admits", func() {
		// One run in each of two tenants on Kueue: the gated test executor does not tell the
		// run queue that a Job is active, so two runs of one tenant would queue behind
		// each other rather than both wait for Kueue.
		kueueRun := func() (*discov1.Run, string) {
			tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))},
				Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam, LocalQueue: "research"}}
			Expect(k8sClient.Create(ctx, tenant)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
				g.Expect(tenant.Status.Namespace).NotTo(BeEmpty())
			}).Should(Succeed())
			ns := tenant.Status.Namespace
			p := newProject(tenant, ns)
			c := createCampaign(p, "job", 1000, 10, nil)
			run := submit(c, uploadCSV(p, linearCSV(120)), discov1.ModeSymbolic, "y")
			job := &batchv1.Job{}
			Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(run), job) }).Should(Succeed())
			Expect(job.Labels).To(HaveKeyWithValue(runexec.LabelKueueQueue, "research"))
			Expect(ptr.Deref(job.Spec.Suspend, false)).To(BeTrue())
			// envtest has no Kueue: the tenant says so, and the run passes it on.
			waitingFor(run, "Kueue", "LocalQueue research", "namespace "+ns, "not installed")
			return run, ns
		}
		admittedRun, _ := kueueRun()
		heldRun, ns := kueueRun()

		By("Kueue admitting one Job: its job reconciler sets spec.suspend to false")
		job := &batchv1.Job{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(admittedRun), job)).To(Succeed())
		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Suspend = ptr.To(false)
		Expect(k8sClient.Patch(ctx, job, patch)).To(Succeed())
		waitingFor(admittedRun, "waits for its engine pod")
		Expect(admitted(admittedRun).Message).NotTo(ContainSubstring("Kueue"))

		// The Job's pod runs (envtest has no kubelet: play it as the Job specs do).
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(admittedRun), admittedRun)).To(Succeed())
		Expect(testExecution.Execute(ctx, admittedRun)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(admittedRun), admittedRun)).To(Succeed())
			g.Expect(admittedRun.Status.Phase).To(Equal(discov1.RunCompleted), admittedRun.Status.Message)
		}, 30*time.Second).Should(Succeed())

		By("the Job Kueue never admits")
		waitingFor(heldRun, "LocalQueue research")
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: heldRun.Name}, job)).To(Succeed())
		Expect(ptr.Deref(job.Spec.Suspend, false)).To(BeTrue())
	})
})
