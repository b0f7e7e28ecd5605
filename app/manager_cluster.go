package app

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	kjson "sigs.k8s.io/json"
)

// readyChecks are the manager's readiness checks. A replica serving admission webhooks is
// Ready only once its webhook server answers TLS: the webhook Service sends the
// kube-apiserver's admission calls to Ready replicas only, and a replica still waiting for
// cert-controller's certificate would refuse them, failing writes (failurePolicy Fail).
func readyChecks(ws webhook.Server, webhooks bool) map[string]healthz.Checker {
	checks := map[string]healthz.Checker{"readyz": healthz.Ping}
	if webhooks {
		checks["webhooks"] = ws.StartedChecker()
	}
	return checks
}

// parseVolumeSource reads a core/v1 VolumeSource from JSON, as in a pod spec's volume
// without its name; "" gives nil. It decodes as the API server does (sigs.k8s.io/json,
// case-sensitive, unknown fields refused), so a misspelt source fails at startup instead of
// giving the engine pods an empty volume.
func parseVolumeSource(s string) (*corev1.VolumeSource, error) {
	if s == "" {
		return nil, nil
	}
	var v corev1.VolumeSource
	strict, err := kjson.UnmarshalStrict([]byte(s), &v)
	if err == nil && len(strict) > 0 {
		err = errors.Join(strict...)
	}
	if err != nil {
		return nil, fmt.Errorf("want a volume source as JSON, e.g. {\"hostPath\": {\"path\": \"/srv/disco/blobs\"}}: %w", err)
	}
	if v == (corev1.VolumeSource{}) {
		return nil, errors.New("the volume source names no volume type (hostPath, nfs, csi, ...)")
	}
	return &v, nil
}

// engineResources parses --engine-cpu and --engine-memory; "" leaves the executor's default.
// Each must be a positive quantity (the Kubernetes resource.Quantity syntax).
func engineResources(cpu, memory string) (resource.Quantity, resource.Quantity, error) {
	var out [2]resource.Quantity
	for i, f := range []struct{ flag, value string }{{"--engine-cpu", cpu}, {"--engine-memory", memory}} {
		if f.value == "" {
			continue
		}
		q, err := resource.ParseQuantity(f.value)
		if err != nil || q.Sign() <= 0 {
			return resource.Quantity{}, resource.Quantity{}, fmt.Errorf("%s %q: want a positive quantity such as 250m or 512Mi", f.flag, f.value)
		}
		out[i] = q
	}
	return out[0], out[1], nil
}
