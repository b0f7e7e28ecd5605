package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func claimRequest(t *testing.T, op admissionv1.Operation, user, sub string, obj, old *discov1.Claim) admission.Request {
	t.Helper()
	raw := func(c *discov1.Claim) runtime.RawExtension {
		if c == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op, SubResource: sub, UserInfo: authenticationv1.UserInfo{Username: user},
		Object: raw(obj), OldObject: raw(old),
	}}
}

func TestClaimValidator(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	v := &ClaimValidator{Decoder: admission.NewDecoder(scheme), Identities: Identities{Components: []string{"disco"}}}
	base := &discov1.Claim{Spec: discov1.ClaimSpec{Type: discov1.ClaimLaw, Tier: discov1.TierExplore, Score: 0.9, Expression: "2*x"}}
	with := func(f func(*discov1.Claim)) *discov1.Claim { c := base.DeepCopy(); f(c); return c }
	published := with(func(c *discov1.Claim) { c.Spec.Tier = discov1.TierPublish })
	for _, tc := range []struct {
		name  string
		req   admission.Request
		allow bool
	}{
		{"a user creates a claim", claimRequest(t, admissionv1.Create, "alice", "", base, nil), false},
		{"disco creates a claim", claimRequest(t, admissionv1.Create, "disco", "", base, nil), true},
		{"a user moves the tier", claimRequest(t, admissionv1.Update, "alice", "", published, base), false},
		{"disco moves the tier", claimRequest(t, admissionv1.Update, "disco", "", published, base), true},
		{"a user flips the controls", claimRequest(t, admissionv1.Update, "alice", "", with(func(c *discov1.Claim) { c.Spec.NegativeControlsPassed = true }), base), false},
		{"disco changes the expression", claimRequest(t, admissionv1.Update, "disco", "", with(func(c *discov1.Claim) { c.Spec.Expression = "3*x" }), base), false},
		{"a user relabels", claimRequest(t, admissionv1.Update, "alice", "", with(func(c *discov1.Claim) { c.Labels = map[string]string{"a": "b"} }), base), false},
		{"a user annotates", claimRequest(t, admissionv1.Update, "alice", "", with(func(c *discov1.Claim) { c.Annotations = map[string]string{"a": "b"} }), base), true},
		{"a user writes the status", claimRequest(t, admissionv1.Update, "alice", "status", base, base), false},
		{"a user deletes an explore claim", claimRequest(t, admissionv1.Delete, "alice", "", nil, base), true},
		{"a user deletes a published claim", claimRequest(t, admissionv1.Delete, "alice", "", nil, published), false},
		{"the garbage collector deletes a published claim", claimRequest(t, admissionv1.Delete, DefaultCollectors[0], "", nil, published), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := v.Handle(context.Background(), tc.req)
			if r.Allowed != tc.allow {
				t.Fatalf("allowed = %v, want %v (%v)", r.Allowed, tc.allow, r.Result)
			}
			if !r.Allowed && r.Result.Code != http.StatusForbidden {
				t.Errorf("refusal code = %d, want 403", r.Result.Code)
			}
		})
	}
}
