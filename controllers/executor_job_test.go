package controllers

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
)

// envtest has no Job controller: like JobSet's tests, these specs write Job status by hand
// and play the Job's pod by running the same Execution that `disco engine run` runs.
var _ = Describe("Run execution (Job executor)", func() {
	jobOf := func(run *discov1.Run) *batchv1.Job {
		job := &batchv1.Job{}
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(run), job) }).Should(Succeed())
		return job
	}

	It("creates an owned, bounded Job and completes the run when the pod finishes", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := createCampaign(p, "job", 1000, 10, nil)
		ds := uploadCSV(p, linearCSV(120))
		run := submit(c, ds, discov1.ModeSymbolic, "y")

		job := jobOf(run)
		Expect(job.OwnerReferences).To(HaveLen(1))
		Expect(job.OwnerReferences[0].Name).To(Equal(run.Name))
		Expect(*job.Spec.ActiveDeadlineSeconds).To(BeNumerically("==", (time.Minute + runexec.DeadlineGrace).Seconds()))
		Expect(*job.Spec.BackoffLimit).To(BeEquivalentTo(1))
		Expect(job.Spec.TTLSecondsAfterFinished).NotTo(BeNil())
		Expect(ptr.Deref(job.Spec.Suspend, false)).To(BeFalse())
		Expect(job.Labels).NotTo(HaveKey(runexec.LabelKueueQueue))
		ctr := job.Spec.Template.Spec.Containers[0]
		Expect(ctr.Args).To(ContainElements("engine", "run", run.Name))
		Expect(ctr.Resources.Requests).To(HaveKey(corev1.ResourceCPU))

		// The pod runs.
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
		Expect(testExecution.Execute(ctx, run)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunCompleted), run.Status.Message)
			g.Expect(run.Status.ClaimsCount).To(BeNumerically(">=", 1))
		}, 30*time.Second).Should(Succeed())
	})

	It("fails the run with the Job's reason when the Job fails", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		c := createCampaign(p, "job", 1000, 10, nil)
		ds := uploadCSV(p, linearCSV(50))
		run := submit(c, ds, discov1.ModeSymbolic, "y")
		job := jobOf(run)

		now := metav1.Now()
		job.Status.StartTime = &now
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline", LastTransitionTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline", LastTransitionTime: now},
		}
		Expect(k8sClient.Status().Update(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunFailed))
			g.Expect(run.Status.Message).To(ContainSubstring("DeadlineExceeded"))
		}).Should(Succeed())
	})

	It("creates the Job suspended in the tenant's Kueue LocalQueue", func() {
		t := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}, Spec: discov1.TenantSpec{LocalQueue: "research"}}
		Expect(k8sClient.Create(ctx, t)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
			g.Expect(t.Status.Namespace).NotTo(BeEmpty())
		}).Should(Succeed())
		p := newProject(t, t.Status.Namespace)
		c := createCampaign(p, "job", 1000, 10, nil)
		ds := uploadCSV(p, linearCSV(50))
		run := submit(c, ds, discov1.ModeSymbolic, "y")
		job := jobOf(run)
		Expect(job.Labels).To(HaveKeyWithValue(runexec.LabelKueueQueue, "research"))
		Expect(job.Spec.Suspend).NotTo(BeNil())
		Expect(*job.Spec.Suspend).To(BeTrue())
	})
})
