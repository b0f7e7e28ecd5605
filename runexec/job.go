package runexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/tenancy"
)

// LabelKueueQueue is the label Kueue reads to admit a suspended Job into a LocalQueue.
const LabelKueueQueue = "kueue.x-k8s.io/queue-name"

// JobExecutor runs each Run as a batch/v1 Job executing `disco engine run`. The Job is owned
// by the Run, bounded by activeDeadlineSeconds, retried once, cleaned up by its TTL, and
// created suspended with the Kueue queue label when the tenant names a LocalQueue, so cluster
// admins manage quotas with Kueue. Each Job runs as its run's own engine identity
// (EngineIdentity), which may write that run's status and nothing else.
type JobExecutor struct {
	Client client.Client
	// Reader reads what the manager may only get, never list or watch (a dataset's
	// PersistentVolumeClaim): the manager's uncached API reader. nil means Client, whose
	// cache would start a cluster-wide watch that RBAC refuses.
	Reader  client.Reader
	Image   string
	BlobURL string
	// BlobVolume, when set and BlobURL is a file:// URL, is mounted into every engine pod at
	// the URL's directory, so that the engine reads and writes the directory the manager and
	// the facade use: a hostPath on a single node, or a shared file system (NFS, a CSI
	// inline volume). A file:// store without it exists only inside the engine's container.
	BlobVolume  *corev1.VolumeSource
	TimeLimit   time.Duration
	CPU, Memory resource.Quantity
}

// EngineIdentityPrefix begins the names of every run's engine ServiceAccount, Role and
// RoleBinding. The ValidatingAdmissionPolicy disco-engine-run-status (config/rbac) holds
// requests of service accounts named so to what an engine may write.
const EngineIdentityPrefix = "disco-engine-"

// EngineIdentity names the ServiceAccount, Role and RoleBinding of a run's engine. A name
// longer than a ServiceAccount allows (253) is cut and made unique with a hash.
func EngineIdentity(runName string) string {
	name := EngineIdentityPrefix + runName
	if len(name) <= 253 {
		return name
	}
	sum := sha256.Sum256([]byte(runName))
	return strings.TrimRight(name[:253-17], ".-") + "-" + hex.EncodeToString(sum[:8])
}

// The manager grants each run's engine get on its Run and Dataset and patch on its Run's
// status; RBAC lets it create such a Role only because it holds those verbs itself (the
// run and dataset reconcilers' markers), so it needs no escalate or bind.
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles,verbs=create;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs;datasets,verbs=get
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs/status,verbs=get;patch

// EnsureIdentity creates (or brings back to its rules) the run's engine ServiceAccount,
// Role and RoleBinding, owned by the Run so that they are deleted with it (issue 17 item 2).
// The Role names only the run and its dataset: the engine may read both and patch the
// run's status, and nothing of any other run, dataset or namespace.
func (x *JobExecutor) EnsureIdentity(ctx context.Context, run *discov1.Run) error {
	name := EngineIdentity(run.Name)
	group := discov1.GroupVersion.Group
	owner := metav1ac.OwnerReference().WithAPIVersion(discov1.GroupVersion.String()).WithKind("Run").
		WithName(run.Name).WithUID(run.UID).WithController(true).WithBlockOwnerDeletion(true)
	labels := map[string]string{discov1.LabelManagedBy: "disco", discov1.LabelRun: run.ID()}
	rules := []*rbacv1ac.PolicyRuleApplyConfiguration{
		rbacv1ac.PolicyRule().WithAPIGroups(group).WithResources("runs").WithResourceNames(run.Name).WithVerbs("get"),
		rbacv1ac.PolicyRule().WithAPIGroups(group).WithResources("runs/status").WithResourceNames(run.Name).WithVerbs("get", "patch"),
	}
	if run.DatasetID() != "" {
		rules = append(rules, rbacv1ac.PolicyRule().WithAPIGroups(group).WithResources("datasets").
			WithResourceNames(run.DatasetName()).WithVerbs("get"))
	}
	objects := []runtime.ApplyConfiguration{
		corev1ac.ServiceAccount(name, run.Namespace).WithLabels(labels).WithOwnerReferences(owner),
		rbacv1ac.Role(name, run.Namespace).WithLabels(labels).WithOwnerReferences(owner).WithRules(rules...),
		rbacv1ac.RoleBinding(name, run.Namespace).WithLabels(labels).WithOwnerReferences(owner).
			WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("Role").WithName(name)).
			WithSubjects(rbacv1ac.Subject().WithKind(rbacv1.ServiceAccountKind).WithName(name).WithNamespace(run.Namespace)),
	}
	for _, obj := range objects {
		if err := x.Client.Apply(ctx, obj, client.FieldOwner("disco-manager"), client.ForceOwnership); err != nil {
			return fmt.Errorf("engine identity of run %s/%s: %w", run.Namespace, run.Name, err)
		}
	}
	return nil
}

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

