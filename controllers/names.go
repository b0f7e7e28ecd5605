package controllers

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/internal/ids"
)

// Object names are ids with the first "_" replaced by "-"; these helpers keep that mapping
// in one place for the reconcilers.
func tenantObjectName(tenantID string) string { return ids.ToName(tenantID) }
func projectID(o client.Object) string        { return ids.FromName(o.GetName()) }
func objectKey(namespace, id string) client.ObjectKey {
	return client.ObjectKey{Namespace: namespace, Name: ids.ToName(id)}
}
