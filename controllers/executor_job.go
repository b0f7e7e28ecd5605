package controllers

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// LabelKueueQueue is the label Kueue reads to admit a suspended Job into a LocalQueue.
const LabelKueueQueue = "kueue.x-k8s.io/queue-name"

// FailureReporter is implemented by executors that can tell why an execution died outside
// the engine (a Job that exhausted its retries or its deadline).
type FailureReporter interface {
	Failure(ctx context.Context, run *discov1.Run) (message string, failed bool)
}

// JobExecutor runs each Run as a batch/v1 Job executing `disco engine run`. The Job is owned
// by the Run, bounded by activeDeadlineSeconds, retried once, cleaned up by its TTL, and
// created suspended with the Kueue queue label when the tenant names a LocalQueue, so cluster
// admins manage quotas with Kueue.
type JobExecutor struct {
	Client             client.Client
	Image              string
	ServiceAccountName string
	BlobURL            string
	TimeLimit          time.Duration
	CPU, Memory        resource.Quantity
}

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

func (x *JobExecutor) timeLimit() time.Duration {
	if x.TimeLimit > 0 {
		return x.TimeLimit
	}
	return DefaultRunTimeLimit
}

// JobFor builds the Job of a run.
func (x *JobExecutor) JobFor(run *discov1.Run, localQueue string) *batchv1.Job {
	deadline := int64((x.timeLimit() + deadlineGrace).Seconds())
	cpu, mem := x.CPU, x.Memory
	if cpu.IsZero() {
		cpu = resource.MustParse("1")
	}
	if mem.IsZero() {
		mem = resource.MustParse("1Gi")
	}
	labels := map[string]string{
		discov1.LabelRun:      ids.FromName(run.Name),
		discov1.LabelProject:  run.Spec.ProjectID,
		discov1.LabelCampaign: run.Spec.CampaignID,
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: run.Name, Namespace: run.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](1),
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: ptr.To[int32](3600),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: x.ServiceAccountName,
					SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers: []corev1.Container{{
						Name:  "engine",
						Image: x.Image,
						Args: []string{"engine", "run", "--namespace", run.Namespace, "--run", run.Name,
							"--blob-url", x.BlobURL, "--time-limit", x.timeLimit().String()},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
						},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/tmp"}},
					}},
					Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
	if localQueue != "" {
		job.Labels[LabelKueueQueue] = localQueue
		job.Spec.Suspend = ptr.To(true)
	}
	return job
}

func (x *JobExecutor) Submit(run *discov1.Run) bool {
	ctx := context.Background()
	job := x.JobFor(run, x.localQueue(ctx, run.Namespace))
	if err := controllerutil.SetControllerReference(run, job, x.Client.Scheme()); err != nil {
		return false
	}
	err := x.Client.Create(ctx, job)
	return err == nil
}

func (x *JobExecutor) localQueue(ctx context.Context, namespace string) string {
	if t := tenantOfNamespace(ctx, x.Client, namespace); t != nil {
		return t.Spec.LocalQueue
	}
	return ""
}

func (x *JobExecutor) Cancel(key types.NamespacedName) bool {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	err := x.Client.Delete(context.Background(), job, client.PropagationPolicy(metav1.DeletePropagationBackground))
	return err == nil
}

func (x *JobExecutor) Active(key types.NamespacedName) bool {
	job := &batchv1.Job{}
	if err := x.Client.Get(context.Background(), key, job); err != nil {
		return !apierrors.IsNotFound(err) // unknown: assume active rather than start twice
	}
	return !jobFinished(job)
}

func (x *JobExecutor) Failure(ctx context.Context, run *discov1.Run) (string, bool) {
	job := &batchv1.Job{}
	if err := x.Client.Get(ctx, client.ObjectKeyFromObject(run), job); err != nil {
		return "", false
	}
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return fmt.Sprintf("the engine Job failed (%s): %s", c.Reason, c.Message), true
		}
	}
	return "", false
}

func jobFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