func (x *JobExecutor) timeLimit() time.Duration {
	if x.TimeLimit > 0 {
		return x.TimeLimit
	}
	return DefaultRunTimeLimit
}

// JobFor builds the Job of a run of the given tenant.
func (x *JobExecutor) JobFor(run *discov1.Run, localQueue, tenantID string) *batchv1.Job {
	deadline := int64((x.timeLimit() + DeadlineGrace).Seconds())
	cpu, mem := x.CPU, x.Memory
	if cpu.IsZero() {
		cpu = resource.MustParse("1")
	}
	if mem.IsZero() {
		mem = resource.MustParse("1Gi")
	}
	labels := map[string]string{
		discov1.LabelRun:      run.ID(),
		discov1.LabelProject:  run.ProjectID(),
		discov1.LabelCampaign: run.CampaignID(),
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
					ServiceAccountName: EngineIdentity(run.Name),
					SecurityContext:    restrictedPod(),
					Containers: []corev1.Container{{
						Name:  "engine",
						Image: x.Image,
						Args: []string{"engine", "run", "--namespace", run.Namespace, "--run", run.Name, "--tenant", tenantID,
							"--blob-url", x.BlobURL, "--time-limit", x.timeLimit().String()},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
						},
						Env:             []corev1.EnvVar{softMemoryLimit(mem)},
						SecurityContext: restrictedContainer(),
						VolumeMounts:    []corev1.VolumeMount{{Name: "scratch", MountPath: "/tmp"}},
					}},
					Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
	x.mountBlobStore(&job.Spec.Template.Spec)
	if localQueue != "" {
		job.Labels[LabelKueueQueue] = localQueue
		job.Spec.Suspend = ptr.To(true)
	}
	return job
}

// softMemoryLimit is the engine's GOMEMLIMIT: 90 % of the container's memory limit, so
// that the Go runtime collects before the heap doubles past the limit and a run whose live
// data fit is not killed for garbage not yet collected (runtime/debug.SetMemoryLimit; the
// manager's Deployment does the same in config/manager).
func softMemoryLimit(limit resource.Quantity) corev1.EnvVar {
	return corev1.EnvVar{Name: "GOMEMLIMIT", Value: strconv.FormatInt(limit.Value()/10*9, 10)}
}

// mountBlobStore mounts BlobVolume into the pod's first container at the directory of a
// file:// BlobURL, so that the pod reads and writes the store the manager and the facade
// use; other stores need no volume.
func (x *JobExecutor) mountBlobStore(pod *corev1.PodSpec) {
	if dir := fileBlobDir(x.BlobURL); x.BlobVolume != nil && dir != "" {
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: "blobs", VolumeSource: *x.BlobVolume.DeepCopy()})
		pod.Containers[0].VolumeMounts = append(pod.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "blobs", MountPath: dir})
	}
}

// restrictedPod and restrictedContainer are the security contexts of every pod disco
// starts: the Pod Security Standards' "restricted" profile (non-root, RuntimeDefault
// seccomp, no privilege escalation, every capability dropped) and a read-only root file
// system.
func restrictedPod() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
}

func restrictedContainer() *corev1.SecurityContext {
	return &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
}

// fileBlobDir is the directory of a file:// blob URL (RFC 8089), "" for any other URL.
func fileBlobDir(blobURL string) string {
	u, err := url.Parse(blobURL)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return path.Clean(u.Path)
}

