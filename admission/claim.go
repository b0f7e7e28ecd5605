package admission

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// ClaimPath is where the Claim webhook is served.
const ClaimPath = "/validate-discovery-disco-dev-v1alpha1-claim"

// +kubebuilder:webhook:path=/validate-discovery-disco-dev-v1alpha1-claim,mutating=false,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=claims;claims/status,verbs=create;update;delete,versions=v1alpha1,name=vclaim.discovery.disco.dev,admissionReviewVersions=v1

// ClaimValidator enforces issue 14's rules for Claims:
//   - claims are created only by disco's components (a run's results become claims);
//   - a claim's content is immutable: only the tier changes, and only disco's components
//     change it, after internal/promotion evaluated governance and ledgered the move;
//   - users may change a claim's annotations, nothing else (labels select a claim's run and
//     project, and the finalizer ledgers its deletion);
//   - a claim above explore must be demoted, through the governed path, before a user
//     deletes it; every deletion is ledgered by the claim reconciler's finalizer.
type ClaimValidator struct {
	Decoder    admission.Decoder
	Identities Identities
}

func (v *ClaimValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	component := v.Identities.isComponent(req.UserInfo)
	if req.SubResource == "status" {
		if !component {
			return deny("a claim's status is written by disco; move its tier with a ClaimPromotion or POST .../claims/{id}/promote")
		}
		return admission.Allowed("")
	}
	switch req.Operation {
	case admissionv1.Create:
		if !component {
			return deny("claims are created by disco from a run's results; submit a Run instead")
		}
		return admission.Allowed("")
	case admissionv1.Delete:
		old := &discov1.Claim{}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if component || v.Identities.isCollector(req.UserInfo) || old.Spec.Tier == "" || old.Spec.Tier == discov1.TierExplore {
			return admission.Allowed("")
		}
		return deny(fmt.Sprintf("the claim is in tier %s; demote it to explore first (a ClaimPromotion with targetTier: explore, or POST .../demote), so the ledger records the change", old.Spec.Tier))
	case admissionv1.Update:
		claim, old := &discov1.Claim{}, &discov1.Claim{}
		if err := v.Decoder.DecodeRaw(req.Object, claim); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		return v.update(claim, old, component)
	}
	return admission.Allowed("")
}

func (v *ClaimValidator) update(claim, old *discov1.Claim, component bool) admission.Response {
	content, oldContent := claim.Spec, old.Spec
	content.Tier, oldContent.Tier = "", ""
	if !equality.Semantic.DeepEqual(content, oldContent) {
		return deny("a claim's content is immutable (expression, evidence, score, scope, controls, cause and effect come from its run)")
	}
	if component {
		return admission.Allowed("")
	}
	if claim.Spec.Tier != old.Spec.Tier {
		return deny("a claim's tier changes only through governance: create a ClaimPromotion (spec.claimName, spec.targetTier) or POST .../claims/{id}/promote")
	}
	if !maps.Equal(claim.Labels, old.Labels) || !slices.Equal(claim.Finalizers, old.Finalizers) ||
		!reflect.DeepEqual(claim.OwnerReferences, old.OwnerReferences) {
		return deny("a claim's labels, finalizers and owner are set by disco; only annotations may change")
	}
	return admission.Allowed("")
}

// deny answers 403 with a message a person can act on.
func deny(message string) admission.Response {
	r := admission.Denied(message)
	r.Result.Code = http.StatusForbidden
	return r
}
