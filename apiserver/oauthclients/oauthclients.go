package oauthclients

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/ory/fosite"
	"golang.org/x/crypto/bcrypt"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
)

// Create registers an OAuth client in st; it returns the client id, and the secret of a
// confidential client.
func Create(ctx context.Context, st *oauth.Storage, spec Spec) (string, string, error) {
	for _, u := range spec.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return "", "", err
		}
	}
	scopes := spec.Scopes
	if len(scopes) == 0 {
		scopes = auth.All
	}
	c := oauth.Client{
		DefaultClient: fosite.DefaultClient{
			ID: ids.New(ids.Client), RedirectURIs: spec.RedirectURIs, Scopes: slices.Clone(scopes), Public: spec.Public,
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		},
		TenantID: spec.TenantID, Name: spec.Name, CreatedBy: spec.CreatedBy, CreatedAt: time.Now().UTC(),
	}
	secret := ""
	if !spec.Public {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret = base64.RawURLEncoding.EncodeToString(b)
		hash, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.DefaultCost)
		if err != nil {
			return "", "", err
		}
		c.Secret = hash
	}
	if err := st.CreateClient(ctx, c); err != nil {
		return "", "", err
	}
	return c.ID, secret, nil
}

// checkRedirectURI accepts absolute https URIs, and http only for loopback hosts; no
// fragments (RFC 6749 3.1.2).
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
		return errors.New("redirect URI " + raw + " must be an absolute URI without a fragment")
	}
	h := u.Hostname()
	if u.Scheme == "https" || (u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1")) {
		return nil
	}
	return errors.New("redirect URI " + raw + " must use https (http only for loopback)")
}

// Deps is what the oauthclients room needs.
type Deps struct {
	Kit *resource.Kit
	// Clients keeps the registered clients.
	Clients *oauth.Storage
}

type handlers struct{ Deps }

// Register adds the oauthclients operations under /oauth-clients.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/oauth-clients")
	transport.Register(g, huma.Operation{
		OperationID: "createOAuthClient", Method: http.MethodPost, Path: "",
		Summary: "Register an OAuth client", Tags: []string{"Authentication"}, DefaultStatus: http.StatusCreated,
	}, auth.APIKeysWrite, s.createOAuthClient)
	transport.Register(g, huma.Operation{
		OperationID: "listOAuthClients", Method: http.MethodGet, Path: "",
		Summary: "List OAuth clients", Tags: []string{"Authentication"},
		Description: "Lists the clients the caller may manage: those whose scopes it holds all of, for callers not restricted to projects.",
	}, auth.APIKeysWrite, s.listOAuthClients)
	transport.Register(g, huma.Operation{
		OperationID: "deleteOAuthClient", Method: http.MethodDelete, Path: "/{client_id}",
		Summary: "Delete an OAuth client and revoke its tokens", Tags: []string{"Authentication"},
		Description:   "Only clients the caller may manage (see listOAuthClients); others are answered 404.",
		DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, auth.APIKeysWrite, s.deleteOAuthClient)
}

func (s *handlers) createOAuthClient(ctx context.Context, in *struct{ Body oauthClientCreate }) (*struct{ Body OAuthClient }, error) {
	p, t := auth.Who(ctx)
	if err := transport.CheckText(transport.NameText("body.name", in.Body.Name)); err != nil {
		return nil, err
	}
	if p.Restricted() {
		return nil, apierror.New(http.StatusForbidden, apierror.CodeForbidden, "an API key restricted to projects cannot register OAuth clients")
	}
	scopes := in.Body.Scopes
	if len(scopes) == 0 {
		scopes = p.Scopes
	}
	for _, sc := range scopes {
		if !auth.Valid(sc) {
			return nil, apierror.Invalid("body.scopes", "unknown scope "+sc)
		}
		if !p.Has(sc) {
			return nil, apierror.New(http.StatusForbidden, apierror.CodeInsufficientScope, "cannot grant the scope %s, which the caller does not hold", sc).With("required_scope", sc)
		}
	}
	for i, u := range in.Body.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return nil, apierror.Invalid("body.redirect_uris["+strconv.Itoa(i)+"]", err.Error())
		}
	}
	public := in.Body.Public == nil || *in.Body.Public
	id, secret, err := Create(ctx, s.Clients, Spec{
		TenantID: t.ID, Name: in.Body.Name, RedirectURIs: in.Body.RedirectURIs, Scopes: scopes, Public: public, CreatedBy: p.Actor,
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	c, err := s.Clients.Client(ctx, id)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	out := oauthClientOf(c)
	out.ClientSecret = secret
	return &struct{ Body OAuthClient }{Body: out}, nil
}

var oauthClientSort = pagination.Spec[*oauth.Client]{
	Name: "oauth_clients",
	Fields: map[string]func(*oauth.Client) pagination.Key{
		"created_at": func(c *oauth.Client) pagination.Key { return pagination.Time(c.CreatedAt) },
		"name":       func(c *oauth.Client) pagination.Key { return pagination.String(c.Name) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(c *oauth.Client) string { return c.ID },
}

// visibleClient reports whether the caller may manage c. A client's sessions reach every
// project of the tenant, so only callers unrestricted by project cover it (see covers).
func visibleClient(p *auth.Principal, c *oauth.Client) bool { return p.Covers(c.Scopes, nil) }

func (s *handlers) listOAuthClients(ctx context.Context, in *struct {
	resource.PageParams
	Sort string `query:"sort" enum:"created_at,name"`
}) (*resource.ListOutput[OAuthClient], error) {
	p, t := auth.Who(ctx)
	cs, err := s.Clients.Clients(ctx, t.ID)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	cs = slices.DeleteFunc(cs, func(c *oauth.Client) bool { return !visibleClient(p, c) })
	return resource.Paginate(s.Kit, cs, oauthClientSort, in.PageParams, in.Sort, "", oauthClientOf)
}

func (s *handlers) deleteOAuthClient(ctx context.Context, in *struct {
	ClientID string `path:"client_id" maxLength:"64"`
}) (*struct{}, error) {
	p, t := auth.Who(ctx)
	c, err := s.Clients.Client(ctx, in.ClientID)
	if errors.Is(err, oauth.ErrClientNotFound) || (err == nil && (c.TenantID != t.ID || !visibleClient(p, c))) {
		return nil, apierror.NotFound("OAuth client", in.ClientID)
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	err = s.Clients.DeleteClient(ctx, t.ID, in.ClientID)
	if errors.Is(err, oauth.ErrClientNotFound) {
		return nil, apierror.NotFound("OAuth client", in.ClientID)
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return &struct{}{}, nil
}
