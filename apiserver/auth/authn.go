package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/tenancy"
)

// Authenticator resolves a request's Bearer credential (API key or OAuth session token)
// into its Caller.
type Authenticator struct {
	store    *store.Store
	sessions *oauth.Provider
	now      func() time.Time
	read     client.Reader
	keys     *keyCache
	uses     *useRecorder
}

// NewAuthenticator checks API keys against st, session tokens against sessions, and
// reads Tenant objects with read (the facade's cache, falling back to the API server).
func NewAuthenticator(st *store.Store, sessions *oauth.Provider, now func() time.Time, read client.Reader) *Authenticator {
	return &Authenticator{store: st, sessions: sessions, now: now, read: read, keys: newKeyCache(), uses: newUseRecorder(st)}
}

// Forget drops every cached copy of the API key with that id, so its revocation or roll
// takes effect at once in this replica.
func (a *Authenticator) Forget(keyID string) { a.keys.forget(keyID) }

// Middleware resolves the Authorization header into the request's Caller.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := CallerFrom(r.Context())
		if c.Principal == nil && c.Failure == nil { // the aggregated path may have set one already
			c = a.resolveCredential(r)
		}
		ctx := WithCaller(r.Context(), c)
		if c.Principal != nil {
			ctx = WithPrincipal(ctx, c.Principal)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func (a *Authenticator) resolveCredential(r *http.Request) *Caller {
	h := r.Header.Get("Authorization")
	if h == "" {
		return &Caller{}
	}
	scheme, cred, ok := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	if !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" {
		return &Caller{Failure: apierror.Unauthenticated("malformed", "the Authorization header must be \"Bearer <credential>\"")}
	}
	var (
		p   *Principal
		err *apierror.Error
	)
	switch {
	case strings.HasPrefix(cred, store.APIKeyPrefix):
		p, err = a.apiKeyPrincipal(r.Context(), cred)
	case strings.HasPrefix(cred, oauth.AccessPrefix):
		p, err = a.sessionPrincipal(r.Context(), cred)
	default:
		err = apierror.Unauthenticated("malformed", "the credential is neither an API key (disco_key_...) nor a session token (disco_session_...)")
	}
	if err != nil {
		return &Caller{Failure: err}
	}
	t, terr := a.tenantByID(r.Context(), p.TenantID)
	if terr != nil {
		return &Caller{Failure: terr}
	}
	return &Caller{Principal: p, Tenant: t}
}

// apiKeyPrincipal checks an API key: format and checksum first (no database hit for a
// mistyped or made-up key), then the SHA-256 lookup, then revocation, expiry and roll
// grace.
func (a *Authenticator) apiKeyPrincipal(ctx context.Context, plaintext string) (*Principal, *apierror.Error) {
	if !store.ValidAPIKeyFormat(plaintext) {
		return nil, apierror.Unauthenticated("malformed", "the API key is malformed (wrong length, alphabet or checksum)")
	}
	hash := store.HashAPIKey(plaintext)
	k, err := a.keys.get(hash, func() (store.APIKey, error) { return a.store.APIKeyByHash(ctx, hash) })
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierror.Unauthenticated("invalid", "the API key is not valid")
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	now := a.now()
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		return nil, apierror.Unauthenticated("revoked", "the API key has been revoked")
	case !k.ActiveAt(now):
		return nil, apierror.Unauthenticated("expired", "the API key has expired")
	}
	a.uses.record(k, now)
	return &Principal{
		Kind:         KindAPIKey,
		TenantID:     k.TenantID,
		Actor:        k.ID,
		CredentialID: k.ID,
		Scopes:       k.Scopes,
		ProjectIDs:   k.ProjectIDs,
	}, nil
}

// sessionPrincipal checks an OAuth session token.
func (a *Authenticator) sessionPrincipal(ctx context.Context, token string) (*Principal, *apierror.Error) {
	id, err := a.sessions.Introspect(ctx, token)
	switch {
	case errors.Is(err, oauth.ErrExpiredToken):
		return nil, apierror.Unauthenticated("expired", "the session token has expired; refresh it")
	case err != nil:
		return nil, apierror.Unauthenticated("invalid", "the session token is not valid")
	}
	return &Principal{
		Kind: KindSession, TenantID: id.TenantID, Actor: id.UserID, CredentialID: id.GrantID, Scopes: id.Scopes,
	}, nil
}

// tenantByID reads the Tenant object (cluster-scoped, named after the id or, when applied
// with kubectl under a human name, found by its id label: internal/tenancy.Get).
func (a *Authenticator) tenantByID(ctx context.Context, id string) (*Tenant, *apierror.Error) {
	if !ids.Valid(ids.Tenant, id) {
		return nil, apierror.Unauthenticated("invalid", "the credential's tenant is unknown")
	}
	var t discov1.Tenant
	err := tenancy.Get(ctx, a.read, id, &t)
	if apierrors.IsNotFound(err) {
		return nil, apierror.Unauthenticated("invalid", "the credential's tenant no longer exists")
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return TenantOf(&t), nil
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
