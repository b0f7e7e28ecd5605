package v1alpha1

// Labels put on every namespaced disco object so the facade and the controllers can select
// children without walking owner references.
const (
	LabelTenant   = "discovery.disco.dev/tenant"
	LabelProject  = "discovery.disco.dev/project"
	LabelCampaign = "discovery.disco.dev/campaign"
	LabelRun      = "discovery.disco.dev/run"
	LabelDataset  = "discovery.disco.dev/dataset"

	// LabelManagedBy (value "disco") marks the objects disco made itself in a tenant's
	// namespace (the namespace, engine identities, quotas), so that it only ever deletes
	// its own (the Kubernetes recommended label app.kubernetes.io/managed-by).
	LabelManagedBy = "app.kubernetes.io/managed-by"

	// AnnotationCancelRequested asks for a run to be cancelled. A Run's spec is immutable, so
	// cancellation is a request on the object's metadata (value: RFC 3339 time and actor).
	AnnotationCancelRequested = "discovery.disco.dev/cancel-requested"

	// AnnotationGovernanceChangedBy names the Kubernetes user whose request changed a
	// project's or campaign's governance; the admission webhook sets it, the controller
	// ledgers the change as policy_changed with that actor and removes it.
	AnnotationGovernanceChangedBy = "discovery.disco.dev/governance-changed-by"

	// Finalizer is held by every disco object whose deletion needs clean-up.
	Finalizer = "discovery.disco.dev/finalizer"
)

// Tier is a Truth Dial tier; explore < validate < publish.
// +kubebuilder:validation:Enum=explore;validate;publish
type Tier string

const (
	TierExplore  Tier = "explore"
	TierValidate Tier = "validate"
	TierPublish  Tier = "publish"
)

// Rank orders tiers: explore 0, validate 1, publish 2, unknown -1.
func (t Tier) Rank() int {
	switch t {
	case TierExplore:
		return 0
	case TierValidate:
		return 1
	case TierPublish:
		return 2
	}
	return -1
}

// Mode is a discovery mode; the wire values of the REST contract.
// +kubebuilder:validation:Enum=symbolic;neural;neuro_symbolic;causal
type Mode string

const (
	ModeSymbolic      Mode = "symbolic"
	ModeNeural        Mode = "neural"
	ModeNeuroSymbolic Mode = "neuro_symbolic"
	ModeCausal        Mode = "causal"
)

// GovernanceSettings are the promotion rules of a project.
type GovernanceSettings struct {
	// PromotionCeiling is the highest tier a claim may be promoted to.
	// +kubebuilder:default=validate
	// +optional
	PromotionCeiling Tier `json:"promotionCeiling,omitempty"`

	// RequireNegativeControls refuses promotion of claims whose negative controls did not pass.
	// +kubebuilder:default=true
	// +optional
	RequireNegativeControls *bool `json:"requireNegativeControls,omitempty"`

	// TruthDialThreshold is the minimum Truth Dial score for promotion, 0..1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +kubebuilder:default=0.7
	// +optional
	TruthDialThreshold *float64 `json:"truthDialThreshold,omitempty"`
}
