// Package lookup finds disco objects by their public id, whether they were created through
// the REST API (named by the id, ids.ToName) or applied with kubectl under a human name
// (issue 14, item 6), for the controllers and the facade alike.
package lookup

import (
	"context"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// ByID reads into obj (a *Project, *Campaign, *Dataset or *Run, or a *Tenant with namespace
// "") the object of namespace whose public id is id: the object named by the id, else the one ByLabel finds.
func ByID(ctx context.Context, c client.Reader, namespace, id string, obj client.Object) error {
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ids.ToName(id)}, obj)
	if !apierrors.IsNotFound(err) {
		return err
	}
	return ByLabel(ctx, c, namespace, id, obj)
}

// Ref reads into obj the object a reference of namespace names: by its name when the
// reference gives one ({name: signalling}), else by its public id (ByID), as a child the
// REST API created refers to a parent that may have been applied under a human name.
func Ref(ctx context.Context, c client.Reader, namespace string, ref *discov1.ObjectRef, id string, obj client.Object) error {
	if ref != nil && ref.Name != "" {
		return c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, obj)
	}
	return ByID(ctx, c, namespace, id, obj)
}

// ByLabel reads into obj the human-named object of namespace whose label
// discovery.disco.dev/id (set by its controller) is id. The label is only a hint: the
// object's own namespace and name must derive the id (discov1.PublicIDFor), so a label
// copied onto another object finds nothing. Nothing found is apierrors' NotFound.
func ByLabel(ctx context.Context, c client.Reader, namespace, id string, obj client.Object) error {
	var list client.ObjectList
	var prefix string
	switch obj.(type) {
	case *discov1.Tenant: // cluster-scoped: namespace is ""
		list, prefix = &discov1.TenantList{}, ids.Tenant
	case *discov1.Project:
		list, prefix = &discov1.ProjectList{}, ids.Project
	case *discov1.Campaign:
		list, prefix = &discov1.CampaignList{}, ids.Campaign
	case *discov1.Dataset:
		list, prefix = &discov1.DatasetList{}, ids.Dataset
	case *discov1.Run:
		list, prefix = &discov1.RunList{}, ids.Run
	}
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: discov1.GroupVersion.Group}, ids.ToName(id))
	if list == nil || !ids.Valid(prefix, id) {
		return notFound
	}
	if err := c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{discov1.LabelID: id}); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		if o, ok := item.(client.Object); ok && discov1.PublicIDFor(prefix, o.GetNamespace(), o.GetName()) == id {
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(o).Elem())
			return nil
		}
	}
	return notFound
}
