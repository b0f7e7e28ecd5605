package controllers

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/runexec"
)

// runSlots is the run reconciler's policy for a tenant's execution slots (issue 14, items 8
// and 9). Several run workers reconcile at once (Concurrency.Runs), and a tenant's slots
// are decided on one list of its namespace's runs, so the runs of one namespace are
// admitted one at a time, under that namespace's lock.
//
// The list and the executor's Active read the manager's cache, which shows a run handed to
// the executor (its Job created, its status written) only after the watch delivers it. The
// runs this manager handed over are therefore assumed to hold their slot until the cache
// shows them (kube-scheduler's "assumed pods"), so the next run admitted under the lock
// cannot take the same slot.
type runSlots struct {
	mu         sync.Mutex
	namespaces map[string]*namespaceSlots
}

// namespaceSlots are the slots of one namespace's runs; its mutex is held while one of its
// runs is admitted.
type namespaceSlots struct {
	sync.Mutex
	// handedOver are the runs of the namespace this manager handed to the executor and the
	// cache does not show as holding a slot yet.
	handedOver sets.Set[string]
}

func newNamespaceSlots() *namespaceSlots { return &namespaceSlots{handedOver: sets.New[string]()} }

// lock takes the admission lock of a namespace; the caller unlocks it.
func (s *runSlots) lock(namespace string) *namespaceSlots {
	s.mu.Lock()
	if s.namespaces == nil {
		s.namespaces = map[string]*namespaceSlots{}
	}
	ns, ok := s.namespaces[namespace]
	if !ok {
		ns = newNamespaceSlots()
		s.namespaces[namespace] = ns
	}
	s.mu.Unlock()
	ns.Lock()
	return ns
}

// wait says why run may not take a slot now, or "" when it may: the tenant runs its limit
// (TenantRunLimit), or earlier runs wait for a slot first (first in, first out per tenant).
// A run handed to the executor before keeps its slot.
func (s *namespaceSlots) wait(ctx context.Context, x runexec.RunExecutor, tenant *discov1.Tenant, runs []discov1.Run, run *discov1.Run) string {
	n := s.taken(ctx, x, runs, run)
	if s.holds(ctx, x, run) {
		return ""
	}
	if limit := TenantRunLimit(tenant); n >= limit {
		tier := discov1.TenantTierFree
		if tenant != nil {
			tier = tenant.Spec.Tier
		}
		return fmt.Sprintf("the tenant already runs %d runs, its limit (%s tier: %d); this run starts when one finishes", n, tier, limit)
	}
	if ahead := s.ahead(ctx, x, runs, run); ahead > 0 {
		return fmt.Sprintf("%d earlier runs of the tenant are waiting for a slot first", ahead)
	}
	return ""
}

// handOver records that run was handed to the executor.
func (s *namespaceSlots) handOver(run *discov1.Run) { s.handedOver.Insert(run.Name) }

// holds reports whether a run holds an execution slot: a running one, one whose execution
// is active (a queued run already handed to the executor starts without another
// admission; a finished run's Job's pod may still be exiting, and the tenant's limit bounds
// engine pods as well as runs, issue 13), and a queued one handed over that the cache does
// not show yet. Once the cache shows it, the assumption is dropped.
func (s *namespaceSlots) holds(ctx context.Context, x runexec.RunExecutor, o *discov1.Run) bool {
	switch {
	case o.Status.Phase == discov1.RunRunning:
	case (o.Status.Phase == discov1.RunQueued || o.Status.Phase.Finished()) && x.Active(ctx, client.ObjectKeyFromObject(o)):
	case o.Status.Phase == discov1.RunQueued:
		return s.handedOver.Has(o.Name)
	default:
		return false
	}
	s.handedOver.Delete(o.Name)
	return true
}

// taken counts the slots the namespace's runs other than run hold, and forgets the runs
// handed over that are gone.
func (s *namespaceSlots) taken(ctx context.Context, x runexec.RunExecutor, runs []discov1.Run, run *discov1.Run) int {
	present := sets.New[string]()
	n := 0
	for i := range runs {
		o := &runs[i]
		present.Insert(o.Name)
		if o.Name != run.Name && s.holds(ctx, x, o) {
			n++
		}
	}
	s.handedOver = s.handedOver.Intersection(present)
	return n
}

// ahead counts the runs of the namespace that wait for a slot and were created before run:
// they are admitted first. A run already handed to the executor, or one waiting for a
// missing campaign, project or dataset (RunReconciler.parents), or one the executor did not
// take, does not hold the queue.
func (s *namespaceSlots) ahead(ctx context.Context, x runexec.RunExecutor, runs []discov1.Run, run *discov1.Run) int {
	n := 0
	for i := range runs {
		o := &runs[i]
		if o.Name == run.Name || o.Status.Phase != discov1.RunQueued || !o.DeletionTimestamp.IsZero() || !governance.CreatedBefore(o, run) {
			continue
		}
		if c := meta.FindStatusCondition(o.Status.Conditions, discov1.RunConditionAdmitted); c != nil &&
			(c.Reason == discov1.ReasonProjectNotFound || c.Reason == discov1.ReasonCampaignNotFound ||
				c.Reason == discov1.ReasonDatasetNotFound || c.Reason == discov1.ReasonDatasetNotFetched ||
				c.Reason == discov1.ReasonNotSubmitted) {
			continue
		}
		if s.holds(ctx, x, o) {
			continue
		}
		n++
	}
	return n
}
