package admission

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=get;list;watch;update;patch

// Options configures the webhooks.
type Options struct {
	Identities Identities
	// Now is the clock of budget expiry; nil means time.Now.
	Now func() time.Time
}

// Register serves every disco admission webhook on the manager's webhook server.
func Register(mgr ctrl.Manager, o Options) {
	dec := admission.NewDecoder(mgr.GetScheme())
	srv := mgr.GetWebhookServer()
	srv.Register(ClaimPath, &webhook.Admission{Handler: &ClaimValidator{Decoder: dec, Identities: o.Identities}})
	srv.Register(ClaimPromotionMutatePath, &webhook.Admission{Handler: &ClaimPromotionDefaulter{Decoder: dec}})
	srv.Register(ClaimPromotionValidatePath, &webhook.Admission{Handler: &ClaimPromotionValidator{Decoder: dec, Identities: o.Identities}})
	srv.Register(RunPath, &webhook.Admission{Handler: &RunValidator{Decoder: dec, Client: mgr.GetAPIReader(), Identities: o.Identities, Now: o.Now}})
	srv.Register(GovernanceMutatePath, &webhook.Admission{Handler: &GovernanceAttributor{Decoder: dec, Identities: o.Identities}})
	srv.Register(GovernancePath, &webhook.Admission{Handler: &GovernanceValidator{Decoder: dec, Client: mgr.GetClient(), Identities: o.Identities}})
}
