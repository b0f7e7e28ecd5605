package crd

import (
	"maps"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestEveryFieldHasExplainText: `kubectl explain` shows a field's description, so every
// field of every disco kind has one (issue 14 item 8). A field without a doc comment on its
// Go type fails here, naming the path to document.
func TestEveryFieldHasExplainText(t *testing.T) {
	crds, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) == 0 {
		t.Fatal("no CRDs embedded")
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Errorf("%s %s has no schema", crd.Name, v.Name)
				continue
			}
			root := *v.Schema.OpenAPIV3Schema
			delete(root.Properties, "metadata") // Kubernetes' own ObjectMeta
			for _, path := range undescribed(root, crd.Spec.Names.Kind) {
				t.Errorf("%s: no description (kubectl explain shows nothing); add a doc comment to its Go field", path)
			}
		}
	}
}

// undescribed lists the paths below s without a description.
func undescribed(s apiextensionsv1.JSONSchemaProps, path string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		child := path + "." + name
		if p.Description == "" {
			out = append(out, child)
		}
		out = append(out, undescribed(p, child)...)
		if p.Items != nil && p.Items.Schema != nil {
			out = append(out, undescribed(*p.Items.Schema, child+"[]")...)
		}
	}
	return out
}

func TestUndescribedNamesTheFieldsWithoutText(t *testing.T) {
	s := apiextensionsv1.JSONSchemaProps{Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Description: "spec", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"seed":  {Type: "integer"},
			"mode":  {Description: "the mode"},
			"items": {Description: "list", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {}}}}},
		}},
	}}
	got := undescribed(s, "Run")
	want := []string{"Run.spec.items[].name", "Run.spec.seed"}
	if !slices.Equal(got, want) {
		t.Errorf("undescribed = %v, want %v", got, want)
	}
}
