package admission

import (
	"net/http"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=get;list;watch;update;patch

// Options configures the webhooks.
type Options struct {
	Identities Identities
	// Clock is the clock of budget expiry; nil means the real clock.
	Clock clock.PassiveClock
}

// Register serves every disco admission webhook on the manager's webhook server.
func Register(mgr ctrl.Manager, o Options) {
	dec := admission.NewDecoder(mgr.GetScheme())
	srv := mgr.GetWebhookServer()
	register := func(path string, h admission.Handler) {
		srv.Register(path, bounded(&webhook.Admission{Handler: h}))
	}
	register(ClaimPath, &ClaimValidator{Decoder: dec, Identities: o.Identities})
	register(ClaimPromotionMutatePath, &ClaimPromotionDefaulter{Decoder: dec})
	register(ClaimPromotionValidatePath, &ClaimPromotionValidator{Decoder: dec, Identities: o.Identities})
	register(RunMutatePath, &RunEstimator{Decoder: dec, Client: mgr.GetAPIReader(), Identities: o.Identities})
	register(RunPath, &RunValidator{Decoder: dec, Client: mgr.GetAPIReader(), Identities: o.Identities, Clock: o.Clock})
	register(GovernanceMutatePath, &GovernanceAttributor{Decoder: dec, Identities: o.Identities})
	register(GovernancePath, &GovernanceValidator{Decoder: dec, Client: mgr.GetClient(), Identities: o.Identities})
	register(DatasetPath, &DatasetSourceValidator{Decoder: dec, Client: mgr.GetClient(), Identities: o.Identities})
}

// bodyTimeout bounds how long a webhook request may take to arrive: an AdmissionReview is
// small, and the API server sends it at once. controller-runtime's webhook server sets
// header and idle timeouts but none for bodies, so a client that stalls its body would
// hold the connection (issue 17, item 5).
const bodyTimeout = 10 * time.Second

func bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
		next.ServeHTTP(w, r)
	})
}
