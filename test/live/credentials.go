package live

import (
	"encoding/json"
	"fmt"
	"os"
)

// Credentials is the credentials.json that `disco dev` and hack/cluster.sh write: the
// facade's base URL (with /v1), an admin API key, its tenant and the tenant's namespace, and
// a kubeconfig for the Kubernetes API. `disco dev` also writes a normal user's kubeconfig
// and the dashboard's address and sign-in.
type Credentials struct {
	BaseURL    string `json:"base_url"`
	APIKey     string `json:"api_key"`
	TenantID   string `json:"tenant_id"`
	Namespace  string `json:"namespace"`
	Kubeconfig string `json:"kubeconfig"`
	// KubeconfigUser is a normal user holding disco-editor in Namespace (disco dev only).
	KubeconfigUser string `json:"kubeconfig_user"`
	// The dashboard's address and the user who signs in to it (disco dev only).
	DashboardURL      string `json:"dashboard_url"`
	DashboardUser     string `json:"dashboard_user"`
	DashboardPassword string `json:"dashboard_password"`
}

// ReadCredentials reads the credentials file at path, and fails when it names no base URL
// or API key.
func ReadCredentials(path string) (Credentials, error) {
	var c Credentials
	raw, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("%s: not a credentials file: %w", path, err)
	}
	if c.BaseURL == "" || c.APIKey == "" {
		return c, fmt.Errorf("%s: not a credentials file: no base_url or api_key", path)
	}
	return c, nil
}
