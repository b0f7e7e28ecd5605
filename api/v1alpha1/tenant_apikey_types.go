package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantAPIKey asks the controller for an API key of the tenant, so that a tenant applied
// with kubectl reaches the REST API without a person creating a key (issue 14, item 7). The
// controller issues the key and writes it to the Secret disco-api-key-<name> in the
// tenant's namespace (keys DISCO_API_KEY, DISCO_API_KEY_ID and DISCO_TENANT_ID). Deleting
// the Secret, revoking the key over REST or changing its scopes issues a new key and
// revokes the old one; removing the entry revokes the key and deletes the Secret.
type TenantAPIKey struct {
	// Name names the key (GET /v1/api-keys shows it) and its Secret, disco-api-key-<name>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Scopes the key grants; empty grants every scope. One of projects:read,
	// projects:write, datasets:read, datasets:write, runs:read, runs:write, claims:read,
	// claims:write, ledger:read, webhooks:write, api_keys:write, governance:write.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Enum="projects:read";"projects:write";"datasets:read";"datasets:write";"runs:read";"runs:write";"claims:read";"claims:write";"ledger:read";"webhooks:write";"api_keys:write";"governance:write"
	// +listType=set
	// +optional
	Scopes []string `json:"scopes,omitempty"`
}

// SecretName is the Secret the key is written to.
func (k TenantAPIKey) SecretName() string { return "disco-api-key-" + k.Name }

// IssuedAPIKey is a key the controller issued for spec.apiKeys.
type IssuedAPIKey struct {
	// Name is the spec.apiKeys entry the key serves.
	Name string `json:"name"`
	// ID is the key's public id (key_ and 26 base32 characters).
	ID string `json:"id"`
	// SecretName is the Secret in the tenant's namespace that holds the key.
	SecretName string `json:"secretName"`
	// IssuedAt is when the key was issued.
	IssuedAt metav1.Time `json:"issuedAt"`
}

// APIKeyScopes are the scopes of the REST API (apiserver/auth.All), in the order the
// TenantAPIKey scopes enum lists them; a test keeps the three the same.
var APIKeyScopes = []string{
	"projects:read", "projects:write", "datasets:read", "datasets:write", "runs:read", "runs:write",
	"claims:read", "claims:write", "ledger:read", "webhooks:write", "api_keys:write", "governance:write",
}
