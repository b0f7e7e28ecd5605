package controllers

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/runexec"
)

// Options wires optional collaborators into the reconcilers.
type Options struct {
	Profiler Profiler
	// Clock is every reconciler's clock; nil means the real clock.
	Clock       clock.PassiveClock
	OnExhausted func(ctx context.Context, c *discov1.Campaign, constraint string)
	OnProfiled  func(ctx context.Context, ds *discov1.Dataset)
	// SkipIndexes is set when the caller registered internal/index already.
	SkipIndexes bool
	// Concurrency is how many reconciles of each controller run at once; zero fields take
	// DefaultConcurrency.
	Concurrency Concurrency

	// Run execution: the executor (nil leaves runs queued with a NoExecutor condition),
	// where results live, the ledger for claim entries, and webhook events.
	Executor     runexec.RunExecutor
	Blob         *blob.Bucket
	Ledger       *ledger.Ledger
	Events       EventPublisher
	RunTimeLimit time.Duration
	// Fetcher copies dataset files from PersistentVolumeClaims (the Job executor); nil
	// refuses such sources.
	Fetcher ClaimFetcher
	// APIKeys is the store the keys of Tenants' spec.apiKeys are issued into; nil leaves
	// spec.apiKeys unserved.
	APIKeys APIKeyStore
}

// Setup registers the field indexes and every reconciler with the manager.
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	if !opts.SkipIndexes {
		if err := index.Register(ctx, mgr.GetFieldIndexer()); err != nil {
			return err
		}
	}
	c := mgr.GetClient()
	rec := mgr.GetEventRecorder
	workers := opts.Concurrency.withDefaults()
	if opts.Events != nil {
		if opts.OnProfiled == nil {
			opts.OnProfiled = datasetProfiledEvent(c, opts.Events)
		}
		if opts.OnExhausted == nil {
			opts.OnExhausted = budgetExhaustedEvent(c, opts.Events)
		}
	}
	if x, ok := opts.Executor.(*runexec.LocalExecutor); ok {
		if err := mgr.Add(x); err != nil {
			return err
		}
	}
	if err := ctrlmetrics.Registry.Register(newStateCollector(mgr.GetCache())); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return err
		}
	}
	for _, r := range []interface{ SetupWithManager(ctrl.Manager) error }{
		&TenantReconciler{Client: c, Reader: mgr.GetAPIReader(), Recorder: rec("tenant-controller")},
		&ProjectReconciler{Client: c, Recorder: rec("project-controller"), Ledger: opts.Ledger},
		&CampaignReconciler{Client: c, Recorder: rec("campaign-controller"), Clock: opts.Clock, OnExhausted: opts.OnExhausted, Ledger: opts.Ledger,
			MaxConcurrentReconciles: workers.Campaigns},
		&RunReconciler{Client: c, Recorder: rec("run-controller"), Clock: opts.Clock, Executor: opts.Executor,
			Blob: opts.Blob, Ledger: opts.Ledger, Events: opts.Events, TimeLimit: opts.RunTimeLimit, MaxConcurrentReconciles: workers.Runs},
		&ClaimReconciler{Client: c, Recorder: rec("claim-controller"), Ledger: opts.Ledger},
		&ClaimPromotionReconciler{Client: c, Reader: mgr.GetAPIReader(), Recorder: rec("claimpromotion-controller"),
			Ledger: opts.Ledger, Events: opts.Events, Clock: opts.Clock},
		&DatasetReconciler{Client: c, Recorder: rec("dataset-controller"), Profiler: opts.Profiler, OnProfiled: opts.OnProfiled, Clock: opts.Clock, Blob: opts.Blob, Fetcher: opts.Fetcher,
			MaxConcurrentReconciles: workers.Datasets},
	} {
		if err := r.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	if opts.APIKeys != nil {
		r := &TenantAPIKeyReconciler{Client: c, Reader: mgr.GetAPIReader(), Keys: opts.APIKeys, Recorder: rec("tenant-api-keys"), Clock: opts.Clock}
		if err := r.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	return nil
}
