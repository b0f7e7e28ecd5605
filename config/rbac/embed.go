// Package rbac embeds the ClusterRoles for disco's users, so `disco dev` and the envtest
// suites grant the same roles the cluster manifests install.
package rbac

import (
	"bytes"
	_ "embed"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

//go:embed user_roles.yaml
var userRoles []byte

// UserRoles returns the ClusterRoles of user_roles.yaml (disco-viewer, disco-editor,
// disco-promoter, disco-admin).
func UserRoles() ([]*rbacv1.ClusterRole, error) {
	var out []*rbacv1.ClusterRole
	for _, doc := range bytes.Split(userRoles, []byte("\n---")) {
		if len(bytes.TrimSpace(bytes.TrimLeft(doc, "-"))) == 0 {
			continue
		}
		r := &rbacv1.ClusterRole{}
		if err := yaml.UnmarshalStrict(doc, r); err != nil {
			return nil, fmt.Errorf("user_roles.yaml: %w", err)
		}
		if r.Name != "" {
			out = append(out, r)
		}
	}
	return out, nil
}
