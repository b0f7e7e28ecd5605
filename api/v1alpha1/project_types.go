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
// +kubebuilder:validation:XValidation:rule="has(self.tenantID) == has(oldSelf.tenantID)",message="tenantID is immutable"
type ProjectSpec struct {
	// DisplayName is the project name shown to users. Empty: the object's metadata.name.
	// +kubebuilder:validation:MaxLength=200
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Description says what the project studies.
	// +kubebuilder:validation:MaxLength=4000
	// +optional
	Description string `json:"description,omitempty"`

	// TenantID owns the project: "ten_" and 26 base32 characters. The REST API sets it;
	// leave it out in a manifest, where the tenant is the one of the project's namespace
	// (status.tenantID). When set it must be that tenant. Immutable.
	// +kubebuilder:validation:Pattern=`^ten_[a-z2-7]{26}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="tenantID is immutable"
	// +optional
	TenantID string `json:"tenantID,omitempty"`

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
	// ID is the project's public id (proj_ and 26 base32 characters), the id the REST API
	// and the ledger use; also the label discovery.disco.dev/id. A project created through
	// the REST API is named by it; a human-named project's id is derived from its namespace
	// and name.
	// +optional
	ID string `json:"id,omitempty"`
	// TenantID is the tenant of the project's namespace.
	// +optional
	TenantID string `json:"tenantID,omitempty"`
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
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,priority=1
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
