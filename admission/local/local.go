// Package local serves disco's admission webhooks on loopback for an embedded control plane
// (`disco dev`) and the envtest suites: the kube-apiserver they start calls the manager's
// webhook server at 127.0.0.1 with a certificate envtest generates, so every write passes
// the same webhooks as in a cluster.
package local

import (
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	webhookconfig "github.com/discolab/disco/config/webhook"
)

// ComponentUser is the Kubernetes user the embedded manager and facade act as; the
// webhooks trust it as one of disco's components (admission.Identities.Components).
const ComponentUser = "disco-manager"

// DevUser is the normal user of `disco dev`'s kubeconfig-user: an editor, not a promoter.
const DevUser = "disco-user"

// Install adds disco's webhook configurations to env; call it before env.Start.
func Install(env *envtest.Environment) error {
	mutating, validating, err := webhookconfig.Configurations("disco-")
	if err != nil {
		return err
	}
	env.WebhookInstallOptions.MutatingWebhooks = append(env.WebhookInstallOptions.MutatingWebhooks, mutating...)
	env.WebhookInstallOptions.ValidatingWebhooks = append(env.WebhookInstallOptions.ValidatingWebhooks, validating...)
	return nil
}

// Server is the webhook server the kube-apiserver of env calls; valid after env.Start.
func Server(env *envtest.Environment) webhook.Server {
	o := env.WebhookInstallOptions
	return webhook.NewServer(webhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir})
}
