package cli

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/internal/webhook"
)

// setupRuns registers the controllers with everything a run needs: the in-process executor,
// the blob store, the ledger, webhook events and their leader-elected dispatcher.
func setupRuns(ctx context.Context, mgr ctrl.Manager, b *backends, scratch string, allowLoopback bool) error {
	events := webhook.NewPublisher(b.store, nil)
	executor := &controllers.LocalExecutor{
		Exec: &controllers.Execution{Client: mgr.GetClient(), Blob: b.blob, ScratchDir: scratch},
	}
	if err := controllers.Setup(ctx, mgr, controllers.Options{
		Profiler:    &controllers.BlobProfiler{Blob: b.blob, ScratchDir: scratch},
		SkipIndexes: true,
		Executor:    executor,
		Blob:        b.blob,
		Ledger:      b.ledger,
		Events:      events,
	}); err != nil {
		return err
	}
	return mgr.Add(webhook.NewDispatcher(b.store, webhook.DispatcherOptions{
		AllowLoopback: allowLoopback,
		Logger:        ctrl.Log.WithName("webhooks"),
	}))
}
