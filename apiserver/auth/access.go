package auth

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/lookup"
)

// Access reads objects on behalf of the request's caller: only of its tenant, and only
// projects its credential reaches. What it may not reach is not found, never forbidden
// (404, not 403), so ids of other tenants' objects cannot be probed.
type Access struct {
	// Reader reads the tenant's objects; an object is found by its public id as
	// lookup.ByID finds it, also when kubectl applied it under a human name.
	Reader client.Reader
}

// GetIn reads a namespaced object of the caller's tenant by id; anything that is not
// there (wrong prefix, another tenant, not yet created) is the same 404.
func (a Access) GetIn(ctx context.Context, kind, prefix, id string, obj client.Object) error {
	_, t := Who(ctx)
	if !ids.Valid(prefix, id) {
		return apierror.NotFound(kind, id)
	}
	err := lookup.ByID(ctx, a.Reader, t.Namespace, id, obj)
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
