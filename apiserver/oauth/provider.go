// Package oauth is the facade's OAuth 2.0 authorization server: the authorization code
// flow with PKCE (S256 only) and exact redirect URIs, refresh tokens that rotate on every
// use with reuse detection, and revocation, built on github.com/ory/fosite with its state
// in the SQL store. Access tokens are opaque HMAC tokens prefixed "disco_session_",
// refresh tokens "disco_refresh_"; both are checked against stored signatures, so
// revocation takes effect at once.
package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/token/hmac"
)

// Token prefixes.
const (
	AccessPrefix  = "disco_session_"
	RefreshPrefix = "disco_refresh_"
	CodePrefix    = "disco_code_"
)

// Lifespans. RefreshLifespan is the idle window: each rotation issues a refresh token
// valid for that long. SessionLifespan is absolute: counted from the sign-in, it bounds
// every token of the grant however often it rotates (RFC 6819 5.1.5.3, issue 17), after
// which the user signs in again.
const (
	AccessLifespan  = 24 * time.Hour
	RefreshLifespan = 30 * 24 * time.Hour
	SessionLifespan = 90 * 24 * time.Hour
	CodeLifespan    = 10 * time.Minute
)

// Provider is the authorization server.
type Provider struct {
	Storage  *Storage
	fosite   fosite.OAuth2Provider
	strategy *prefixedStrategy
	config   *fosite.Config
}

// NewProvider builds the server over storage; secret (32 bytes) keys the token HMACs and
// must be shared by every replica.
func NewProvider(storage *Storage, secret []byte, tokenURL string) *Provider {
	cfg := &fosite.Config{
		AccessTokenLifespan:         AccessLifespan,
		RefreshTokenLifespan:        RefreshLifespan,
		AuthorizeCodeLifespan:       CodeLifespan,
		GlobalSecret:                secret,
		EnforcePKCE:                 true,
		EnforcePKCEForPublicClients: true,
		// Only S256: "plain" would hand the verifier to anyone who sees the redirect.
		EnablePKCEPlainChallengeMethod: false,
		RefreshTokenScopes:             []string{}, // every grant gets a refresh token
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.DefaultAudienceMatchingStrategy,
		TokenURL:                       tokenURL,
		RedirectSecureChecker:          secureRedirect,
		MinParameterEntropy:            8,
	}
	strategy := &prefixedStrategy{inner: oauth2.NewHMACSHAStrategyUnPrefixed(&hmac.HMACStrategy{Config: cfg}, cfg)}
	p := compose.Compose(cfg, storage, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2PKCEFactory,
	)
	return &Provider{Storage: storage, fosite: p, strategy: strategy, config: cfg}
}

// secureRedirect allows https anywhere and http only to loopback hosts (native apps and
// local tools, RFC 8252).
func secureRedirect(_ context.Context, u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	h := u.Hostname()
	return u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1")
}

// prefixedStrategy is fosite's HMAC strategy with disco's token prefixes, so secret
// scanners and people can tell a session token from a refresh token at a glance.
type prefixedStrategy struct {
	inner *oauth2.HMACSHAStrategyUnPrefixed
}

func strip(token, prefix string) string { return strings.TrimPrefix(token, prefix) }

func (p *prefixedStrategy) AccessTokenSignature(ctx context.Context, token string) string {
	return p.inner.AccessTokenSignature(ctx, strip(token, AccessPrefix))
}

func (p *prefixedStrategy) GenerateAccessToken(ctx context.Context, r fosite.Requester) (string, string, error) {
	t, sig, err := p.inner.GenerateAccessToken(ctx, r)
	return AccessPrefix + t, sig, err
}

