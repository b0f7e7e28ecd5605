package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantTier sets a tenant's rate and concurrency limits.
// +kubebuilder:validation:Enum=free;team;enterprise
type TenantTier string

const (
	TenantTierFree       TenantTier = "free"
	TenantTierTeam       TenantTier = "team"
	TenantTierEnterprise TenantTier = "enterprise"
)

// TenantSpec is the desired state of a tenant.
// +kubebuilder:validation:XValidation:rule="has(self.__namespace__) == has(oldSelf.__namespace__) && (!has(self.__namespace__) || self.__namespace__ == oldSelf.__namespace__)",message="namespace is immutable"
type TenantSpec struct {
	// DisplayName is a human-readable name.
	// +kubebuilder:validation:MaxLength=200
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Tier sets rate limits and the concurrent-run limit.
	// +kubebuilder:default=free
	// +optional
	Tier TenantTier `json:"tier,omitempty"`

	// ConcurrentRuns overrides the tier's limit of runs executing at once (free 10, team 50,
	// enterprise 500); runs above it wait in queued with the WaitingForCapacity reason.
	// Set by cluster admins.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	ConcurrentRuns *int32 `json:"concurrentRuns,omitempty"`

	// Namespace holds the tenant's projects and everything under them. Defaults to
	// "disco-<tenant object name>". Immutable once set.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// LocalQueue names a Kueue LocalQueue in the tenant namespace; run Jobs are created
	// suspended with the kueue.x-k8s.io/queue-name label when set.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	LocalQueue string `json:"localQueue,omitempty"`

	// Quota overrides the ResourceQuota the tier gives the tenant namespace: each field set
	// replaces the tier's figure (controllers/tenant_quota.go lists them). Set by cluster
	// admins; the controller keeps the namespace's ResourceQuota "disco-tenant" to it.
	// +optional
	Quota *TenantQuota `json:"quota,omitempty"`

	// Groups are the Kubernetes groups whose members act for this tenant when they reach the
	// facade as an aggregated API.
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	// +optional
	Groups []string `json:"groups,omitempty"`

	// APIKeys are REST API keys the controller issues for the tenant, each written to a
	// Secret in the tenant's namespace (TenantAPIKey).
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	// +optional
	APIKeys []TenantAPIKey `json:"apiKeys,omitempty"`
}

// TenantQuota bounds what the pods of a tenant namespace hold together: the engine pods of
// its runs, and anything else created there.
type TenantQuota struct {
	// Pods is the most pods that may exist at once in the namespace, not counting finished
	// ones (quota resource "pods"). The tenant's concurrent-run limit is lowered to it, so
	// that runs beyond it wait in queued, in order, with the WaitingForCapacity reason.
	// Defaults to the tenant's concurrent-run limit, or the tier's if that is larger.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Pods *int32 `json:"pods,omitempty"`
	// CPU is the total CPU the namespace's pods may request (quota resource "requests.cpu").
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// Memory is the total memory the namespace's pods may request, and the total of their
	// memory limits (quota resources "requests.memory" and "limits.memory").
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// TenantStatus is the observed state of a tenant.
type TenantStatus struct {
	// ID is the tenant's public id (ten_ followed by 26 characters), which API keys, users
	// and the REST API name it by: read from metadata.name when the tenant was created
	// through disco (ten-<26 characters>), derived from it when the name is a person's
	// (physics-lab).
	// +optional
	ID string `json:"id,omitempty"`

	// Namespace is the namespace the controller ensured.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// ConcurrentRunLimit is the limit of runs executing at once in force: spec.concurrentRuns
	// or the tier's.
	// +optional
	ConcurrentRunLimit int32 `json:"concurrentRunLimit,omitempty"`
	// RunsRunning counts the tenant's runs executing now, against ConcurrentRunLimit.
	// +optional
	RunsRunning int32 `json:"runsRunning"`
	// RunsQueued counts the tenant's runs waiting to start.
	// +optional
	RunsQueued int32 `json:"runsQueued"`

	// APIKeys are the keys issued for spec.apiKeys.
	// +listType=map
	// +listMapKey=name
	// +optional
	APIKeys []IssuedAPIKey `json:"apiKeys,omitempty"`

	// Conditions: Ready (false while the tenant's LocalQueue or namespace is missing).
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// Tenant is an organisation using disco. Its id is the object name with "_" for the first "-".
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=ten,categories=disco
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.spec.tier`
// +kubebuilder:printcolumn:name="Namespace",type=string,JSONPath=`.status.namespace`
// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.runsRunning`
// +kubebuilder:printcolumn:name="Limit",type=integer,JSONPath=`.status.concurrentRunLimit`
// +kubebuilder:printcolumn:name="Queued",type=integer,JSONPath=`.status.runsQueued`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,priority=1
// +kubebuilder:validation:XValidation:rule="(has(self.spec) && has(self.spec.__namespace__)) || (size(self.metadata.name) <= 57 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",message="a tenant without spec.namespace gets the namespace disco-<name>, so its name must be a DNS label (lower-case letters, digits, '-') of at most 57 characters; or set spec.namespace"
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec,omitempty"`
	Status TenantStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TenantList is a list of tenants.
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}

func init() { SchemeBuilder.Register(&Tenant{}, &TenantList{}) }
