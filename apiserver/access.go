package apiserver

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/ids"
)

// who returns the authenticated caller of an operation; authorize has already refused
// requests without one.
func who(ctx context.Context) (*auth.Principal, *tenant) {
	c := callerFrom(ctx)
	return c.principal, c.tenant
}

// getIn reads a namespaced object of the caller's tenant by id; anything that is not
// there (wrong prefix, another tenant, not yet created) is the same 404.
func (s *Server) getIn(ctx context.Context, kind, prefix, id string, obj client.Object) error {
	_, t := who(ctx)
	if !ids.Valid(prefix, id) {
		return apierror.NotFound(kind, id)
	}
	err := s.get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: ids.ToName(id)}, obj)
	if apierrors.IsNotFound(err) {
		return apierror.NotFound(kind, id)
	}
	if err != nil {
		return internalError(err)
	}
	return nil
}

// project loads a project the caller may reach: of the caller's tenant and, for a key
// restricted to projects, one of those. Others answer 404, never 403, so ids of other
// tenants' projects cannot be probed.
func (s *Server) project(ctx context.Context, id string) (*discov1.Project, error) {
	p, t := who(ctx)
	if !p.AllowsProject(id) {
		return nil, apierror.NotFound("project", id)
	}
	var proj discov1.Project
	if err := s.getIn(ctx, "project", ids.Project, id, &proj); err != nil {
		return nil, err
	}
	if proj.Spec.TenantID != t.ID || proj.DeletionTimestamp != nil {
		return nil, apierror.NotFound("project", id)
	}
	return &proj, nil
}

// campaign loads a campaign of a reachable project.
func (s *Server) campaign(ctx context.Context, projectID, id string) (*discov1.Project, *discov1.Campaign, error) {
	proj, err := s.project(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var c discov1.Campaign
	if err := s.getIn(ctx, "campaign", ids.Campaign, id, &c); err != nil {
		return nil, nil, err
	}
	if c.Spec.ProjectID != projectID {
		return nil, nil, apierror.NotFound("campaign", id)
	}
	return proj, &c, nil
}

// writeErrorOf maps an API server error of a write to the facade's answer.
func writeErrorOf(err error, kind, id string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err):
		return apierror.Conflict("the %s was modified concurrently; read it again and retry", kind).With("resource", kind).With("id", id)
	case apierrors.IsAlreadyExists(err):
		return apierror.Conflict("the %s already exists", kind).With("resource", kind).With("id", id)
	case apierrors.IsNotFound(err) && notFoundKind(err) == "namespaces":
		// The tenant namespace is missing: the controller has not set the tenant up yet.
		return apierror.New(http.StatusServiceUnavailable, apierror.CodeUnavailable, "the tenant is not ready yet; retry shortly").WithCause(err)
	case apierrors.IsNotFound(err):
		return apierror.NotFound(kind, id)
	case apierrors.IsInvalid(err):
		return apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the %s was rejected: %s", kind, apiStatusMessage(err)).
			With("fields", invalidFields(err))
	}
	return internalError(err)
}

func notFoundKind(err error) string {
	if se, ok := err.(apierrors.APIStatus); ok && se.Status().Details != nil {
		return se.Status().Details.Kind
	}
	return ""
}

func apiStatusMessage(err error) string {
	if se, ok := err.(apierrors.APIStatus); ok {
		return se.Status().Message
	}
	return err.Error()
}

func invalidFields(err error) []apierror.Field {
	out := []apierror.Field{}
	if se, ok := err.(apierrors.APIStatus); ok && se.Status().Details != nil {
		for _, c := range se.Status().Details.Causes {
			out = append(out, apierror.Field{Field: c.Field, Message: c.Message})
		}
	}
	return out
}

// labels are put on every object the facade creates.
func labels(tenantID string, kv ...string) map[string]string {
	m := map[string]string{discov1.LabelTenant: tenantID}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
