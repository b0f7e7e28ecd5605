package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClaimType is the kind of finding.
// +kubebuilder:validation:Enum=law;causal;conservation
type ClaimType string

const (
	ClaimLaw          ClaimType = "law"
	ClaimCausal       ClaimType = "causal"
	ClaimConservation ClaimType = "conservation"
)

// ClaimScope bounds where a claim was found to hold.
type ClaimScope struct {
	// +kubebuilder:validation:MaxItems=256
	// +optional
	Variables []string `json:"variables,omitempty"`
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Domain string `json:"domain,omitempty"`
	// +kubebuilder:validation:MaxItems=64
	// +optional
	ConstraintsSatisfied []string `json:"constraintsSatisfied,omitempty"`
}

// ClaimSpec is what a run found. Everything but the tier is immutable: governance moves the
// tier through the facade, which ledgers every move.
// +kubebuilder:validation:XValidation:rule="self.type == oldSelf.type && self.runID == oldSelf.runID && self.summary == oldSelf.summary && self.score == oldSelf.score",message="a claim's content is immutable; only its tier changes"
type ClaimSpec struct {
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	ProjectID string `json:"projectID"`
	// +kubebuilder:validation:Pattern=`^camp_[a-z2-7]{26}$`
	CampaignID string `json:"campaignID"`
	// +kubebuilder:validation:Pattern=`^run_[a-z2-7]{26}$`
	RunID string    `json:"runID"`
	Type  ClaimType `json:"type"`
	Tier  Tier      `json:"tier"`
	// +kubebuilder:validation:MaxLength=4096
	Summary string `json:"summary"`
	// Score is the Truth Dial score, 0..1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	Score float64 `json:"score"`
	// +optional
	Scope ClaimScope `json:"scope,omitempty"`
	// Evidence holds the per-type measures (r_squared, causal_confidence, negative controls...).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Evidence *apiextensionsv1.JSON `json:"evidence,omitempty"`
	// Expression is the law or the conserved quantity.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Expression string `json:"expression,omitempty"`
	// +kubebuilder:validation:MaxItems=256
	// +optional
	Variables []string `json:"variables,omitempty"`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Cause string `json:"cause,omitempty"`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Effect string `json:"effect,omitempty"`
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Direction string `json:"direction,omitempty"`
	// +kubebuilder:validation:MaxLength=32
	// +optional
	TemporalScope string `json:"temporalScope,omitempty"`
	// +kubebuilder:validation:MaxItems=64
	// +optional
	InterventionMarkers []string `json:"interventionMarkers,omitempty"`
	// LedgerEntryID is the claim_created ledger entry.
	// +optional
	LedgerEntryID string `json:"ledgerEntryID,omitempty"`
	// NegativeControlsPassed is copied from the evidence for governance checks and printing.
	// +optional
	NegativeControlsPassed bool `json:"negativeControlsPassed"`
}

// ClaimStatus records the last tier move.
type ClaimStatus struct {
	// Tier is the tier the controller last observed.
	// +optional
	Tier Tier `json:"tier,omitempty"`
	// +optional
	PreviousTier Tier `json:"previousTier,omitempty"`
	// +optional
	PromotedAt *metav1.Time `json:"promotedAt,omitempty"`
	// +optional
	PromotedBy string `json:"promotedBy,omitempty"`
	// +optional
	LastLedgerEntryID string `json:"lastLedgerEntryID,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Claim is a typed finding of a run: a law, a causal link or a conservation law.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=clm,categories=disco
// +kubebuilder:selectablefield:JSONPath=`.spec.tier`
// +kubebuilder:selectablefield:JSONPath=`.spec.type`
// +kubebuilder:selectablefield:JSONPath=`.spec.runID`
// +kubebuilder:selectablefield:JSONPath=`.spec.campaignID`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.spec.tier`
// +kubebuilder:printcolumn:name="Score",type=number,JSONPath=`.spec.score`
// +kubebuilder:printcolumn:name="Summary",type=string,JSONPath=`.spec.summary`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Claim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClaimSpec   `json:"spec,omitempty"`
	Status ClaimStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClaimList is a list of claims.
type ClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Claim `json:"items"`
}

func init() { SchemeBuilder.Register(&Claim{}, &ClaimList{}) }
