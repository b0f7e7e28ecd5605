package cluster

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/test/live"
)

// A tenant's tier gives its namespace a ResourceQuota and a LimitRange; the engine pods
// respect them; a run whose engine pod the quota has no room for waits in queued saying so,
// naming the quota, and runs once there is room (issue 13, item 6).
func TestTenantQuota(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	ns := e.creds.Namespace
	key := client.ObjectKey{Namespace: ns, Name: controllers.TenantQuotaName}

	limits := &corev1.LimitRange{}
	if err := e.kube.Get(ctx, key, limits); err != nil {
		t.Fatalf("the tenant namespace's LimitRange: %v", err)
	}
	if len(limits.Spec.Limits) != 1 || limits.Spec.Limits[0].Type != corev1.LimitTypeContainer {
		t.Fatalf("LimitRange %+v", limits.Spec)
	}
	quota := &corev1.ResourceQuota{}
	if err := e.kube.Get(ctx, key, quota); err != nil {
		t.Fatalf("the tenant namespace's ResourceQuota: %v", err)
	}
	for _, name := range []corev1.ResourceName{corev1.ResourcePods, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory} {
		if _, ok := quota.Spec.Hard[name]; !ok {
			t.Errorf("the ResourceQuota has no %s: %v", name, quota.Spec.Hard)
		}
	}

	// An admin's quota of one pod, held by a pod that is not an engine.
	e.changeTenant(t, func(t *discov1.Tenant) { t.Spec.Quota = &discov1.TenantQuota{Pods: ptr.To[int32](1)} })
	live.Eventually(t, time.Minute, "the quota controller to count a quota of one pod", func() bool {
		q := &corev1.ResourceQuota{}
		if e.kube.Get(ctx, key, q) != nil {
			return false
		}
		hard := q.Status.Hard[corev1.ResourcePods]
		return hard.Equal(resource.MustParse("1"))
	})
	// The holder gets the pod once the pods of earlier tests have ended.
	holder := quotaHolder(ns)
	live.Eventually(t, 3*time.Minute, "room in the quota for the holder pod", func() bool {
		err := e.kube.Create(ctx, quotaHolder(ns))
		return err == nil || apierrors.IsAlreadyExists(err)
	})
	removed := false
	remove := func() {
		if !removed {
			removed = true
			if err := e.kube.Delete(context.Background(), holder, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		}
	}
	defer remove()
	live.Eventually(t, time.Minute, "the holder pod counted against the quota", func() bool {
		q := &corev1.ResourceQuota{}
		if e.kube.Get(ctx, key, q) != nil {
			return false
		}
		used := q.Status.Used[corev1.ResourcePods]
		return used.Value() >= 1
	})

	pid, cid := a.project("quota", 100000)
	did := a.ReadyDataset(pid, "quadratic", live.QuadraticCSV(240), 2*time.Minute)
	done := phase(t, "a run the quota has no room for: submit to condition naming the quota")
	rid := a.submit(pid, cid, did, "symbolic", nil)
	cond := e.admittedNaming(t, rid, "ResourceQuota "+controllers.TenantQuotaName, 3*time.Minute)
	done()
	if cond.Reason != discov1.ReasonWaitingForCapacity || !strings.Contains(cond.Message, "pods: 1 used of 1") {
		t.Errorf("condition %+v", cond)
	}
	pods := &corev1.PodList{}
	if err := e.kube.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{discov1.LabelRun: rid}); err != nil || len(pods.Items) != 0 {
		t.Errorf("the run has engine pods beyond the quota: %d (%v)", len(pods.Items), err)
	}

	done = phase(t, "room in the quota to run completed")
	remove()
	if st := a.RunEnded(runPath(pid, cid, rid), 5*time.Minute); st["status"] != "completed" {
		t.Errorf("run after the quota had room ended %v", st)
	}
	done()

	// The engine pod got the LimitRange's defaults and stayed within its bounds.
	if err := e.kube.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{discov1.LabelRun: rid}); err != nil || len(pods.Items) == 0 {
		t.Fatalf("the run's engine pod: %v", err)
	}
	item := limits.Spec.Limits[0]
	for _, ctr := range pods.Items[0].Spec.Containers {
		if got, want := ctr.Resources.Limits[corev1.ResourceCPU], item.Default[corev1.ResourceCPU]; !got.Equal(want) {
			t.Errorf("engine container's CPU limit %s, want the LimitRange's default %s", got.String(), want.String())
		}
		for name, max := range item.Max {
			for _, l := range []corev1.ResourceList{ctr.Resources.Requests, ctr.Resources.Limits} {
				if q, ok := l[name]; ok && q.Cmp(max) > 0 {
					t.Errorf("engine container's %s %s is above the LimitRange's %s", name, q.String(), max.String())
				}
			}
		}
	}
}

// quotaHolder is a pod that takes a slot of the namespace's pod quota: the pause image
// `make image` builds, run as the restricted Pod Security profile asks.
func quotaHolder(ns string) *corev1.Pod {
	image := os.Getenv("PAUSE_IMG")
	if image == "" {
		image = "disco.local/pause:dev"
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "disco-test-quota-holder", Namespace: ns},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "pause", Image: image, ImagePullPolicy: corev1.PullNever,
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		},
	}
}
