package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProjectState is the lifecycle state a user asks for.
// +kubebuilder:validation:Enum=active;archived
type ProjectState string

const (
	ProjectActive   ProjectState = "active"
	ProjectArchived ProjectState = "archived"
)

// ProjectSettings are a project's defaults and governance.
type ProjectSettings struct {
	// DefaultMode is the mode of runs submitted without one.
	// +kubebuilder:default=symbolic
	// +optional
	DefaultMode Mode `json:"defaultMode,omitempty"`

	// Governance holds the promotion rules.
	// +kubebuilder:default={}
	// +optional
	Governance GovernanceSettings `json:"governance,omitempty"`
}

// ProjectSpec is the desired state of a project.
type ProjectSpec struct {
	// DisplayName is the project name shown to users.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	DisplayName string `json:"displayName"`

	// Description says what the project studies.
	// +kubebuilder:validation:MaxLength=4000
	// +optional
	Description string `json:"description,omitempty"`

	// TenantID owns the project (ten_ prefix). Immutable.
	// +kubebuilder:validation:Pattern=`^ten_[a-z2-7]{26}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="tenantID is immutable"
	TenantID string `json:"tenantID"`

	// State is active or archived.
	// +kubebuilder:default=active
	// +optional
	State ProjectState `json:"state,omitempty"`

	// Settings are the project's defaults and governance. Changing the governance needs
	// update on projects/governance (the disco-promoter role) and is ledgered.
	// +kubebuilder:default={}
	// +optional
	Settings ProjectSettings `json:"settings,omitempty"`

	// CreatedBy is the user or API key that created the project.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CreatedBy string `json:"createdBy,omitempty"`
}

// ProjectStatus is the observed state of a project.
type ProjectStatus struct {
	// Phase mirrors spec.state once the controller has seen it.
	// +optional
	Phase ProjectState `json:"phase,omitempty"`

	// ObservedGovernance is the governance the controller last recorded; a change made
	// through the Kubernetes API is ledgered as policy_changed against it.
	// +optional
	ObservedGovernance *GovernanceSettings `json:"observedGovernance,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Project groups campaigns, datasets, claims and a ledger.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=proj,categories=disco
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.state`
// +kubebuilder:printcolumn:name="Ceiling",type=string,JSONPath=`.spec.settings.governance.promotionCeiling`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Project struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProjectSpec   `json:"spec,omitempty"`
	Status ProjectStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProjectList is a list of projects.
type ProjectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Project `json:"items"`
}

func init() { SchemeBuilder.Register(&Project{}, &ProjectList{}) }
