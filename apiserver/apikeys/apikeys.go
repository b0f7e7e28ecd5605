package apikeys

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// defaultRollGrace keeps a rolled key working for a day, so deployments can switch to the
// new key without an outage.
const defaultRollGrace = 24 * time.Hour

// manageRule is the rule of covers, as the API documents it.
const manageRule = "A caller manages only keys no stronger than itself: keys whose scopes it holds all of and whose projects " +
	"are within its own (a key restricted to projects manages only keys restricted to some of them). Other keys are " +
	"answered 404 and left out of lists."

// Deps is what the apikeys room needs.
type Deps struct {
	Kit *resource.Kit
	// Store keeps the keys.
	Store *store.Store
	// Forget drops a revoked or rolled key from the authenticator's cache.
	Forget func(keyID string)
}

type handlers struct{ Deps }

// Register adds the apikeys operations under /api-keys.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/api-keys")
	transport.Register(g, huma.Operation{
		OperationID: "createAPIKey", Method: http.MethodPost, Path: "",
		Summary: "Create an API key", Tags: []string{"API keys"}, DefaultStatus: http.StatusCreated,
		Description: "The response carries the key once; only its SHA-256 is stored.",
		Errors:      []int{http.StatusNotFound},
	}, auth.APIKeysWrite, s.createAPIKey)
	transport.Register(g, huma.Operation{
		OperationID: "listAPIKeys", Method: http.MethodGet, Path: "",
		Summary: "List API keys", Tags: []string{"API keys"}, Description: manageRule,
	}, auth.APIKeysWrite, s.listAPIKeys)
	transport.Register(g, huma.Operation{
		OperationID: "getAPIKey", Method: http.MethodGet, Path: "/{key_id}",
		Summary: "Get an API key", Tags: []string{"API keys"}, Errors: []int{http.StatusNotFound}, Description: manageRule,
	}, auth.APIKeysWrite, s.getAPIKey)
	transport.Register(g, huma.Operation{
		OperationID: "rollAPIKey", Method: http.MethodPost, Path: "/{key_id}/roll",
		Summary: "Roll an API key", Tags: []string{"API keys"}, DefaultStatus: http.StatusCreated,
		Description: "Issues a replacement with the same name, scopes, projects and expiry; the old key keeps " +
			"working for grace_period_seconds (default 86400) so rotation does not disrupt running clients. " + manageRule,
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.APIKeysWrite, s.rollAPIKey)
	transport.Register(g, huma.Operation{
		OperationID: "revokeAPIKey", Method: http.MethodDelete, Path: "/{key_id}",
		Summary: "Revoke an API key", Tags: []string{"API keys"}, DefaultStatus: http.StatusNoContent,
		Description: "The key stops working at once on the replica of the facade that answers this request, and within " +
			"5 seconds on the others: each replica keeps a verified key for up to 5 seconds. " + manageRule,
		Errors: []int{http.StatusNotFound},
	}, auth.APIKeysWrite, s.revokeAPIKey)
}

