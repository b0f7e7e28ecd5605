package controllers

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/tenancy"
	"github.com/discolab/disco/runexec"
)

// Cluster admins' quotas (issue 13, item 6). Each tenant namespace holds a ResourceQuota and
// a LimitRange, both named TenantQuotaName, made from the tenant's tier (tierQuotas) and the
// admin's spec.quota. The tenant reconciler owns them: an edit or a deletion of either is
// undone at once, and a change of tier or spec.quota updates them. The quota is the
// cluster's bound on the namespace; the tenant's concurrent-run limit (ConcurrentRunLimit)
// is disco's, and by default the quota admits at least that many engine pods, so it binds
// only when an admin makes it tighter.

// TenantQuotaName names the ResourceQuota and the LimitRange of every tenant namespace.
const TenantQuotaName = "disco-tenant"

// tierQuota is one row of the tier table.
type tierQuota struct {
	// CPU and Memory bound what the namespace's pods request together (and Memory their
	// memory limits too): one engine at the executor's default size (1 CPU, 1 GiB) per
	// concurrent run of the tier, with memory doubled for pods that are still exiting.
	CPU, Memory string
	// MaxCPU and MaxMemory bound one container; the engine's --engine-cpu/--engine-memory
	// must fit under them. A container that sets no CPU limit gets MaxCPU as its limit
	// (the API server's LimitRange defaulting does the same).
	MaxCPU, MaxMemory string
	// DefaultCPU and DefaultMemory are the requests, and DefaultMemoryLimit the memory
	// limit, of a container that names none: a quota on requests refuses such pods
	// otherwise.
	DefaultCPU, DefaultMemory, DefaultMemoryLimit string
}

// tierQuotas maps each tier to its quota. Pods is not in the table: it is the tenant's
// concurrent-run limit, or its tier's if that is larger (tenantQuotaSpec).
var tierQuotas = map[discov1.TenantTier]tierQuota{
	discov1.TenantTierFree: {CPU: "10", Memory: "20Gi", MaxCPU: "2", MaxMemory: "4Gi",
		DefaultCPU: "250m", DefaultMemory: "256Mi", DefaultMemoryLimit: "1Gi"},
	discov1.TenantTierTeam: {CPU: "50", Memory: "100Gi", MaxCPU: "4", MaxMemory: "8Gi",
		DefaultCPU: "250m", DefaultMemory: "256Mi", DefaultMemoryLimit: "1Gi"},
	discov1.TenantTierEnterprise: {CPU: "500", Memory: "1000Gi", MaxCPU: "8", MaxMemory: "32Gi",
		DefaultCPU: "250m", DefaultMemory: "256Mi", DefaultMemoryLimit: "1Gi"},
}

func tierQuotaOf(tier discov1.TenantTier) tierQuota {
	if q, ok := tierQuotas[tier]; ok {
		return q
	}
	return tierQuotas[discov1.TenantTierFree]
}

// tenantPodQuota is the pods an admin's spec.quota admits, when it sets them. The run limit
// follows it (TenantRunLimit): a ResourceQuota refuses a Job's pod without order or notice
// (the Job controller retries with a backoff, and the quota controller's recount can admit
// one pod too many, kubernetes/kubernetes#123434), while the run queue starts runs in
// order and no more than the limit.
func tenantPodQuota(t *discov1.Tenant) (int, bool) {
	if t.Spec.Quota == nil || t.Spec.Quota.Pods == nil {
		return 0, false
	}
	return int(*t.Spec.Quota.Pods), true
}

// tenantQuotaSpec is the ResourceQuota spec of a tenant: its tier's row, with each field of
// spec.quota in place of the tier's.
func tenantQuotaSpec(t *discov1.Tenant) corev1.ResourceQuotaSpec {
	row := tierQuotaOf(t.Spec.Tier)
	pods := int64(max(TenantRunLimit(t), ConcurrentRunLimit(t.Spec.Tier)))
	if n, ok := tenantPodQuota(t); ok {
		pods = int64(n)
	}
	cpu, mem := resource.MustParse(row.CPU), resource.MustParse(row.Memory)
	if q := t.Spec.Quota; q != nil {
		if q.CPU != nil {
			cpu = q.CPU.DeepCopy()
		}
		if q.Memory != nil {
			mem = q.Memory.DeepCopy()
		}
	}
	return corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
		corev1.ResourcePods:           *resource.NewQuantity(pods, resource.DecimalSI),
		corev1.ResourceRequestsCPU:    cpu,
		corev1.ResourceRequestsMemory: mem,
		corev1.ResourceLimitsMemory:   mem.DeepCopy(),
	}}
}

// tenantLimitRangeSpec is the LimitRange spec of a tenant's tier. Every field the API server
// would default is set, so that the stored object equals the desired one.
func tenantLimitRangeSpec(t *discov1.Tenant) corev1.LimitRangeSpec {
	row := tierQuotaOf(t.Spec.Tier)
	q := resource.MustParse
	return corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Max:            corev1.ResourceList{corev1.ResourceCPU: q(row.MaxCPU), corev1.ResourceMemory: q(row.MaxMemory)},
		Default:        corev1.ResourceList{corev1.ResourceCPU: q(row.MaxCPU), corev1.ResourceMemory: q(row.DefaultMemoryLimit)},
		DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: q(row.DefaultCPU), corev1.ResourceMemory: q(row.DefaultMemory)},
	}}}
}

// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=get;list;watch;create;update;patch

