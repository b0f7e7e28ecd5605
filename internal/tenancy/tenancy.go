// Package tenancy answers which tenant a namespace belongs to, for the reconcilers and the
// run execution alike. The tenant controller labels each tenant's namespace with the tenant
// id (discov1.LabelTenant) and never moves a namespace to another tenant, so the label is
// the record.
package tenancy

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/lookup"
)

// OfNamespace is the id of the tenant a namespace belongs to: its tenant label. A namespace
// without a valid label belongs to no tenant, which is an error.
func OfNamespace(ctx context.Context, c client.Reader, namespace string) (string, error) {
	ns := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return "", fmt.Errorf("namespace %s: %w", namespace, err)
	}
	if t := ns.Labels[discov1.LabelTenant]; ids.Valid(ids.Tenant, t) {
		return t, nil
	}
	return "", ErrNoTenant(namespace)
}

// ErrNoTenant is the error of a namespace that belongs to no tenant.
func ErrNoTenant(namespace string) error {
	return fmt.Errorf("namespace %s belongs to no tenant; runs execute only in a tenant's namespace", namespace)
}

// TenantOf is the Tenant a namespace belongs to, or nil when the namespace, its label or
// the Tenant cannot be read.
func TenantOf(ctx context.Context, c client.Reader, namespace string) *discov1.Tenant {
	ns := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return nil
	}
	t := &discov1.Tenant{}
	if err := Get(ctx, c, ns.Labels[discov1.LabelTenant], t); err != nil {
		return nil
	}
	return t
}

// Get reads the Tenant with the public id into t. A Tenant created through the REST API or
// `disco dev` is named by its id (ids.ToName); one applied with kubectl may have a human
// name, and is found by the LabelID the tenant controller puts on it. The label is only an
// index: a Tenant counts only when its own name derives the id, so a label copied onto
// another Tenant finds nothing.
func Get(ctx context.Context, c client.Reader, id string, t *discov1.Tenant) error {
	if !ids.Valid(ids.Tenant, id) {
		return apierrors.NewNotFound(discov1.GroupVersion.WithResource("tenants").GroupResource(), id)
	}
	return lookup.ByID(ctx, c, "", id, t)
}
