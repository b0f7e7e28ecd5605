// Package v1alpha1 holds the custom resources of disco: Tenant, Project, Campaign, Run,
// Claim and Dataset, in the API group discovery.disco.dev.
//
// +kubebuilder:object:generate=true
// +groupName=discovery.disco.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every disco custom resource.
	GroupVersion = schema.GroupVersion{Group: "discovery.disco.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion} //nolint:staticcheck // kubebuilder's scaffold; the package already imports controller-runtime for its markers' types

	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
