// Package users is the room of the tenant's users (issue 15): the people who sign in
// through the OAuth authorization step, created by `disco users`. Admins list them, and
// disable, enable or delete them; disabling or deleting a user ends their sessions at
// once.
package users

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// manageRule is who may manage users, as the API documents it.
const manageRule = "Managing users needs the scope that manages credentials, and a caller not restricted to projects: " +
	"a user's sessions reach every project of the tenant. Users of other tenants are answered 404."

// Deps is what the users room needs.
type Deps struct {
	Kit *resource.Kit
	// Store keeps the users.
	Store *store.Store
}

type handlers struct{ Deps }

// Register adds the users operations under /users. They need auth.APIKeysWrite, the scope
// of the other credential rooms (API keys, OAuth clients): users hold sessions, which are
// credentials.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/users")
	tags := []string{"Users"}
	transport.Register(g, huma.Operation{
		OperationID: "listUsers", Method: http.MethodGet, Path: "",
		Summary: "List users", Tags: tags, Description: manageRule,
	}, auth.APIKeysWrite, s.listUsers)
	transport.Register(g, huma.Operation{
		OperationID: "getUser", Method: http.MethodGet, Path: "/{user_id}",
		Summary: "Get a user", Tags: tags, Description: manageRule, Errors: []int{http.StatusNotFound},
	}, auth.APIKeysWrite, s.getUser)
	transport.Register(g, huma.Operation{
		OperationID: "disableUser", Method: http.MethodPost, Path: "/{user_id}/disable",
		Summary: "Disable a user", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "The user can no longer sign in, and every session they hold stops working at once. Disabling a " +
			"disabled user keeps the time it was first disabled. A user cannot disable themselves. " + manageRule,
	}, auth.APIKeysWrite, s.disableUser)
	transport.Register(g, huma.Operation{
		OperationID: "enableUser", Method: http.MethodPost, Path: "/{user_id}/enable",
		Summary: "Enable a user", Tags: tags, Errors: []int{http.StatusNotFound},
		Description: "The user can sign in again; sessions ended by disabling stay ended. " + manageRule,
	}, auth.APIKeysWrite, s.enableUser)
	transport.Register(g, huma.Operation{
		OperationID: "deleteUser", Method: http.MethodDelete, Path: "/{user_id}",
		Summary: "Delete a user", Tags: tags, DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound, http.StatusConflict},
		Description: "Every session of the user stops working at once. A user cannot delete themselves. " + manageRule,
	}, auth.APIKeysWrite, s.deleteUser)
}

// manager checks that the caller may manage users and returns its tenant id.
func manager(ctx context.Context) (*auth.Principal, string, error) {
	p, t := auth.Who(ctx)
	if p.Restricted() {
		return nil, "", apierror.New(http.StatusForbidden, apierror.CodeForbidden,
			"an API key restricted to projects cannot manage users, whose sessions reach every project; use a key without a project restriction")
	}
	return p, t.ID, nil
}

var userSort = pagination.Spec[store.User]{
	Name: "users",
	Fields: map[string]func(store.User) pagination.Key{
		"created_at": func(u store.User) pagination.Key { return pagination.Time(u.CreatedAt) },
		"username":   func(u store.User) pagination.Key { return pagination.String(u.Username) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(u store.User) string { return u.ID },
}

func (s *handlers) listUsers(ctx context.Context, in *struct {
	resource.PageParams
	Sort   string `query:"sort" enum:"created_at,username"`
	Status string `query:"status" enum:"active,disabled"`
}) (*resource.ListOutput[User], error) {
	_, tenant, err := manager(ctx)
	if err != nil {
		return nil, err
	}
	items, err := resource.StoreAll(ctx, tenant, s.Store.ListUsers, userSort.ID, func(u store.User) bool {
		return in.Status == "" || userOf(u).Status == in.Status
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return resource.Paginate(s.Kit, items, userSort, in.PageParams, in.Sort, resource.FilterKey("status", in.Status), userOf)
}

// UserPath names one user.
type UserPath struct {
	UserID string `path:"user_id" maxLength:"64"`
}

// user reads the tenant's user id; a malformed id or another tenant's user is not found.
func (s *handlers) user(ctx context.Context, tenant, id string) (store.User, error) {
	if !ids.Valid(ids.User, id) {
		return store.User{}, apierror.NotFound("user", id)
	}
	u, err := s.Store.TenantUser(ctx, tenant, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, apierror.NotFound("user", id)
	}
	if err != nil {
		return store.User{}, apierror.Internal(err)
	}
	return u, nil
}

type userOutput struct{ Body User }

func (s *handlers) getUser(ctx context.Context, in *UserPath) (*userOutput, error) {
	_, tenant, err := manager(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.user(ctx, tenant, in.UserID)
	if err != nil {
		return nil, err
	}
	return &userOutput{Body: userOf(u)}, nil
}

func (s *handlers) disableUser(ctx context.Context, in *UserPath) (*userOutput, error) {
	return s.change(ctx, in.UserID, "disable", s.Store.DisableTenantUser)
}

func (s *handlers) enableUser(ctx context.Context, in *UserPath) (*userOutput, error) {
	return s.change(ctx, in.UserID, "", s.Store.EnableTenantUser)
}

func (s *handlers) deleteUser(ctx context.Context, in *UserPath) (*struct{}, error) {
	if _, err := s.change(ctx, in.UserID, "delete", s.Store.DeleteTenantUser); err != nil {
		return nil, err
	}
	return &struct{}{}, nil
}

// change applies f to the tenant's user id and answers the user as it now is (nothing
// after a delete). selfRefused names the change when a user may not make it to
// themselves: it would lock them out with no one left signed in to undo it.
func (s *handlers) change(ctx context.Context, id, selfRefused string, f func(ctx context.Context, tenantID, id string) error) (*userOutput, error) {
	p, tenant, err := manager(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.user(ctx, tenant, id); err != nil {
		return nil, err
	}
	if selfRefused != "" && p.Kind == auth.KindSession && p.Actor == id {
		return nil, apierror.Conflict("you cannot %s your own user; ask another admin, or use `disco users`", selfRefused).With("user_id", id)
	}
	err = f(ctx, tenant, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierror.NotFound("user", id) // deleted meanwhile
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	if selfRefused == "delete" {
		return nil, nil
	}
	u, err := s.user(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	return &userOutput{Body: userOf(u)}, nil
}
