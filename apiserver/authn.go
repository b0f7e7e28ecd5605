package apiserver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// tenant is what the facade needs of a Tenant object.
type tenant struct {
	ID        string
	Namespace string
	Tier      discov1.TenantTier
	Groups    []string
}

type callerKey struct{}

// caller is the authenticated principal with its tenant, or the reason authentication
// failed (a request with a bad credential continues anonymously, so unknown routes still
// answer 404 and public routes still work; operations that need a credential answer the
// recorded failure).
type caller struct {
	principal *auth.Principal
	tenant    *tenant
	failure   *apiError
}

func contextWithCaller(ctx context.Context, c *caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFrom(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	if c == nil {
		return &caller{}
	}
	return c
}

// authenticate resolves the Authorization header.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := callerFrom(r.Context())
		if c.principal == nil && c.failure == nil { // the aggregated path may have set one already
			c = s.resolveCredential(r)
		}
		ctx := context.WithValue(r.Context(), callerKey{}, c)
		if c.principal != nil {
			ctx = auth.WithPrincipal(ctx, c.principal)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func (s *Server) resolveCredential(r *http.Request) *caller {
	h := r.Header.Get("Authorization")
	if h == "" {
		return &caller{}
	}
	scheme, cred, ok := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return &caller{failure: apierror.Unauthenticated("malformed", "the Authorization header must be \"Bearer <credential>\"")}
	}
	var (
		p   *auth.Principal
		err *apiError
	)
	switch {
	case strings.HasPrefix(cred, store.APIKeyPrefix):
		p, err = s.apiKeyPrincipal(r.Context(), cred)
	case strings.HasPrefix(cred, oauth.AccessPrefix):
		p, err = s.sessionPrincipal(r.Context(), cred)
	default:
		err = apierror.Unauthenticated("malformed", "the credential is neither an API key (disco_key_...) nor a session token (disco_session_...)")
	}
	if err != nil {
		return &caller{failure: err}
	}
	t, terr := s.tenantByID(r.Context(), p.TenantID)
	if terr != nil {
		return &caller{failure: terr}
	}
	return &caller{principal: p, tenant: t}
}

// apiKeyPrincipal checks an API key: format and checksum first (no database hit for a
// mistyped or made-up key), then the SHA-256 lookup, then revocation, expiry and roll
// grace.
func (s *Server) apiKeyPrincipal(ctx context.Context, plaintext string) (*auth.Principal, *apiError) {
	if !store.ValidAPIKeyFormat(plaintext) {
		return nil, apierror.Unauthenticated("malformed", "the API key is malformed (wrong length, alphabet or checksum)")
	}
	hash := store.HashAPIKey(plaintext)
	k, err := s.keys.get(hash, func() (store.APIKey, error) { return s.opts.Store.APIKeyByHash(ctx, hash) })
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierror.Unauthenticated("invalid", "the API key is not valid")
	}
	if err != nil {
		return nil, internalError(err)
	}
	now := s.now()
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		return nil, apierror.Unauthenticated("revoked", "the API key has been revoked")
	case !k.ActiveAt(now):
		return nil, apierror.Unauthenticated("expired", "the API key has expired")
	}
	return &auth.Principal{
		Kind:         auth.KindAPIKey,
		TenantID:     k.TenantID,
		Actor:        k.ID,
		CredentialID: k.ID,
		Scopes:       k.Scopes,
		ProjectIDs:   k.ProjectIDs,
	}, nil
}

// tenantByID reads the Tenant object (cluster-scoped, named after the id).
func (s *Server) tenantByID(ctx context.Context, id string) (*tenant, *apiError) {
	if !ids.Valid(ids.Tenant, id) {
		return nil, apierror.Unauthenticated("invalid", "the credential's tenant is unknown")
	}
	var t discov1.Tenant
	err := s.get(ctx, client.ObjectKey{Name: ids.ToName(id)}, &t)
	if apierrors.IsNotFound(err) {
		return nil, apierror.Unauthenticated("invalid", "the credential's tenant no longer exists")
	}
	if err != nil {
		return nil, internalError(err)
	}
	return tenantOf(&t), nil
}

func tenantOf(t *discov1.Tenant) *tenant {
	ns := t.Status.Namespace
	if ns == "" {
		ns = t.Spec.Namespace
	}
	if ns == "" {
		ns = "disco-" + t.Name
	}
	tier := t.Spec.Tier
	if tier == "" {
		tier = discov1.TenantTierFree
	}
	return &tenant{ID: ids.FromName(t.Name), Namespace: ns, Tier: tier, Groups: t.Spec.Groups}
}

// authorize is the huma middleware that enforces each operation's credential and scope.
func (s *Server) authorize(ctx huma.Context, next func(huma.Context)) {
	op := ctx.Operation()
	if public, _ := op.Metadata[metaPublic].(bool); public {
		next(ctx)
		return
	}
	c := callerFrom(ctx.Context())
	if c.principal == nil {
		s.writeErr(ctx, c.refusal())
		return
	}
	if scope, _ := op.Metadata[metaScope].(string); scope != "" && !c.principal.Has(scope) {
		s.writeErr(ctx, apierror.InsufficientScope(scope))
		return
	}
	next(ctx)
}

// keyCache keeps recently used API keys for a few seconds, so authenticated traffic does
// not queue on the database. Revocation and rolls through this replica drop the entry at
// once; other replicas see them within keyCacheTTL. Expiry is checked on every request
// against the cached copy, so it is exact.
type keyCache struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]cachedKey
}

type cachedKey struct {
	key     store.APIKey
	fetched time.Time
}

const keyCacheTTL = 5 * time.Second

func newKeyCache() *keyCache {
	return &keyCache{now: time.Now, m: map[string]cachedKey{}}
}

func (c *keyCache) get(hash string, load func() (store.APIKey, error)) (store.APIKey, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[hash]
	c.mu.Unlock()
	if ok && now.Sub(e.fetched) < keyCacheTTL {
		return e.key, nil
	}
	k, err := load()
	if err != nil {
		return k, err
	}
	c.mu.Lock()
	if len(c.m) > 10000 {
		clear(c.m)
	}
	c.m[hash] = cachedKey{key: k, fetched: now}
	c.mu.Unlock()
	return k, nil
}

// forget drops every cached copy of the key with that id.
func (c *keyCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, e := range c.m {
		if e.key.ID == id {
			delete(c.m, h)
		}
	}
}
