package controllers

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// Concurrency is how many reconciles of a controller run at once: controller-runtime's
// controller.Options.MaxConcurrentReconciles ("the maximum number of concurrent
// Reconciles which can be run. Defaults to 1."). Whatever the number, one object is never
// reconciled by two workers at once: the workqueue hands a key to one worker at a time, so
// more workers only let independent objects go ahead together. A zero field takes its
// default (DefaultConcurrency). Tenants, projects, claims and claim promotions keep
// controller-runtime's 1: they change rarely, and the decisions on one claim are taken in
// the order they were asked for.
type Concurrency struct {
	// Runs, default 4: a run's reconcile waits on the API server when it creates the run's
	// Job and identity, and on the blob store and the ledger when it turns results into
	// claims; with one worker, one slow run would hold up every other run's admission.
	// Admission stays one run at a time per namespace (runSlots), because a tenant's slots
	// and a campaign's budget are decided on one list of the namespace's runs.
	Runs int
	// Campaigns, default 2: a campaign is recomputed on every run that starts, ends or is
	// charged, which is cheap and independent of other campaigns.
	Campaigns int
	// Datasets, default 2: the reconcile only hands a file to the profiling pool and
	// writes the outcome; profiling itself runs on the pool's own workers.
	Datasets int
}

// DefaultConcurrency is the concurrency of a manager that configures none.
var DefaultConcurrency = Concurrency{Runs: 4, Campaigns: 2, Datasets: 2}

// withDefaults fills the zero fields from DefaultConcurrency.
func (c Concurrency) withDefaults() Concurrency {
	d := DefaultConcurrency
	if c.Runs > 0 {
		d.Runs = c.Runs
	}
	if c.Campaigns > 0 {
		d.Campaigns = c.Campaigns
	}
	if c.Datasets > 0 {
		d.Datasets = c.Datasets
	}
	return d
}

// workers is the controller option of n concurrent reconciles; 0 leaves
// controller-runtime's default of 1.
func workers(b *ctrl.Builder, n int) *ctrl.Builder {
	return b.WithOptions(controller.Options{MaxConcurrentReconciles: n})
}
