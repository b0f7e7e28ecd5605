package controllers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/runexec"
)

// Datasets whose file is on a PersistentVolumeClaim (issue 14, item 7). envtest runs no
// pods, so each spec plays the fetch Job's pod: it stores what `disco engine fetch-source`
// would, and marks the Job ended as the Job controller would.
var _ = Describe("Dataset sources on a PersistentVolumeClaim", func() {
	fromClaim := func(t *discov1.Tenant, ns, name, claim, path string) *discov1.Dataset {
		p := newProject(t, ns)
		ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: discov1.DatasetSpec{
			ProjectRef: &discov1.ObjectRef{Name: p.Name}, Format: "csv",
			Source: &discov1.DatasetSource{PersistentVolumeClaim: &discov1.PVCFileRef{ClaimName: claim, Path: path}}}}
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		return ds
	}
	claim := func(ns, name string) {
		Expect(k8sClient.Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")}}}})).To(Succeed())
	}
	readyCondition := func(ds *discov1.Dataset) func(g Gomega) *metav1.Condition {
		return func(g Gomega) *metav1.Condition {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			return c
		}
	}
	fetchJob := func(ds *discov1.Dataset) *batchv1.Job {
		job := &batchv1.Job{}
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ds.Namespace, Name: runexec.FetchJobName(ds.Name)}, job)
		}).Should(Succeed())
		return job
	}
	// complete marks the Job succeeded, as the Job controller does once its pod exits 0.
	complete := func(job *batchv1.Job) {
		now := metav1.Now()
		job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
		}
		Expect(k8sClient.Status().Update(ctx, job)).To(Succeed())
	}

	It("copies the file with a Job that mounts the claim read-only, then hashes and profiles it", func() {
		t, ns := newTenant()
		claim(ns, "lab-data")
		ds := fromClaim(t, ns, "sachs-from-claim", "lab-data", "/runs/2024/sachs.csv")
		job := fetchJob(ds)
		Eventually(readyCondition(ds)).Should(HaveField("Reason", discov1.ReasonFetching))
		Expect(metav1.IsControlledBy(job, ds)).To(BeTrue(), "the Job is deleted with its dataset")
		pod := job.Spec.Template.Spec
		Expect(pod.Volumes).To(ContainElement(HaveField("VolumeSource.PersistentVolumeClaim",
			Equal(&corev1.PersistentVolumeClaimVolumeSource{ClaimName: "lab-data", ReadOnly: true}))))
		Expect(pod.Containers[0].VolumeMounts).To(ContainElement(HaveField("ReadOnly", true)))
		Expect(pod.Containers[0].VolumeMounts).To(ContainElement(HaveField("MountPath", "/tmp")),
			"the root file system is read-only; the binary needs a writable /tmp at start")
		Expect(*pod.AutomountServiceAccountToken).To(BeFalse(), "the fetch pod needs no Kubernetes API")
		Expect(*pod.SecurityContext.RunAsNonRoot).To(BeTrue())
		Expect(*pod.Containers[0].SecurityContext.ReadOnlyRootFilesystem).To(BeTrue())
		Expect(pod.Containers[0].Args).To(ContainElements("fetch-source", "/runs/2024/sachs.csv"))

		body := smallCSV(40)
		tenantID := tenantIDOf(ns)
		Expect(testBlob.Put(ctx, blob.DatasetSourceKey(tenantID, ns, ds.Name, string(ds.UID)), body)).To(Succeed())
		complete(job)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady), "status %+v", ds.Status)
		}).Should(Succeed())
		sum := sha256.Sum256(body)
		Expect(ds.Status.Rows).To(BeEquivalentTo(40))
		Expect(ds.Status.Source.SHA256).To(Equal(hex.EncodeToString(sum[:])), "the controller's own hash of what was stored")
		Expect(ds.Status.Source.SizeBytes).To(BeEquivalentTo(len(body)))
	})

	It("waits for a claim that does not exist yet, then fetches from it", func() {
		t, ns := newTenant()
		ds := fromClaim(t, ns, "early", "later", "table.csv")
		Eventually(readyCondition(ds)).Should(And(HaveField("Reason", discov1.ReasonSourceUnavailable),
			HaveField("Message", ContainSubstring("the PersistentVolumeClaim later does not exist"))))
		Consistently(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: runexec.FetchJobName(ds.Name)}, &batchv1.Job{})
		}, "1s").ShouldNot(Succeed(), "no pod is started for a claim that is not there")
		Expect(ds.Status.Phase).To(Equal(discov1.DatasetProfiling))
	})

	It("fails the dataset with the reason the fetch Job gives for a file it refuses", func() {
		t, ns := newTenant()
		claim(ns, "scratch")
		ds := fromClaim(t, ns, "a-directory", "scratch", "results")
		job := fetchJob(ds)
		rec, err := json.Marshal(runexec.FetchRecord{Refused: true, Message: "results on the PersistentVolumeClaim scratch is not a regular file"})
		Expect(err).NotTo(HaveOccurred())
		Expect(testBlob.Put(ctx, blob.DatasetSourceErrorKey(tenantIDOf(ns), ns, ds.Name, string(ds.UID)), rec)).To(Succeed())
		complete(job)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetFailed))
		}).Should(Succeed())
		c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
		Expect(c.Reason).To(Equal(discov1.ReasonSourceRefused))
		Expect(c.Message).To(ContainSubstring("is not a regular file"))
	})

	It("waits, keeping the ended Job, when the file is not on the claim yet", func() {
		t, ns := newTenant()
		claim(ns, "incoming")
		ds := fromClaim(t, ns, "not-yet", "incoming", "day1.csv")
		job := fetchJob(ds)
		rec, err := json.Marshal(runexec.FetchRecord{Message: "the file day1.csv does not exist on the PersistentVolumeClaim incoming (yet)"})
		Expect(err).NotTo(HaveOccurred())
		Expect(testBlob.Put(ctx, blob.DatasetSourceErrorKey(tenantIDOf(ns), ns, ds.Name, string(ds.UID)), rec)).To(Succeed())
		complete(job)
		Eventually(readyCondition(ds)).Should(And(HaveField("Reason", discov1.ReasonSourceUnavailable),
			HaveField("Message", ContainSubstring("does not exist on the PersistentVolumeClaim incoming"))))
		// The next try waits claimRetry after the Job's end: the same Job is still there.
		Consistently(func(g Gomega) {
			again := &batchv1.Job{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(job), again)).To(Succeed())
			g.Expect(again.UID).To(Equal(job.UID))
		}, "2s").Should(Succeed())
		Expect(ds.Status.Phase).To(Equal(discov1.DatasetProfiling))
	})
})
