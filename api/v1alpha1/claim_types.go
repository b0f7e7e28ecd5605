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
	// Variables are the columns the claim is about.
	// +kubebuilder:validation:MaxItems=256
	// +optional
	Variables []string `json:"variables,omitempty"`
	// Domain is the range of the data the claim was found on, per variable (x∈[lo, hi]).
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Domain string `json:"domain,omitempty"`
	// ConstraintsSatisfied are the run's constraints the claim respects.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	ConstraintsSatisfied []string `json:"constraintsSatisfied,omitempty"`
}

// ClaimSpec is what a run found. Only disco's components create claims, and everything
// but the tier is immutable; the tier moves only through the governed promotion path (a
// ClaimPromotion, or REST promote and demote), which ledgers every move.
// +kubebuilder:validation:XValidation:rule="self.type == oldSelf.type && self.runID == oldSelf.runID && self.summary == oldSelf.summary && self.score == oldSelf.score",message="a claim's content is immutable; only its tier changes"
type ClaimSpec struct {
	// ProjectID is the public id of the claim's project (proj_ and 26 base32 characters).
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	ProjectID string `json:"projectID"`
	// CampaignID is the public id of the campaign of the run that found the claim.
	// +kubebuilder:validation:Pattern=`^camp_[a-z2-7]{26}$`
	CampaignID string `json:"campaignID"`
	// RunID is the public id of the run that found the claim (run_ and 26 base32 characters).
	// +kubebuilder:validation:Pattern=`^run_[a-z2-7]{26}$`
	RunID string `json:"runID"`
	// Type is law (an equation), causal (a causal link) or conservation (a conserved quantity).
	Type ClaimType `json:"type"`
	// Tier is explore, validate or publish. Only a ClaimPromotion (or the REST promote and
	// demote endpoints) moves it, under the project's governance, and every move is ledgered.
	Tier Tier `json:"tier"`
	// Summary states the claim in one line.
	// +kubebuilder:validation:MaxLength=4096
	Summary string `json:"summary"`
	// Score is the Truth Dial score, 0..1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	Score float64 `json:"score"`
	// Scope bounds where the claim was found to hold.
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
	// Target is the variable a law explains: a column, or "dx/dt" for an equation of motion.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Target string `json:"target,omitempty"`
	// Variables are the columns the expression uses.
	// +kubebuilder:validation:MaxItems=256
	// +optional
	Variables []string `json:"variables,omitempty"`
	// Cause is the causing column of a causal claim.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Cause string `json:"cause,omitempty"`
	// Effect is the affected column of a causal claim.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Effect string `json:"effect,omitempty"`
	// Direction is forward (cause -> effect) or undirected (the data cannot orient the edge).
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Direction string `json:"direction,omitempty"`
	// TemporalScope is contemporaneous or lag:k (the cause leads the effect by k rows).
	// +kubebuilder:validation:MaxLength=32
	// +optional
	TemporalScope string `json:"temporalScope,omitempty"`
	// InterventionMarkers are the columns that mark interventions in the data.
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
	// PreviousTier is the tier before the last move.
	// +optional
	PreviousTier Tier `json:"previousTier,omitempty"`
	// PromotedAt is when the tier last moved.
	// +optional
	PromotedAt *metav1.Time `json:"promotedAt,omitempty"`
	// PromotedBy is who moved it: a REST principal, or kubernetes:<user> for a ClaimPromotion.
	// +optional
	PromotedBy string `json:"promotedBy,omitempty"`
	// LastLedgerEntryID is the ledger entry of the last move.
	// +optional
	LastLedgerEntryID string `json:"lastLedgerEntryID,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready.
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
