package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// EngineServiceAccount runs the engine Jobs of a tenant's runs; EngineClusterRole (in
// config/rbac) lets it read its Run and Dataset and write the Run's status, nothing more.
const (
	EngineServiceAccount = "disco-engine"
	EngineClusterRole    = "disco-engine"
)

// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings,verbs=get;list;watch;create;update;patch
// The manager holds what it grants to the engine (RBAC forbids granting more than one has).
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=datasets,verbs=get
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs/status,verbs=get;patch;update

// ensureEngineRBAC gives a tenant namespace the engine's service account and its binding.
func ensureEngineRBAC(ctx context.Context, c client.Client, tenant *discov1.Tenant, namespace string) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: EngineServiceAccount, Namespace: namespace}}
	if _, err := controllerutil.CreateOrPatch(ctx, c, sa, func() error {
		if sa.Labels == nil {
			sa.Labels = map[string]string{}
		}
		sa.Labels[LabelManagedBy] = "disco"
		return nil
	}); err != nil {
		return err
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: EngineServiceAccount, Namespace: namespace}}
	_, err := controllerutil.CreateOrPatch(ctx, c, rb, func() error {
		if rb.Labels == nil {
			rb.Labels = map[string]string{}
		}
		rb.Labels[LabelManagedBy] = "disco"
		rb.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: EngineClusterRole}
		rb.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: EngineServiceAccount, Namespace: namespace}}
		return nil
	})
	return err
}