func (s *handlers) createAPIKey(ctx context.Context, in *struct{ Body apiKeyCreate }) (*newAPIKeyOutput, error) {
	p, t := auth.Who(ctx)
	if err := transport.CheckText(transport.NameText("body.name", in.Body.Name)); err != nil {
		return nil, err
	}
	scopes := in.Body.Scopes
	if len(scopes) == 0 {
		scopes = p.Scopes
	}
	for i, sc := range scopes {
		if !auth.Valid(sc) {
			return nil, apierror.Invalid("body.scopes["+strconv.Itoa(i)+"]", "unknown scope "+sc)
		}
		if !p.Has(sc) {
			return nil, apierror.New(http.StatusForbidden, apierror.CodeInsufficientScope,
				"a key cannot grant the scope %s, which its creator does not hold", sc).With("required_scope", sc)
		}
	}
	projects := slices.Compact(slices.Sorted(slices.Values(in.Body.ProjectIDs)))
	if p.Restricted() && len(projects) == 0 {
		projects = p.ProjectIDs
	}
	for _, pid := range projects {
		if _, err := s.Kit.Project(ctx, pid); err != nil {
			return nil, err
		}
	}
	if e := in.Body.ExpiresAt; e != nil && !e.After(s.Kit.Now()) {
		return nil, apierror.Invalid("body.expires_at", "must be in the future")
	}
	k, plain, err := s.Store.CreateAPIKey(ctx, store.NewAPIKey{
		TenantID: t.ID, Name: in.Body.Name, Scopes: slices.Compact(slices.Sorted(slices.Values(scopes))),
		ProjectIDs: projects, CreatedBy: p.Actor, ExpiresAt: in.Body.ExpiresAt,
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return s.newAPIKey(k, plain), nil
}

// visibleKey reports whether the caller may manage k.
func visibleKey(p *auth.Principal, k store.APIKey) bool { return p.Covers(k.Scopes, k.ProjectIDs) }

var apiKeySort = pagination.Spec[store.APIKey]{
	Name: "api_keys",
	Fields: map[string]func(store.APIKey) pagination.Key{
		"created_at": func(k store.APIKey) pagination.Key { return pagination.Time(k.CreatedAt) },
		"name":       func(k store.APIKey) pagination.Key { return pagination.String(k.Name) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(k store.APIKey) string { return k.ID },
}

func (s *handlers) listAPIKeys(ctx context.Context, in *struct {
	resource.PageParams
	Sort   string `query:"sort" enum:"created_at,name"`
	Status string `query:"status" enum:"active,rolled,revoked,expired"`
}) (*resource.ListOutput[APIKey], error) {
	p, t := auth.Who(ctx)
	items, err := resource.StoreAll(ctx, t.ID, s.Store.ListAPIKeys, apiKeySort.ID, func(k store.APIKey) bool {
		return visibleKey(p, k) && (in.Status == "" || s.apiKeyOf(k).Status == in.Status)
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return resource.Paginate(s.Kit, items, apiKeySort, in.PageParams, in.Sort, resource.FilterKey("status", in.Status), s.apiKeyOf)
}

type APIKeyPath struct {
	KeyID string `path:"key_id" maxLength:"64"`
}

func (s *handlers) apiKey(ctx context.Context, id string) (store.APIKey, error) {
	p, t := auth.Who(ctx)
	if !ids.Valid(ids.APIKey, id) {
		return store.APIKey{}, apierror.NotFound("API key", id)
	}
	k, err := s.Store.APIKeyByID(ctx, t.ID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !visibleKey(p, k)) {
		return store.APIKey{}, apierror.NotFound("API key", id)
	}
	if err != nil {
		return store.APIKey{}, apierror.Internal(err)
	}
	return k, nil
}

func (s *handlers) getAPIKey(ctx context.Context, in *APIKeyPath) (*struct{ Body APIKey }, error) {
	k, err := s.apiKey(ctx, in.KeyID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body APIKey }{Body: s.apiKeyOf(k)}, nil
}

func (s *handlers) rollAPIKey(ctx context.Context, in *struct {
	APIKeyPath
	Body *struct {
		GracePeriodSeconds *int `json:"grace_period_seconds,omitempty" minimum:"0" maximum:"604800" doc:"How long the old key keeps working; default 86400."`
	}
}) (*newAPIKeyOutput, error) {
	p, t := auth.Who(ctx)
	if _, err := s.apiKey(ctx, in.KeyID); err != nil {
		return nil, err
	}
	grace := defaultRollGrace
	if in.Body != nil && in.Body.GracePeriodSeconds != nil {
		grace = time.Duration(*in.Body.GracePeriodSeconds) * time.Second
	}
	k, plain, err := s.Store.RollAPIKey(ctx, t.ID, in.KeyID, p.Actor, grace)
	if errors.Is(err, store.ErrConflict) {
		return nil, apierror.Conflict("the key has already been rolled or revoked").With("key_id", in.KeyID)
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	s.Forget(in.KeyID)
	return s.newAPIKey(k, plain), nil
}

func (s *handlers) revokeAPIKey(ctx context.Context, in *APIKeyPath) (*struct{}, error) {
	_, t := auth.Who(ctx)
	if _, err := s.apiKey(ctx, in.KeyID); err != nil {
		return nil, err
	}
	if err := s.Store.RevokeAPIKey(ctx, t.ID, in.KeyID); err != nil {
		return nil, apierror.Internal(err)
	}
	s.Forget(in.KeyID)
	return &struct{}{}, nil
}