// Submit creates the run's engine identity and its Job. A Job that exists already was
// submitted before: Submit then starts nothing and reports no error. The error of a Job
// that could not be made is the API server's, wrapped (a ResourceQuota's refusal stays
// apierrors.IsForbidden), for the run's Admitted condition.
func (x *JobExecutor) Submit(ctx context.Context, run *discov1.Run) (bool, error) {
	if job, err := x.namedJob(ctx, client.ObjectKeyFromObject(run)); err != nil {
		return false, err
	} else if job != nil {
		switch {
		case metav1.IsControlledBy(job, run):
			return false, nil // submitted before
		case jobOfRunNamed(job, run.Name):
			return false, fmt.Errorf("the Job of an earlier run named %s still exists in namespace %s; the run starts once it is deleted", run.Name, run.Namespace)
		}
		return false, &JobNameTakenError{Job: job}
	}
	if err := x.EnsureIdentity(ctx, run); err != nil {
		return false, err
	}
	// A namespace of no tenant gives the engine no tenant: it then fails the run with
	// that reason, which the run's status shows.
	tenantID, _ := tenancy.OfNamespace(ctx, x.Client, run.Namespace)
	job := x.JobFor(run, x.localQueue(ctx, run.Namespace), tenantID)
	if err := controllerutil.SetControllerReference(run, job, x.Client.Scheme()); err != nil {
		return false, err
	}
	if err := x.Client.Create(ctx, job); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return false, fmt.Errorf("the run's Job could not be created: %w", err)
	}
	return true, nil
}

func (x *JobExecutor) localQueue(ctx context.Context, namespace string) string {
	if t := tenancy.TenantOf(ctx, x.Client, namespace); t != nil {
		return t.Spec.LocalQueue
	}
	return ""
}

// Cancel deletes the run's Job and with it its pod; a Job already gone is not an error.
// Only a Job a Run of that name controls is deleted, and only that very Job (a UID
// precondition): a dataset's fetch Job or a user's own Job of the same name is not the
// run's to delete.
func (x *JobExecutor) Cancel(ctx context.Context, key types.NamespacedName) error {
	job, err := x.namedJob(ctx, key)
	if err != nil || job == nil || !jobOfRunNamed(job, key.Name) {
		return err
	}
	return client.IgnoreNotFound(x.Client.Delete(ctx, job, client.Preconditions{UID: &job.UID},
		client.PropagationPolicy(metav1.DeletePropagationBackground)))
}

// Active reports whether the run's Job exists and has not ended. A Job that cannot be read
// counts as active: the run is not started twice. A Job of that name that no Run controls
// is not the run's (Failure reports it).
func (x *JobExecutor) Active(ctx context.Context, key types.NamespacedName) bool {
	job, err := x.namedJob(ctx, key)
	if err != nil {
		return true
	}
	return job != nil && jobOfRunNamed(job, key.Name) && !JobFinished(job)
}

// namedJob reads the Job of the given name, nil when there is none.
func (x *JobExecutor) namedJob(ctx context.Context, key types.NamespacedName) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	if err := x.Client.Get(ctx, key, job); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("reading the run's Job: %w", err)
	}
	return job, nil
}

// jobOfRunNamed reports whether a Run of the given name controls the Job: this run, or an
// earlier run of the same name whose Job the garbage collector has not removed yet.
func jobOfRunNamed(job *batchv1.Job, name string) bool {
	ref := metav1.GetControllerOf(job)
	return ref != nil && ref.Kind == "Run" && ref.Name == name && strings.HasPrefix(ref.APIVersion, discov1.GroupVersion.Group+"/")
}

// JobNameTakenError is the answer for a run whose name is taken by a Job that no Run
// controls, such as the fetch Job of a dataset named like the run without "fetch-": a
// run's Job takes the run's name, so such a run can never start.
type JobNameTakenError struct{ Job *batchv1.Job }

func (e *JobNameTakenError) Error() string {
	owner := "no owner"
	if ref := metav1.GetControllerOf(e.Job); ref != nil {
		owner = fmt.Sprintf("%s %s", ref.Kind, ref.Name)
	}
	return fmt.Sprintf("a Job named %s already exists in namespace %s and is not this run's (it belongs to %s); "+
		"a run's Job takes the run's name: create the run under another name", e.Job.Name, e.Job.Namespace, owner)
}

func (x *JobExecutor) Failure(ctx context.Context, run *discov1.Run) (string, bool) {
	if c := meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionEngineFailed); c != nil && c.Status == metav1.ConditionTrue {
		return truncate(c.Message, 4096), true
	}
	job, err := x.namedJob(ctx, client.ObjectKeyFromObject(run))
	if err != nil || job == nil {
		return "", false
	}
	if !jobOfRunNamed(job, run.Name) {
		return (&JobNameTakenError{Job: job}).Error(), true
	}
	if !metav1.IsControlledBy(job, run) {
		return "", false // an earlier run's Job, not yet collected
	}
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return fmt.Sprintf("the engine Job failed (%s): %s", c.Reason, c.Message), true
		}
	}
	return "", false
}

// JobFinished reports whether a Job reached Complete or Failed.
func JobFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
