package app

import (
	"fmt"
	"os"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/discolab/disco/admission"
)

// Names of the cluster's webhook objects (config/webhook with config/default's prefix).
const (
	webhookService       = "disco-webhook-service"
	webhookSecret        = "disco-webhook-server-cert"
	validatingWebhookCfg = "disco-validating-webhook-configuration"
	mutatingWebhookCfg   = "disco-mutating-webhook-configuration"
)

// RBAC: the webhook configurations' marker is in admission/setup.go; the certificate
// Secret's Role is config/rbac/webhook_cert_role.yaml.

// setupWebhooks serves disco's admission webhooks from the manager. The serving certificate
// is made and rotated by cert-controller (as kueue does without cert-manager): it keeps the
// CA and certificate in a Secret, writes them to certDir, and injects the CA into the
// webhook configurations. The handlers are registered once the certificate is in place.
func setupWebhooks(mgr ctrl.Manager, namespace, certDir string, components []string) error {
	if namespace == "" {
		return fmt.Errorf("the manager's namespace is unknown: set POD_NAMESPACE (the downward API) or --webhook-namespace")
	}
	ready := make(chan struct{})
	if err := rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: namespace, Name: webhookSecret},
		CertDir:        certDir,
		CAName:         "disco-ca",
		CAOrganization: "disco",
		DNSName:        webhookService + "." + namespace + ".svc",
		ExtraDNSNames:  []string{webhookService + "." + namespace + ".svc.cluster.local"},
		IsReady:        ready,
		Webhooks: []rotator.WebhookInfo{
			{Name: validatingWebhookCfg, Type: rotator.Validating},
			{Name: mutatingWebhookCfg, Type: rotator.Mutating},
		},
		RequireLeaderElection: false, // every replica serves webhooks, so every replica needs the certificate
	}); err != nil {
		return fmt.Errorf("set up webhook certificates: %w", err)
	}
	go func() {
		<-ready
		admission.Register(mgr, admission.Options{Identities: admission.Identities{Components: components}})
	}()
	return nil
}

// defaultComponents are the service accounts of the manager and the facade in namespace.
func defaultComponents(namespace string) []string {
	return []string{
		admission.ServiceAccountUser(namespace, "disco-manager"),
		admission.ServiceAccountUser(namespace, "disco-apiserver"),
	}
}

func podNamespace() string { return os.Getenv("POD_NAMESPACE") }
