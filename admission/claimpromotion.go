package admission

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// ClaimPromotion webhook paths.
const (
	ClaimPromotionMutatePath   = "/mutate-discovery-disco-dev-v1alpha1-claimpromotion"
	ClaimPromotionValidatePath = "/validate-discovery-disco-dev-v1alpha1-claimpromotion"
)

// +kubebuilder:webhook:path=/mutate-discovery-disco-dev-v1alpha1-claimpromotion,mutating=true,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=claimpromotions,verbs=create,versions=v1alpha1,name=mclaimpromotion.discovery.disco.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-discovery-disco-dev-v1alpha1-claimpromotion,mutating=false,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=claimpromotions;claimpromotions/status,verbs=create;update,versions=v1alpha1,name=vclaimpromotion.discovery.disco.dev,admissionReviewVersions=v1

// ClaimPromotionDefaulter records who asked: spec.requestedBy is the authenticated user of
// the create request, so the ledger attributes the decision to a person (the contract:
// "actions are attributed to the user in the ledger").
type ClaimPromotionDefaulter struct {
	Decoder admission.Decoder
}

func (d *ClaimPromotionDefaulter) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	p := &discov1.ClaimPromotion{}
	if err := d.Decoder.Decode(req, p); err != nil {
		return undecodable()
	}
	if p.Spec.RequestedBy != "" && p.Spec.RequestedBy != req.UserInfo.Username {
		return deny(fmt.Sprintf("spec.requestedBy is set from your credentials (%s); leave it out", req.UserInfo.Username))
	}
	p.Spec.RequestedBy = req.UserInfo.Username
	return patched(req, p)
}

// ClaimPromotionValidator keeps requests honest: the requester is the creating user, and
// only disco decides (writes the status).
type ClaimPromotionValidator struct {
	Decoder    admission.Decoder
	Identities Identities
}

func (v *ClaimPromotionValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.SubResource == "status" {
		if !v.Identities.isComponent(req.UserInfo) {
			return deny("a ClaimPromotion's status is the manager's decision; it cannot be written")
		}
		return admission.Allowed("")
	}
	if req.Operation == admissionv1.Create {
		p := &discov1.ClaimPromotion{}
		if err := v.Decoder.Decode(req, p); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if p.Spec.RequestedBy != req.UserInfo.Username {
			return deny(fmt.Sprintf("spec.requestedBy must be the requesting user (%s)", req.UserInfo.Username))
		}
		if p.Spec.TargetTier.Rank() < 0 {
			return deny("spec.targetTier must be explore, validate or publish")
		}
	}
	return admission.Allowed("")
}
