package app

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/internal/metrics"
	"github.com/discolab/disco/internal/webhook"
	"github.com/discolab/disco/runexec"
)

// setupRuns registers the controllers with the in-process executor (disco dev).
func setupRuns(ctx context.Context, mgr ctrl.Manager, b *backends, scratch string, sources datasource.Opener, allowLoopback bool) error {
	executor := &runexec.LocalExecutor{
		Exec: &runexec.Execution{Client: mgr.GetClient(), Blob: b.blob, ScratchDir: scratch},
	}
	return setupControllers(ctx, mgr, b, scratch, sources, executor, allowLoopback)
}

// setupControllers registers the controllers with everything a run needs: the executor, the
// blob store, the ledger, webhook events and their leader-elected dispatcher. Field indexes
// must already be registered.
func setupControllers(ctx context.Context, mgr ctrl.Manager, b *backends, scratch string, sources datasource.Opener, executor runexec.RunExecutor, allowLoopback bool) error {
	events := webhook.NewPublisher(b.store, nil)
	fetcher, _ := executor.(controllers.ClaimFetcher) // the Job executor; disco dev's runs no pods
	if err := controllers.Setup(ctx, mgr, controllers.Options{
		Fetcher:     fetcher,
		Profiler:    &controllers.BlobProfiler{Blob: b.blob, ScratchDir: scratch, Sources: sources},
		SkipIndexes: true,
		Executor:    executor,
		Blob:        b.blob,
		Ledger:      b.ledger,
		Events:      events,
		APIKeys:     b.store,
	}); err != nil {
		return err
	}
	return mgr.Add(webhook.NewDispatcher(b.store, webhook.DispatcherOptions{
		AllowLoopback: allowLoopback,
		Logger:        ctrl.Log.WithName("webhooks"),
		Metrics:       metrics.WebhookOutcome,
	}))
}
