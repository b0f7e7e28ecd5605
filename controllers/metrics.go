package controllers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/metrics"
)

// stateCollector reports how many runs are in each status and claims in each tier, counted
// from the manager's cache when Prometheus scrapes (gauges kept by reconcilers would drift
// when objects are deleted). It only reads the objects, so it lists them without deep
// copies: a scrape must not copy every claim of a large installation.
type stateCollector struct {
	reader client.Reader
	runs   *prometheus.Desc
	claims *prometheus.Desc
}

func newStateCollector(r client.Reader) *stateCollector {
	return &stateCollector{
		reader: r,
		runs:   prometheus.NewDesc("disco_runs", "Runs by current status.", []string{"status"}, nil),
		claims: prometheus.NewDesc("disco_claims", "Claims by current tier and type.", []string{"tier", "type"}, nil),
	}
}

func (s *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- s.runs; ch <- s.claims }

func (s *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	runs := &discov1.RunList{}
	if err := s.reader.List(ctx, runs, client.UnsafeDisableDeepCopy); err == nil {
		counts := map[string]float64{}
		for _, p := range []discov1.RunPhase{discov1.RunQueued, discov1.RunRunning, discov1.RunCompleted, discov1.RunFailed, discov1.RunCancelled} {
			counts[string(p)] = 0
		}
		for _, r := range runs.Items {
			counts[string(r.Status.Phase)]++
		}
		for status, n := range counts {
			ch <- prometheus.MustNewConstMetric(s.runs, prometheus.GaugeValue, n, status)
		}
	}
	claims := &discov1.ClaimList{}
	if err := s.reader.List(ctx, claims, client.UnsafeDisableDeepCopy); err == nil {
		counts := map[[2]string]float64{}
		for _, c := range claims.Items {
			counts[[2]string{string(c.Spec.Tier), string(c.Spec.Type)}]++
		}
		for k, n := range counts {
			ch <- prometheus.MustNewConstMetric(s.claims, prometheus.GaugeValue, n, k[0], k[1])
		}
	}
}

// observeRunFinished records a run that reached its final status.
func observeRunFinished(run *discov1.Run) {
	metrics.RunsFinished.WithLabelValues(string(run.Status.Phase), string(run.Spec.Mode)).Inc()
	if run.Status.StartedAt != nil && run.Status.CompletedAt != nil {
		metrics.RunDuration.WithLabelValues(string(run.Spec.Mode)).Observe(run.Status.CompletedAt.Sub(run.Status.StartedAt.Time).Seconds())
	}
}
