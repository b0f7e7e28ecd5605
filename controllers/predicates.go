package controllers

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// runUsageChanged passes the Run events that can change its campaign's budget counters
// (governance.CampaignUsage): creations, deletions, and updates of the phase, the units
// charged, the Finished condition's reason (a run refused for budget counts nothing) or the
// deletion timestamp. A running run writes its progress about once a second; those updates
// do not reach the campaign reconciler (issue 16 item 3).
func runUsageChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, cur := e.ObjectOld.(*discov1.Run), e.ObjectNew.(*discov1.Run)
			return old.Status.Phase != cur.Status.Phase ||
				old.Status.ComputeUnitsUsed != cur.Status.ComputeUnitsUsed ||
				finishedReason(old) != finishedReason(cur) ||
				!old.DeletionTimestamp.Equal(cur.DeletionTimestamp)
		},
	}
}

func finishedReason(run *discov1.Run) string {
	if c := meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionFinished); c != nil {
		return c.Reason
	}
	return ""
}

// notProgressOnly drops the Run updates that change nothing but the progress the execution
// reports (status.pipeline, status.progress, status.estimatedCompletion): the run reconciler
// has nothing to decide on them, and a running run is reconciled every 30 seconds anyway
// for its deadline.
func notProgressOnly() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !progressOnly(e.ObjectOld.(*discov1.Run), e.ObjectNew.(*discov1.Run))
		},
	}
}

// progressOnly reports whether two versions of a run differ only in their reported
// progress (and the resourceVersion and managed fields every write moves). The fields are
// blanked in shallow copies: only top-level fields are assigned, so the informer's objects
// stay untouched without a deep copy of each on every progress write.
func progressOnly(old, cur *discov1.Run) bool {
	strip := func(r *discov1.Run) discov1.Run {
		c := *r
		c.ResourceVersion, c.ManagedFields = "", nil
		c.Status.Pipeline, c.Status.Progress, c.Status.EstimatedCompletion = discov1.Pipeline{}, nil, nil
		return c
	}
	a, b := strip(old), strip(cur)
	return equality.Semantic.DeepEqual(&a, &b)
}

// createdOrIdentified passes the creation of an object and the update that gives it its
// public id label (discovery.disco.dev/id): a reference by id finds an object applied
// under a human name by that label (lookup.ByID), so its referrers look again then.
func createdOrIdentified() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetLabels()[discov1.LabelID] != e.ObjectNew.GetLabels()[discov1.LabelID]
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// datasetFetched passes the update that records a dataset's fetched source
// (status.source), so that runs waiting with DatasetNotFetched go on; the run controller
// ORs it with createdOrIdentified, which passes creations and id label changes.
func datasetFetched() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, cur := e.ObjectOld.(*discov1.Dataset), e.ObjectNew.(*discov1.Dataset)
			return (old.Status.Source == nil) != (cur.Status.Source == nil) || old.Status.Phase != cur.Status.Phase
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
