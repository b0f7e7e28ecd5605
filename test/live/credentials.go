package live

// Credentials is the credentials.json that `disco dev` and hack/cluster.sh write: the
// facade's base URL (with /v1), an admin API key, its tenant and the tenant's namespace, and
// a kubeconfig for the Kubernetes API.
type Credentials struct {
	BaseURL    string `json:"base_url"`
	APIKey     string `json:"api_key"`
	TenantID   string `json:"tenant_id"`
	Namespace  string `json:"namespace"`
	Kubeconfig string `json:"kubeconfig"`
}
