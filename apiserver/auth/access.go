package auth

import (
	"context"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ids"
)

// Access reads objects on behalf of the request's caller: only of its tenant, and only
// projects its credential reaches. What it may not reach is not found, never forbidden
// (404, not 403), so ids of other tenants' objects cannot be probed.
type Access struct {
	Get Getter
	// List, when set, finds an object by its public id label (discov1.LabelID) when no
	// object is named by the id: one applied with kubectl under a human name.
	List Lister
}

// Lister lists objects (a controller-runtime client's List).
type Lister func(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error

// GetIn reads a namespaced object of the caller's tenant by id; anything that is not
// there (wrong prefix, another tenant, not yet created) is the same 404.
func (a Access) GetIn(ctx context.Context, kind, prefix, id string, obj client.Object) error {
	_, t := Who(ctx)
	if !ids.Valid(prefix, id) {
		return apierror.NotFound(kind, id)
	}
	err := a.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: ids.ToName(id)}, obj)
	if apierrors.IsNotFound(err) && a.List != nil {
		err = a.byID(ctx, t.Namespace, prefix, id, obj)
	}
	if apierrors.IsNotFound(err) {
		return apierror.NotFound(kind, id)
	}
	if err != nil {
		return apierror.Internal(err)
	}
	return nil
}

// Project loads a project the caller may reach: of the caller's tenant and, for a key
// restricted to projects, one of those. Others answer 404, never 403, so ids of other
// tenants' projects cannot be probed.
func (a Access) Project(ctx context.Context, id string) (*discov1.Project, error) {
	p, t := Who(ctx)
	if !p.AllowsProject(id) {
		return nil, apierror.NotFound("project", id)
	}
	var proj discov1.Project
	if err := a.GetIn(ctx, "project", ids.Project, id, &proj); err != nil {
		return nil, err
	}
	if proj.TenantID() != t.ID || proj.DeletionTimestamp != nil {
		return nil, apierror.NotFound("project", id)
	}
	return &proj, nil
}

// Campaign loads a campaign of a reachable project.
func (a Access) Campaign(ctx context.Context, projectID, id string) (*discov1.Project, *discov1.Campaign, error) {
	proj, err := a.Project(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var c discov1.Campaign
	if err := a.GetIn(ctx, "campaign", ids.Campaign, id, &c); err != nil {
		return nil, nil, err
	}
	if c.ProjectID() != projectID {
		return nil, nil, apierror.NotFound("campaign", id)
	}
	return proj, &c, nil
}

// byID reads into obj the object of namespace whose public id is id although its name is
// not ids.ToName(id): a human-named object applied with kubectl, found by the label
// discov1.LabelID its controller sets (issue 14, item 6). The label is only a hint: the
// object must derive that id from its own namespace and name (discov1.PublicIDFor), so a
// label copied onto another object finds nothing. Not found is apierrors' NotFound.
func (a Access) byID(ctx context.Context, namespace, prefix, id string, obj client.Object) error {
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: discov1.GroupVersion.Group}, ids.ToName(id))
	var list client.ObjectList
	switch obj.(type) {
	case *discov1.Project:
		list = &discov1.ProjectList{}
	case *discov1.Campaign:
		list = &discov1.CampaignList{}
	case *discov1.Dataset:
		list = &discov1.DatasetList{}
	case *discov1.Run:
		list = &discov1.RunList{}
	default:
		return notFound
	}
	if err := a.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{discov1.LabelID: id}); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, it := range items {
		o, ok := it.(client.Object)
		if ok && discov1.PublicIDFor(prefix, o.GetNamespace(), o.GetName()) == id && reflect.TypeOf(o) == reflect.TypeOf(obj) {
			reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(o).Elem())
			return nil
		}
	}
	return notFound
}
