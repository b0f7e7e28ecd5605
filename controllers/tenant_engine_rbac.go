package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LegacyEngineServiceAccount is the namespace-wide engine identity that earlier versions
// gave every tenant namespace (a ServiceAccount and a RoleBinding to the ClusterRole of
// the same name). It could patch the status of every run of the namespace, which let a
// Job's pod point any run at another tenant's blobs and lower the used compute (issue 17
// item 2). Each run's Job now runs as its own identity (EngineIdentity).
const LegacyEngineServiceAccount = "disco-engine"

// removeLegacyEngineRBAC leaves the tenant namespace without a namespace-wide engine grant: it
// deletes the legacy ServiceAccount and RoleBinding if disco created them (labelled
// managed-by disco), and never touches objects of that name that others made.
func removeLegacyEngineRBAC(ctx context.Context, c client.Client, namespace string) error {
	for _, obj := range []client.Object{&rbacv1.RoleBinding{}, &corev1.ServiceAccount{}} {
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: LegacyEngineServiceAccount}, obj)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if obj.GetLabels()[LabelManagedBy] != "disco" {
			continue
		}
		if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}
