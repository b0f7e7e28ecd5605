package controllers

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/lookup"
)

// EventPublisher announces events to webhooks (internal/webhook's Publisher).
type EventPublisher interface {
	Publish(ctx context.Context, tenantID, projectID, eventType string, data map[string]any) (string, error)
}

// publish sends an event when a publisher is configured; a failure is reported, not fatal:
// the event outbox is durable once enqueued, and enqueueing is retried by the next reconcile.
func publish(ctx context.Context, p EventPublisher, tenantID, projectID, typ string, data map[string]any) error {
	if p == nil {
		return nil
	}
	if _, err := p.Publish(ctx, tenantID, projectID, typ, data); err != nil {
		return fmt.Errorf("publish %s: %w", typ, err)
	}
	return nil
}

// tenantOfProject finds the tenant id of a project for event routing.
func tenantOfProject(ctx context.Context, c client.Client, namespace, projectID string) (string, bool) {
	p := &discov1.Project{}
	if err := lookup.ByID(ctx, c, namespace, projectID, p); err != nil {
		return "", false
	}
	return p.TenantID(), true
}

// datasetProfiledEvent publishes dataset.profiled after a dataset's final status is stored.
func datasetProfiledEvent(c client.Client, events EventPublisher) func(context.Context, *discov1.Dataset) {
	return func(ctx context.Context, ds *discov1.Dataset) {
		tenant, ok := tenantOfProject(ctx, c, ds.Namespace, ds.ProjectID())
		if !ok {
			return
		}
		err := publish(ctx, events, tenant, ds.ProjectID(), "dataset.profiled", map[string]any{
			"dataset_id": ds.ID(), "project_id": ds.ProjectID(), "status": string(ds.Status.Phase),
			"rows": ds.Status.Rows, "columns": ds.Status.Columns, "message": ds.Status.Message})
		if err != nil {
			log.FromContext(ctx).Error(err, "dataset.profiled not published", "dataset", ds.Name)
		}
	}
}

// budgetExhaustedEvent publishes budget.exhausted once, when a campaign stops accepting runs.
func budgetExhaustedEvent(c client.Client, events EventPublisher) func(context.Context, *discov1.Campaign, string) {
	return func(ctx context.Context, camp *discov1.Campaign, constraint string) {
		tenant, ok := tenantOfProject(ctx, c, camp.Namespace, camp.ProjectID())
		if !ok {
			return
		}
		err := publish(ctx, events, tenant, camp.ProjectID(), "budget.exhausted", map[string]any{
			"campaign_id": camp.ID(), "project_id": camp.ProjectID(), "status": string(camp.Status.Phase),
			"constraint": constraint, "compute_units": camp.Spec.Budget.ComputeUnits, "compute_units_used": camp.Status.ComputeUnitsUsed,
			"max_runs": camp.Spec.Budget.MaxRuns, "runs_completed": camp.Status.RunsCompleted})
		if err != nil {
			log.FromContext(ctx).Error(err, "budget.exhausted not published", "campaign", camp.Name)
		}
	}
}
