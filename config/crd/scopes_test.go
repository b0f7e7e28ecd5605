package crd

import (
	"slices"
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/auth"
)

// A Tenant's spec.apiKeys[].scopes names the REST API's scopes: the CRD's enum, the list
// the controller grants for "every scope" (discov1.APIKeyScopes) and the facade's
// (auth.All) are the same, so that a declared key is neither refused for a real scope nor
// given one the facade does not know.
func TestTenantAPIKeyScopesAreTheFacades(t *testing.T) {
	crds, err := All()
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, crd := range crds {
		if crd.Spec.Names.Kind != "Tenant" {
			continue
		}
		items := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["apiKeys"].Items.Schema.Properties["scopes"].Items.Schema
		for _, v := range items.Enum {
			enum = append(enum, string(v.Raw[1:len(v.Raw)-1]))
		}
	}
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	if !slices.Equal(sorted(enum), sorted(auth.All)) {
		t.Errorf("CRD enum %v, facade scopes %v", enum, auth.All)
	}
	if !slices.Equal(sorted(discov1.APIKeyScopes), sorted(auth.All)) {
		t.Errorf("discov1.APIKeyScopes %v, facade scopes %v", discov1.APIKeyScopes, auth.All)
	}
}
