package runexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
)

// A Dataset whose spec.source is a file on a PersistentVolumeClaim (issue 14, item 7) is
// copied into the tenant's blob store by a fetch Job in the dataset's own namespace: only
// a pod can mount a claim, and a pod of that namespace can mount only that namespace's
// claims, so a dataset never reads another tenant's volume. The pod mounts the claim
// read-only, runs `disco engine fetch-source` as non-root with a read-only root file
// system and no Kubernetes API token, and writes either the file to the dataset's source
// key or, when it copies nothing, a FetchRecord to the error key. The controller then
// hashes what was stored itself (it trusts no size or hash from the pod) and profiles it.

// FetchPhase is where a dataset's fetch from its claim stands.
type FetchPhase string

const (
	// FetchRunning: the fetch Job exists and has not ended.
	FetchRunning FetchPhase = "Running"
	// FetchWaiting: something the fetch needs is missing (the claim, the file); the caller
	// calls again after RetryAfter, when the ended Job is replaced by a new one.
	FetchWaiting FetchPhase = "Waiting"
	// FetchRefused: the file can never be copied as the dataset names it.
	FetchRefused FetchPhase = "Refused"
	// FetchDone: the file is at the dataset's source key.
	FetchDone FetchPhase = "Done"
)

// FetchStatus is the state of a fetch and, unless it is done, why, in words for a person.
type FetchStatus struct {
	Phase   FetchPhase
	Message string
	// RetryAfter is when to call again for FetchWaiting.
	RetryAfter time.Duration
}

// FetchRecord is what the fetch Job stores at the error key when it copies no file.
type FetchRecord struct {
	// Refused is set when the file can never be copied as named (not a regular file,
	// outside the claim, larger than allowed); otherwise it may appear later.
	Refused bool   `json:"refused"`
	Message string `json:"message"`
}

// maxFetchRecord bounds how much of a FetchRecord is read.
const maxFetchRecord = 8 << 10

// ClaimFetch says where a fetch writes, how much it may copy for how long, and how long
// an ended Job without the file stays before the next try (each try starts a pod).
type ClaimFetch struct {
	DataKey, ErrorKey string
	MaxBytes          int64
	Timeout, Retry    time.Duration
}

// FetchJobName is the name of a dataset's fetch Job: a Job's name becomes a pod label, so
// at most 63 characters; a longer one is cut and made unique with a hash.
func FetchJobName(datasetName string) string {
	name := "fetch-" + datasetName
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(datasetName))
	return strings.TrimRight(name[:63-17], ".-") + "-" + hex.EncodeToString(sum[:8])
}

// fetchMount is where the claim is mounted in the fetch pod.
const fetchMount = "/source"

// FetchJobFor builds the fetch Job of a dataset whose source is on a claim.
func (x *JobExecutor) FetchJobFor(ds *discov1.Dataset, f ClaimFetch) *batchv1.Job {
	ref := ds.Spec.Source.PersistentVolumeClaim
	deadline := int64(f.Timeout.Seconds())
	labels := map[string]string{discov1.LabelManagedBy: "disco", discov1.LabelDataset: ds.ID()}
	cpu, mem := resource.MustParse("100m"), resource.MustParse("128Mi")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: FetchJobName(ds.Name), Namespace: ds.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](1),
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: ptr.To[int32](3600),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					SecurityContext:              restrictedPod(),
					Containers: []corev1.Container{{
						Name:  "fetch",
						Image: x.Image,
						Args: []string{"engine", "fetch-source", "--root", fetchMount, "--path", ref.Path,
							"--claim", ref.ClaimName, "--blob-url", x.BlobURL, "--key", f.DataKey, "--error-key", f.ErrorKey,
							"--max-bytes", strconv.FormatInt(f.MaxBytes, 10)},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
						},
						SecurityContext: restrictedContainer(),
						// /tmp is the one writable directory, as in the engine's pod: the
						// binary's packages create their cache directory there at start.
						VolumeMounts: []corev1.VolumeMount{{Name: "source", MountPath: fetchMount, ReadOnly: true}, {Name: "scratch", MountPath: "/tmp"}},
					}},
					Volumes: []corev1.Volume{
						{Name: "source", VolumeSource: corev1.VolumeSource{
							PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ref.ClaimName, ReadOnly: true}}},
						{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("16Mi"))}}},
					},
				},
			},
		},
	}
	x.mountBlobStore(&job.Spec.Template.Spec)
	return job
}

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get

