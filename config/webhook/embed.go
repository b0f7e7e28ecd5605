// Package webhook embeds the generated admission webhook configurations, so `disco dev` and
// the envtest suites register the same webhooks the cluster manifests install.
package webhook

import (
	"bytes"
	_ "embed"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"
)

//go:embed manifests.yaml
var manifests []byte

// Configurations returns the mutating and validating webhook configurations of
// manifests.yaml, named with the given prefix.
func Configurations(prefix string) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, doc := range bytes.Split(manifests, []byte("\n---")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, err
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			c := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, c); err != nil {
				return nil, nil, fmt.Errorf("manifests.yaml: %w", err)
			}
			c.Name = prefix + c.Name
			mutating = append(mutating, c)
		case "ValidatingWebhookConfiguration":
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, c); err != nil {
				return nil, nil, fmt.Errorf("manifests.yaml: %w", err)
			}
			c.Name = prefix + c.Name
			validating = append(validating, c)
		default:
			return nil, nil, fmt.Errorf("manifests.yaml: unexpected kind %q", meta.Kind)
		}
	}
	return mutating, validating, nil
}
