package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClaimPromotionSpec asks to move one claim to a tier. It is the Kubernetes face of
// POST .../claims/{id}/promote and .../demote: a request that the manager decides under
// the same governance rules and records in the Evidence Ledger, as cert-manager approves
// CertificateRequests. Up is a promotion, down a demotion. The spec is immutable.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a ClaimPromotion is immutable; create a new one"
type ClaimPromotionSpec struct {
	// ClaimName is the metadata.name of the Claim in this namespace (clm-... ).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClaimName string `json:"claimName"`
	// TargetTier is the tier to move the claim to: explore, validate or publish.
	TargetTier Tier `json:"targetTier"`
	// Rationale is recorded in the ledger entry.
	// +kubebuilder:validation:MaxLength=4000
	// +optional
	Rationale string `json:"rationale,omitempty"`
	// RequestedBy is the Kubernetes user who created the request. The admission webhook
	// sets it from the request's authenticated user; a value naming anyone else is refused.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	RequestedBy string `json:"requestedBy,omitempty"`
}

// ClaimPromotionPhase is where a request is.
// +kubebuilder:validation:Enum=Pending;Approved;Denied;Failed
type ClaimPromotionPhase string

const (
	ClaimPromotionPending  ClaimPromotionPhase = "Pending"
	ClaimPromotionApproved ClaimPromotionPhase = "Approved"
	ClaimPromotionDenied   ClaimPromotionPhase = "Denied"
	ClaimPromotionFailed   ClaimPromotionPhase = "Failed"
)

// ClaimPromotionStatus is the decision.
type ClaimPromotionStatus struct {
	// Phase is Pending, Approved (the claim moved), Denied (governance refused; see
	// constraint) or Failed (the claim could not be read or written; see message).
	// +optional
	Phase ClaimPromotionPhase `json:"phase,omitempty"`
	// PreviousTier is the claim's tier when the request was decided.
	// +optional
	PreviousTier Tier `json:"previousTier,omitempty"`
	// Constraint names the governance rule that refused the promotion, as the REST error's
	// details.constraint: promotion_ceiling_exceeded, truth_dial_threshold, negative_controls.
	// +optional
	Constraint string `json:"constraint,omitempty"`
	// Message says what happened, in words.
	// +optional
	Message string `json:"message,omitempty"`
	// LedgerEntryID is the ledger entry of the decision (claim_promoted, claim_demoted or
	// policy_evaluated).
	// +optional
	LedgerEntryID string `json:"ledgerEntryID,omitempty"`
	// DecidedAt is when the manager decided the request.
	// +optional
	DecidedAt *metav1.Time `json:"decidedAt,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready, once the request is decided.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClaimPromotion is a request to move a claim between tiers under governance.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=clmpromo,categories=disco
// +kubebuilder:selectablefield:JSONPath=`.spec.claimName`
// +kubebuilder:printcolumn:name="Claim",type=string,JSONPath=`.spec.claimName`
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.targetTier`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Constraint",type=string,JSONPath=`.status.constraint`
// +kubebuilder:printcolumn:name="By",type=string,JSONPath=`.spec.requestedBy`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClaimPromotion struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClaimPromotionSpec   `json:"spec,omitempty"`
	Status ClaimPromotionStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClaimPromotionList is a list of claim promotion requests.
type ClaimPromotionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClaimPromotion `json:"items"`
}

func init() { SchemeBuilder.Register(&ClaimPromotion{}, &ClaimPromotionList{}) }
