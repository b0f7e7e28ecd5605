// Package metrics defines disco's Prometheus metrics. They are registered with
// controller-runtime's registry, so the manager's metrics endpoint serves them.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// RunsFinished counts runs by their final status and mode.
	RunsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "disco_runs_finished_total", Help: "Runs that reached a final status, by status and mode.",
	}, []string{"status", "mode"})

	// RunDuration observes how long runs took from start to their final status.
	RunDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "disco_run_duration_seconds", Help: "Wall time of finished runs, by mode.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 12), // 1 s .. ~34 min
	}, []string{"mode"})

	// ClaimsCreated counts claims by type and the tier they started in.
	ClaimsCreated = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "disco_claims_created_total", Help: "Claims created, by type and initial tier.",
	}, []string{"type", "tier"})

	// LedgerAppends counts Evidence Ledger entries by event type.
	LedgerAppends = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "disco_ledger_appends_total", Help: "Evidence Ledger entries appended, by event type.",
	}, []string{"event_type"})

	// WebhookDeliveries counts delivery attempts by outcome (succeeded, retry, dead, gone).
	WebhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "disco_webhook_deliveries_total", Help: "Webhook delivery attempts, by outcome.",
	}, []string{"outcome"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(RunsFinished, RunDuration, ClaimsCreated, LedgerAppends, WebhookDeliveries)
}

// WebhookOutcome is the dispatcher's metrics hook.
func WebhookOutcome(outcome string) { WebhookDeliveries.WithLabelValues(outcome).Inc() }
