package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CampaignPhase is the observed lifecycle state of a campaign.
// +kubebuilder:validation:Enum=active;exhausted;expired;archived
type CampaignPhase string

const (
	CampaignActive    CampaignPhase = "active"
	CampaignExhausted CampaignPhase = "exhausted"
	CampaignExpired   CampaignPhase = "expired"
	CampaignArchived  CampaignPhase = "archived"
)

// Budget bounds the compute a campaign's runs may use.
type Budget struct {
	// ComputeUnits is the compute allowed to all runs of the campaign.
	// +kubebuilder:validation:Minimum=0
	ComputeUnits int64 `json:"computeUnits"`

	// MaxRuns is the number of runs allowed.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	MaxRuns int32 `json:"maxRuns"`

	// ExpiresAt ends the campaign; no runs are accepted afterwards.
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`
}

// CampaignGovernance overrides project governance for the campaign's claims.
// +kubebuilder:validation:XValidation:rule="!has(self.autoPromoteTo) || !has(self.promotionCeiling) || (self.autoPromoteTo == 'explore' || (self.autoPromoteTo == 'validate' && self.promotionCeiling != 'explore') || (self.autoPromoteTo == 'publish' && self.promotionCeiling == 'publish'))",message="autoPromoteTo must not be above promotionCeiling"
type CampaignGovernance struct {
	// PromotionCeiling is the highest tier the campaign's claims may reach; the stricter of
	// the project's and the campaign's ceiling holds.
	// +optional
	PromotionCeiling Tier `json:"promotionCeiling,omitempty"`
	// RequireNegativeControls refuses promotion of claims whose negative controls did not
	// pass; true in either the project or the campaign holds.
	// +optional
	RequireNegativeControls *bool `json:"requireNegativeControls,omitempty"`
	// AutoPromoteTo is the tier claims are given when they pass the promotion checks.
	// +optional
	AutoPromoteTo Tier `json:"autoPromoteTo,omitempty"`
}

// CampaignSpec is the desired state of a campaign.
// +kubebuilder:validation:XValidation:rule="has(self.projectRef) != has(self.projectID)",message="give exactly one of projectRef (the project's name) and projectID (its REST id)"
// +kubebuilder:validation:XValidation:rule="has(self.projectRef) == has(oldSelf.projectRef) && has(self.projectID) == has(oldSelf.projectID)",message="the campaign's project is immutable"
type CampaignSpec struct {
	// ProjectRef names the campaign's Project in the same namespace: {name: signalling}.
	// Immutable. Give it or projectID, not both.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="projectRef is immutable"
	// +optional
	ProjectRef *ObjectRef `json:"projectRef,omitempty"`

	// ProjectID is the parent project's public id, "proj_" and 26 base32 characters: the
	// form the REST API writes. Immutable. Give it or projectRef, not both.
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="projectID is immutable"
	// +optional
	ProjectID string `json:"projectID,omitempty"`

	// DisplayName is the campaign name shown to users. Empty: the object's metadata.name.
	// +kubebuilder:validation:MaxLength=200
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Description says what the campaign is for.
	// +kubebuilder:validation:MaxLength=4000
	// +optional
	Description string `json:"description,omitempty"`

	// Budget bounds the compute units, the number of runs and the time of the campaign.
	Budget Budget `json:"budget"`

	// Governance tightens the project's promotion rules for the campaign's claims. Changing
	// it needs update on campaigns/governance (the disco-promoter role) and is ledgered.
	// +optional
	Governance CampaignGovernance `json:"governance,omitempty"`

	// Archived stops the campaign from accepting runs.
	// +optional
	Archived bool `json:"archived,omitempty"`

	// CreatedBy is the user or API key that created the campaign.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CreatedBy string `json:"createdBy,omitempty"`
}

// CampaignStatus is the observed state of a campaign; its counters are computed from the
// campaign's runs on every reconcile, never incremented, so they cannot drift.
type CampaignStatus struct {
	// ID is the campaign's public id (camp_ and 26 base32 characters); also the label
	// discovery.disco.dev/id.
	// +optional
	ID string `json:"id,omitempty"`
	// ProjectID is the public id of the campaign's project.
	// +optional
	ProjectID string `json:"projectID,omitempty"`
	// ProjectRef names the campaign's Project, whichever form the spec used.
	// +optional
	ProjectRef *ObjectRef `json:"projectRef,omitempty"`
	// Phase is active, exhausted (compute units or runs spent), expired or archived.
	// +optional
	Phase CampaignPhase `json:"phase,omitempty"`
	// ComputeUnitsUsed sums the compute units of finished runs and the estimates of unfinished ones.
	// +optional
	ComputeUnitsUsed int64 `json:"computeUnitsUsed"`
	// RunsCompleted counts runs that reached completed.
	// +optional
	RunsCompleted int32 `json:"runsCompleted"`
	// RunsTotal counts every run ever submitted to the campaign.
	// +optional
	RunsTotal int32 `json:"runsTotal"`
	// RunsActive counts queued and running runs.
	// +optional
	RunsActive int32 `json:"runsActive"`
	// Retired is what deleted runs of the campaign used. Budget is spent when a run runs;
	// deleting the Run does not give it back (issue 14), so the counters above include it.
	// +optional
	Retired *RetiredUsage `json:"retired,omitempty"`
	// ObservedGovernance is the governance the controller last recorded; a change made
	// through the Kubernetes API is ledgered as policy_changed against it.
	// +optional
	ObservedGovernance *CampaignGovernance `json:"observedGovernance,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RetiredUsage is the budget used by runs that were deleted.
type RetiredUsage struct {
	// ComputeUnits the deleted runs used.
	// +optional
	ComputeUnits int64 `json:"computeUnits"`
	// Runs is how many runs were deleted.
	// +optional
	Runs int32 `json:"runs"`
	// RunsCompleted is how many of them had completed.
	// +optional
	RunsCompleted int32 `json:"runsCompleted"`
	// RunUIDs are the most recently retired runs, so a deletion that is retried is counted
	// once; a run's uid is needed only until its finalizer is removed.
	// +kubebuilder:validation:MaxItems=256
	// +optional
	RunUIDs []string `json:"runUIDs,omitempty"`
}

// Campaign is a budgeted series of runs in a project.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=camp,categories=disco
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Project",type=string,JSONPath=`.status.projectRef.name`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Units",type=string,JSONPath=`.status.computeUnitsUsed`,description="compute units used"
// +kubebuilder:printcolumn:name="Budget",type=integer,JSONPath=`.spec.budget.computeUnits`
// +kubebuilder:printcolumn:name="Runs",type=integer,JSONPath=`.status.runsTotal`
// +kubebuilder:printcolumn:name="Max Runs",type=integer,JSONPath=`.spec.budget.maxRuns`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Campaign struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CampaignSpec   `json:"spec,omitempty"`
	Status CampaignStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CampaignList is a list of campaigns.
type CampaignList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Campaign `json:"items"`
}

func init() { SchemeBuilder.Register(&Campaign{}, &CampaignList{}) }
