package admission

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// TestMutatingWebhooksLeaveUndecodableObjectsToSchemaValidation: a field of the wrong type
// (YAML 1.1 reads `[y]` as `[true]`) passes the mutating webhooks unchanged, so the API
// server's schema validation names the field; the validating webhooks still refuse it.
func TestMutatingWebhooksLeaveUndecodableObjectsToSchemaValidation(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	dec := admission.NewDecoder(scheme)
	req := func(raw string) admission.Request {
		return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Create, UserInfo: authenticationv1.UserInfo{Username: "alice"},
			Object: runtime.RawExtension{Raw: []byte(raw)},
		}}
	}
	run := req(`{"apiVersion":"discovery.disco.dev/v1alpha1","kind":"Run","spec":{"parameters":{"targetVariables":[true]}}}`)
	promo := req(`{"apiVersion":"discovery.disco.dev/v1alpha1","kind":"ClaimPromotion","spec":{"claimName":7}}`)
	for name, h := range map[string]struct {
		handler admission.Handler
		req     admission.Request
	}{
		"RunEstimator":            {&RunEstimator{Decoder: dec}, run},
		"ClaimPromotionDefaulter": {&ClaimPromotionDefaulter{Decoder: dec}, promo},
	} {
		resp := h.handler.Handle(t.Context(), h.req)
		if !resp.Allowed || len(resp.Patches) != 0 {
			t.Errorf("%s on an undecodable object: allowed=%v patches=%v result=%v; want allowed unchanged", name, resp.Allowed, resp.Patches, resp.Result)
		}
	}
	for name, h := range map[string]struct {
		handler admission.Handler
		req     admission.Request
	}{
		"RunValidator":            {&RunValidator{Decoder: dec}, run},
		"ClaimPromotionValidator": {&ClaimPromotionValidator{Decoder: dec}, promo},
	} {
		if resp := h.handler.Handle(t.Context(), h.req); resp.Allowed {
			t.Errorf("%s allowed an undecodable object", name)
		}
	}
}