// ensureQuota creates the tenant namespace's ResourceQuota and LimitRange, or brings them
// back to the tier's and spec.quota's figures.
func (r *TenantReconciler) ensureQuota(ctx context.Context, tenant *discov1.Tenant, ns string) error {
	labels := map[string]string{LabelManagedBy: "disco", discov1.LabelTenant: tenant.ID()}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: TenantQuotaName, Namespace: ns}}
	limits := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: TenantQuotaName, Namespace: ns}}
	for _, o := range []struct {
		obj    client.Object
		mutate func()
	}{
		{quota, func() { quota.Spec = tenantQuotaSpec(tenant) }},
		{limits, func() { limits.Spec = tenantLimitRangeSpec(tenant) }},
	} {
		_, err := controllerutil.CreateOrPatch(ctx, r.Client, o.obj, func() error {
			o.mutate()
			l := o.obj.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			for k, v := range labels {
				l[k] = v
			}
			o.obj.SetLabels(l)
			return controllerutil.SetControllerReference(tenant, o.obj, r.Scheme())
		})
		if err != nil {
			return fmt.Errorf("the %T %s/%s: %w", o.obj, ns, TenantQuotaName, err)
		}
	}
	return nil
}

// quotaRefusal matches the quota admission plugin's refusals (k8s.io/apiserver
// plugin/resourcequota): "exceeded quota: NAME, requested: ..." and "status unknown for
// quota: NAME, resources: ...".
var quotaRefusal = regexp.MustCompile(`(exceeded quota|status unknown for quota): ([^,\s]+)`)

// capacityWait says why a queued run that the executor did not take (again) waits for the
// cluster's capacity, or "" when it does not:
//   - its Job was refused by a ResourceQuota (submitErr, the error of this Submit);
//   - its Job waits, suspended, for Kueue to admit it from the tenant's LocalQueue;
//   - its Job has no pod, and a ResourceQuota of the namespace has no room for one;
//   - its Job exists and its pod has not started yet.
//
// Each message names the quota or the queue, so that an admin knows what to raise.
func capacityWait(ctx context.Context, c client.Client, run *discov1.Run, submitErr error) string {
	if apierrors.IsForbidden(submitErr) {
		if m := quotaRefusal.FindStringSubmatch(submitErr.Error()); m != nil {
			return fmt.Sprintf("the ResourceQuota %s in namespace %s does not admit the run's Job (%s); it is tried again",
				m[2], run.Namespace, truncate(submitErr.Error(), 1024))
		}
	}
	job := &batchv1.Job{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(run), job); err != nil || runexec.JobFinished(job) {
		return ""
	}
	if ptr.Deref(job.Spec.Suspend, false) {
		queue := job.Labels[runexec.LabelKueueQueue]
		if queue == "" {
			return "the run's Job is suspended; it starts when it is resumed"
		}
		msg := fmt.Sprintf("the run's Job waits for Kueue to admit it from the LocalQueue %s in namespace %s", queue, run.Namespace)
		if t := tenancy.TenantOf(ctx, c, run.Namespace); t != nil {
			for _, cond := range t.Status.Conditions {
				if cond.Type == discov1.ConditionReady && cond.Status == metav1.ConditionFalse {
					msg += " (the tenant is not Ready: " + cond.Message + ")"
				}
			}
		}
		return msg
	}
	if job.Status.Active > 0 {
		return "the run's engine pod is created and waits to start (for a node with room, or its image)"
	}
	quotas := &corev1.ResourceQuotaList{}
	if err := c.List(ctx, quotas, client.InNamespace(run.Namespace)); err == nil {
		need := podNeeds(&job.Spec.Template.Spec)
		for i := range quotas.Items {
			if full := quotaFull(&quotas.Items[i], need); full != "" {
				return fmt.Sprintf("the ResourceQuota %s in namespace %s has no room for the run's engine pod (%s); it starts when pods of the namespace end",
					quotas.Items[i].Name, run.Namespace, full)
			}
		}
	}
	return "the run's Job is created and waits for its engine pod"
}

// podNeeds is what one pod of the template counts against a ResourceQuota, as the quota's
// pod evaluator counts it (k8s.io/kubernetes pkg/quota/v1/evaluator/core/pods.go): one pod,
// and the sums of its containers' requests and limits.
func podNeeds(pod *corev1.PodSpec) corev1.ResourceList {
	need := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	add := func(name corev1.ResourceName, q resource.Quantity) {
		sum := need[name]
		sum.Add(q)
		need[name] = sum
	}
	for _, ctr := range pod.Containers {
		for name, q := range ctr.Resources.Requests {
			add("requests."+name, q)
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
				add(name, q)
			}
		}
		for name, q := range ctr.Resources.Limits {
			add("limits."+name, q)
		}
	}
	return need
}

// quotaFull names the first resource of the quota that one more pod needing need would
// exceed, as "pods: 4 used of 4", or "" when the pod fits. A quota the quota controller has
// not counted yet (no status) fits.
func quotaFull(q *corev1.ResourceQuota, need corev1.ResourceList) string {
	var full []string
	for name, hard := range q.Status.Hard {
		want, ok := need[name]
		if !ok || want.IsZero() {
			continue
		}
		used := q.Status.Used[name]
		total := used.DeepCopy()
		total.Add(want)
		if total.Cmp(hard) > 0 {
			full = append(full, fmt.Sprintf("%s: %s used of %s", name, used.String(), hard.String()))
		}
	}
	if len(full) == 0 {
		return ""
	}
	slices.Sort(full)
	return strings.Join(full, ", ")
}
