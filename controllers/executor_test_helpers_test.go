package controllers

import (
	"context"
	"sync"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// gatedExecutor executes only runs whose campaign is named "exec", so the bookkeeping specs
// can watch runs sit in queued while the execution specs run the real engine.
type gatedExecutor struct{ *LocalExecutor }

func (g *gatedExecutor) Submit(run *discov1.Run) bool {
	c := &discov1.Campaign{}
	if err := k8sClient.Get(context.Background(), objectKey(run.Namespace, run.Spec.CampaignID), c); err != nil || c.Spec.DisplayName != "exec" {
		return false
	}
	return g.LocalExecutor.Submit(run)
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
