package controllers

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/runexec"
)

// gatedExecutor routes runs by their campaign's name: "exec" to the local executor, "job"
// to the Job executor, anything else nowhere, so the bookkeeping specs can watch runs sit in
// queued while the execution specs run the real engine or real Jobs.
type gatedExecutor struct {
	*runexec.LocalExecutor
	jobs *runexec.JobExecutor
}

func (g *gatedExecutor) route(run *discov1.Run) runexec.RunExecutor {
	c := &discov1.Campaign{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: run.Namespace, Name: run.CampaignName()}, c); err != nil {
		return nil
	}
	switch c.Spec.DisplayName {
	case "exec":
		return g.LocalExecutor
	case "job":
		return g.jobs
	}
	return nil
}

func (g *gatedExecutor) Submit(ctx context.Context, run *discov1.Run) (bool, error) {
	if x := g.route(run); x != nil {
		return x.Submit(ctx, run)
	}
	return false, nil
}

// Active asks the Job executor first, as the run queue asks a run's own executor: a run
// whose Job exists is active until the Job ends.
func (g *gatedExecutor) Active(ctx context.Context, key types.NamespacedName) bool {
	return g.jobs.Active(ctx, key) || g.LocalExecutor.Active(ctx, key)
}

func (g *gatedExecutor) Failure(ctx context.Context, run *discov1.Run) (string, bool) {
	if x, ok := g.route(run).(*runexec.JobExecutor); ok {
		return x.Failure(ctx, run)
	}
	return "", false
}

func (g *gatedExecutor) ExecutionSpan(ctx context.Context, run *discov1.Run) (time.Time, *time.Time, bool) {
	if x, ok := g.route(run).(*runexec.JobExecutor); ok {
		return x.ExecutionSpan(ctx, run)
	}
	return time.Time{}, nil, false
}

type publishedEvent struct {
	Tenant, Project, Type string
	Data                  map[string]any
}

type recordingPublisher struct {
	mu     sync.Mutex
	events []publishedEvent
}

func (p *recordingPublisher) Publish(_ context.Context, tenantID, projectID, typ string, data map[string]any) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, publishedEvent{tenantID, projectID, typ, data})
	return "evt_test", nil
}

func (p *recordingPublisher) ofType(typ, runID string) []publishedEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []publishedEvent
	for _, e := range p.events {
		if e.Type == typ && e.Data["run_id"] == runID {
			out = append(out, e)
		}
	}
	return out
}