// FetchFromClaim advances the fetch of ds's file from its claim: it waits for the claim,
// makes the fetch Job, and reads how the Job ended. Blob is the store the Job writes to.
// A Job that ended without the file is deleted, so the caller's next try starts afresh.
func (x *JobExecutor) FetchFromClaim(ctx context.Context, b *blob.Bucket, ds *discov1.Dataset, f ClaimFetch) (FetchStatus, error) {
	ref := ds.Spec.Source.PersistentVolumeClaim
	reader := x.Reader
	if reader == nil {
		reader = x.Client
	}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: ds.Namespace, Name: ref.ClaimName}, &corev1.PersistentVolumeClaim{}); apierrors.IsNotFound(err) {
		return FetchStatus{Phase: FetchWaiting, RetryAfter: f.Retry,
			Message: fmt.Sprintf("the PersistentVolumeClaim %s does not exist in namespace %s (yet)", ref.ClaimName, ds.Namespace)}, nil
	} else if err != nil {
		return FetchStatus{}, fmt.Errorf("reading the PersistentVolumeClaim %s: %w", ref.ClaimName, err)
	}
	job := &batchv1.Job{}
	key := client.ObjectKey{Namespace: ds.Namespace, Name: FetchJobName(ds.Name)}
	err := x.Client.Get(ctx, key, job)
	if apierrors.IsNotFound(err) {
		return x.startFetch(ctx, b, ds, f)
	}
	if err != nil {
		return FetchStatus{}, fmt.Errorf("reading the fetch Job %s: %w", key.Name, err)
	}
	if !metav1.IsControlledBy(job, ds) {
		return FetchStatus{Phase: FetchRefused, Message: fmt.Sprintf("a Job named %s exists in namespace %s and is not this dataset's fetch Job; "+
			"rename the dataset or delete that Job", key.Name, ds.Namespace)}, nil
	}
	running := FetchStatus{Phase: FetchRunning, Message: fmt.Sprintf("the Job %s copies %s from the PersistentVolumeClaim %s", key.Name, ref.Path, ref.ClaimName)}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobFailed:
			return x.retryFetch(ctx, b, ds, job, c.LastTransitionTime.Time, f, fmt.Sprintf("the fetch Job %s failed (%s): %s", job.Name, c.Reason, c.Message))
		case batchv1.JobComplete:
			return x.fetchEnded(ctx, b, ds, job, c.LastTransitionTime.Time, f)
		}
	}
	return running, nil
}

func (x *JobExecutor) startFetch(ctx context.Context, b *blob.Bucket, ds *discov1.Dataset, f ClaimFetch) (FetchStatus, error) {
	// A record left by an earlier Job of this dataset would be read as this one's outcome.
	if err := b.Delete(ctx, f.ErrorKey); err != nil {
		return FetchStatus{}, err
	}
	job := x.FetchJobFor(ds, f)
	if err := controllerutil.SetControllerReference(ds, job, x.Client.Scheme()); err != nil {
		return FetchStatus{}, err
	}
	if err := x.Client.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return FetchStatus{}, fmt.Errorf("the fetch Job could not be created: %w", err)
	}
	ref := ds.Spec.Source.PersistentVolumeClaim
	return FetchStatus{Phase: FetchRunning, Message: fmt.Sprintf("the Job %s copies %s from the PersistentVolumeClaim %s", job.Name, ref.Path, ref.ClaimName)}, nil
}

// fetchEnded reads the outcome of a completed fetch Job: the file at the data key, or the
// record at the error key.
func (x *JobExecutor) fetchEnded(ctx context.Context, b *blob.Bucket, ds *discov1.Dataset, job *batchv1.Job, ended time.Time, f ClaimFetch) (FetchStatus, error) {
	rc, err := b.Get(ctx, f.ErrorKey)
	if errors.Is(err, blob.ErrNotFound) {
		switch ok, err := b.Exists(ctx, f.DataKey); {
		case err != nil:
			return FetchStatus{}, err
		case ok:
			return FetchStatus{Phase: FetchDone}, nil
		}
		return x.retryFetch(ctx, b, ds, job, ended, f, fmt.Sprintf("the fetch Job %s ended without storing the file", job.Name))
	}
	if err != nil {
		return FetchStatus{}, err
	}
	body, err := io.ReadAll(io.LimitReader(rc, maxFetchRecord))
	_ = rc.Close() // read-only: nothing to lose
	if err != nil {
		return FetchStatus{}, err
	}
	var rec FetchRecord
	if err := json.Unmarshal(body, &rec); err != nil || rec.Message == "" {
		return x.retryFetch(ctx, b, ds, job, ended, f, fmt.Sprintf("the fetch Job %s ended with an unreadable record", job.Name))
	}
	if rec.Refused {
		return FetchStatus{Phase: FetchRefused, Message: rec.Message}, nil
	}
	return x.retryFetch(ctx, b, ds, job, ended, f, rec.Message)
}

// retryFetch answers for a fetch Job that ended without the file at time ended: it waits
// until f.Retry has passed since, then deletes the Job and its record and starts the next.
func (x *JobExecutor) retryFetch(ctx context.Context, b *blob.Bucket, ds *discov1.Dataset, job *batchv1.Job, ended time.Time, f ClaimFetch, why string) (FetchStatus, error) {
	if wait := time.Until(ended.Add(f.Retry)); wait > 0 {
		return FetchStatus{Phase: FetchWaiting, Message: why, RetryAfter: wait}, nil
	}
	err := x.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &job.UID})
	if client.IgnoreNotFound(err) != nil {
		return FetchStatus{}, fmt.Errorf("deleting the ended fetch Job %s: %w", job.Name, err)
	}
	return x.startFetch(ctx, b, ds, f)
}