func (p *prefixedStrategy) ValidateAccessToken(ctx context.Context, r fosite.Requester, token string) error {
	if !strings.HasPrefix(token, AccessPrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return p.inner.ValidateAccessToken(ctx, r, strip(token, AccessPrefix))
}

func (p *prefixedStrategy) RefreshTokenSignature(ctx context.Context, token string) string {
	return p.inner.RefreshTokenSignature(ctx, strip(token, RefreshPrefix))
}

func (p *prefixedStrategy) GenerateRefreshToken(ctx context.Context, r fosite.Requester) (string, string, error) {
	t, sig, err := p.inner.GenerateRefreshToken(ctx, r)
	return RefreshPrefix + t, sig, err
}

func (p *prefixedStrategy) ValidateRefreshToken(ctx context.Context, r fosite.Requester, token string) error {
	if !strings.HasPrefix(token, RefreshPrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return p.inner.ValidateRefreshToken(ctx, r, strip(token, RefreshPrefix))
}

func (p *prefixedStrategy) AuthorizeCodeSignature(ctx context.Context, token string) string {
	return p.inner.AuthorizeCodeSignature(ctx, strip(token, CodePrefix))
}

func (p *prefixedStrategy) GenerateAuthorizeCode(ctx context.Context, r fosite.Requester) (string, string, error) {
	t, sig, err := p.inner.GenerateAuthorizeCode(ctx, r)
	return CodePrefix + t, sig, err
}

func (p *prefixedStrategy) ValidateAuthorizeCode(ctx context.Context, r fosite.Requester, token string) error {
	if !strings.HasPrefix(token, CodePrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return p.inner.ValidateAuthorizeCode(ctx, r, strip(token, CodePrefix))
}

// Identity is who a session token speaks for.
type Identity struct {
	TenantID string
	UserID   string
	Username string
	ClientID string
	GrantID  string
	Scopes   []string
}

// Keys of the session's Extra map.
const (
	extraTenant = "tenant_id"
	// extraAuthTime is when the user signed in (Unix milliseconds), like OpenID Connect's
	// auth_time claim; every token of the grant carries it through rotation.
	extraAuthTime = "auth_time"
)

// NewSession is the session of a user approving a grant, signed in at authTime.
func NewSession(tenantID, userID, username string, authTime time.Time) *fosite.DefaultSession {
	return &fosite.DefaultSession{
		Subject:  userID,
		Username: username,
		Extra:    map[string]any{extraTenant: tenantID, extraAuthTime: authTime.UnixMilli()},
	}
}

// authTime returns when the session's user signed in, if the session records it.
func authTime(s *fosite.DefaultSession) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	switch v := s.Extra[extraAuthTime].(type) {
	case int64:
		return time.UnixMilli(v), true
	case float64: // after a JSON round trip
		return time.UnixMilli(int64(v)), true
	}
	return time.Time{}, false
}

// Errors of Introspect.
var (
	ErrInvalidToken = errors.New("oauth: invalid token")
	ErrExpiredToken = errors.New("oauth: token expired")
)

// Introspect checks an access token and returns its identity.
func (p *Provider) Introspect(ctx context.Context, token string) (*Identity, error) {
	sess := &fosite.DefaultSession{}
	_, ar, err := p.fosite.IntrospectToken(ctx, token, fosite.AccessToken, sess)
	if err != nil {
		if errors.Is(err, fosite.ErrTokenExpired) {
			return nil, ErrExpiredToken
		}
		return nil, ErrInvalidToken
	}
	s, _ := ar.GetSession().(*fosite.DefaultSession)
	if s == nil {
		return nil, ErrInvalidToken
	}
	tenant, _ := s.Extra[extraTenant].(string)
	return &Identity{
		TenantID: tenant, UserID: s.Subject, Username: s.Username, ClientID: ar.GetClient().GetID(),
		GrantID: ar.GetID(), Scopes: ar.GetGrantedScopes(),
	}, nil
}

// Fosite exposes the provider for the HTTP handlers.
func (p *Provider) Fosite() fosite.OAuth2Provider { return p.fosite }

// ValidRedirect reports whether uri is exactly one of the client's registered URIs.
// fosite would also accept a loopback URI on another port (RFC 8252); disco requires an
// exact match.
func ValidRedirect(c fosite.Client, uri string) bool {
	for _, r := range c.GetRedirectURIs() {
		if r == uri {
			return true
		}
	}
	return false
}

// ErrorOf extracts fosite's RFC 6749 error (code, description, status).
func ErrorOf(err error) (code, description string, status int) {
	var rfc *fosite.RFC6749Error
	if errors.As(err, &rfc) {
		desc := rfc.DescriptionField
		if rfc.HintField != "" {
			desc += " " + rfc.HintField
		}
		return rfc.ErrorField, strings.TrimSpace(desc), rfc.CodeField
	}
	return "server_error", "", http.StatusInternalServerError
}
