package oauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ory/fosite"

	"github.com/discolab/disco/internal/store"
)

// Token kinds in oauth_tokens.
const (
	kindCode    = "code"
	kindPKCE    = "pkce"
	kindAccess  = "access"
	kindRefresh = "refresh"
)

// Storage implements fosite's storage interfaces over the SQL store: clients,
// authorization codes, PKCE sessions, access and refresh tokens. Only token signatures
// (HMACs) are stored, never the tokens themselves.
type Storage struct {
	st  *store.Store
	now func() time.Time
}

// NewStorage serves the OAuth tables of st, which the store's migrations create
// (internal/store/migrations, 0005_facade_tables). It fails when st has no such tables.
func NewStorage(ctx context.Context, st *store.Store, now func() time.Time) (*Storage, error) {
	if now == nil {
		now = time.Now
	}
	for _, table := range []string{"oauth_clients", "oauth_tokens"} {
		var n int
		if err := st.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM "+table+" LIMIT 1) AS t").Scan(&n); err != nil {
			return nil, fmt.Errorf("oauth: the store has no table %s: %w", table, err)
		}
	}
	return &Storage{st: st, now: now}, nil
}

// Client is a registered OAuth client.
type Client struct {
	fosite.DefaultClient
	TenantID  string
	Name      string
	CreatedBy string
	CreatedAt time.Time
}

// ErrClientNotFound is returned for unknown clients.
var ErrClientNotFound = errors.New("oauth: client not found")

// CreateClient stores a client. Confidential clients pass the bcrypt hash of their secret.
func (s *Storage) CreateClient(ctx context.Context, c Client) error {
	uris, _ := json.Marshal(c.RedirectURIs)
	scopes, _ := json.Marshal(c.Scopes)
	public := 0
	if c.Public {
		public = 1
	}
	_, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`INSERT INTO oauth_clients
		(id, tenant_id, name, redirect_uris, scopes, public, secret_hash, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		c.ID, c.TenantID, c.Name, string(uris), string(scopes), public, string(c.Secret), c.CreatedBy, c.CreatedAt.UnixMilli())
	return err
}

// Client returns a stored client.
func (s *Storage) Client(ctx context.Context, id string) (*Client, error) {
	var c Client
	var uris, scopes, secret string
	var public int
	var created int64
	err := s.st.DB().QueryRowContext(ctx, s.st.Rebind(`SELECT id, tenant_id, name, redirect_uris, scopes, public, secret_hash, created_by, created_at
		FROM oauth_clients WHERE id = ?`), id).Scan(&c.ID, &c.TenantID, &c.Name, &uris, &scopes, &public, &secret, &c.CreatedBy, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrClientNotFound
	}
	if err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(uris), &c.RedirectURIs)
	_ = json.Unmarshal([]byte(scopes), &c.Scopes)
	c.Public = public == 1
	c.Secret = []byte(secret)
	c.GrantTypes = []string{"authorization_code", "refresh_token"}
	c.ResponseTypes = []string{"code"}
	c.CreatedAt = time.UnixMilli(created).UTC()
	return &c, nil
}

// Clients lists a tenant's clients.
func (s *Storage) Clients(ctx context.Context, tenantID string) ([]*Client, error) {
	rows, err := s.st.DB().QueryContext(ctx, s.st.Rebind(`SELECT id FROM oauth_clients WHERE tenant_id = ? ORDER BY created_at, id`), tenantID)
	if err != nil {
		return nil, err
	}
	var idsList []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		idsList = append(idsList, id)
	}
	rows.Close()
	var out []*Client
	for _, id := range idsList {
		c, err := s.Client(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// DeleteClient removes a tenant's client and every token issued to it.
func (s *Storage) DeleteClient(ctx context.Context, tenantID, id string) error {
	res, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`DELETE FROM oauth_clients WHERE tenant_id = ? AND id = ?`), tenantID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrClientNotFound
	}
	_, err = s.st.DB().ExecContext(ctx, s.st.Rebind(`DELETE FROM oauth_tokens WHERE client_id = ?`), id)
	return err
}

// GetClient implements fosite.ClientManager.
func (s *Storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.Client(ctx, id)
	if errors.Is(err, ErrClientNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &c.DefaultClient, nil
}

// ClientAssertionJWTValid implements fosite.ClientManager; JWT client assertions are not
// offered, so no assertion is ever known.
func (s *Storage) ClientAssertionJWTValid(context.Context, string) error { return nil }

// SetClientAssertionJWT implements fosite.ClientManager.
func (s *Storage) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

// storedRequest is the serialised form of a fosite request.
type storedRequest struct {
	ID                string                 `json:"id"`
	RequestedAt       time.Time              `json:"requested_at"`
	ClientID          string                 `json:"client_id"`
	RequestedScope    []string               `json:"requested_scope"`
	GrantedScope      []string               `json:"granted_scope"`
	RequestedAudience []string               `json:"requested_audience"`
	GrantedAudience   []string               `json:"granted_audience"`
	Form              url.Values             `json:"form"`
	Session           *fosite.DefaultSession `json:"session"`
}

func (s *Storage) create(ctx context.Context, kind, signature string, req fosite.Requester, t fosite.TokenType) error {
	sess, _ := req.GetSession().(*fosite.DefaultSession)
	if sess != nil && (kind == kindAccess || kind == kindRefresh) {
		s.bound(sess, t)
	}
	expires := expiry(req, t)
	sr := storedRequest{
		ID: req.GetID(), RequestedAt: req.GetRequestedAt(), ClientID: req.GetClient().GetID(),
		RequestedScope: req.GetRequestedScopes(), GrantedScope: req.GetGrantedScopes(),
		RequestedAudience: req.GetRequestedAudience(), GrantedAudience: req.GetGrantedAudience(),
		Form: req.GetRequestForm(), Session: sess,
	}
	data, err := json.Marshal(sr)
	if err != nil {
		return err
	}
	subject := ""
	if sess != nil {
		subject = sess.Subject
	}
	if expires.IsZero() {
		expires = s.now().Add(30 * 24 * time.Hour)
	}
	_, err = s.st.DB().ExecContext(ctx, s.st.Rebind(`INSERT INTO oauth_tokens
		(signature, kind, request_id, active, client_id, subject, data, expires_at, created_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)`),
		kind+":"+signature, kind, req.GetID(), sr.ClientID, subject, string(data), expires.UnixMilli(), s.now().UnixMilli())
	return err
}

// bound caps the expiry of a token of type t at the end of the session's absolute
// lifetime, so the expiry a client is told never passes the grant's end. An unset expiry
// (fosite then counts the lifespan from the request time) is left unset; live refuses
// every token past the end whatever its expiry. A session without a sign-in time (issued
// before sign-in times were recorded) is given one now.
func (s *Storage) bound(sess *fosite.DefaultSession, t fosite.TokenType) {
	at, ok := authTime(sess)
	if !ok {
		at = s.now()
		if sess.Extra == nil {
			sess.Extra = map[string]any{}
		}
		sess.Extra[extraAuthTime] = at.UnixMilli()
	}
	end := at.Add(SessionLifespan).UTC()
	if e := sess.GetExpiresAt(t); !e.IsZero() && e.After(end) {
		sess.SetExpiresAt(t, end)
	}
}

// live checks that a stored session may still be used (issue 17): it is within its
// absolute lifetime, and its user still exists, is not disabled and has not had their
// sessions revoked since signing in. created stands in for the sign-in time of sessions
// that do not record one. A refusal wraps fosite.ErrNotFound, which fosite answers as
// invalid_grant at the token endpoint and as an invalid token elsewhere.
func (s *Storage) live(ctx context.Context, sess *fosite.DefaultSession, created time.Time) error {
	if sess == nil || sess.Subject == "" {
		return fmt.Errorf("%w: the session has no user", fosite.ErrNotFound)
	}
	at, ok := authTime(sess)
	if !ok {
		at = created
	}
	if !s.now().Before(at.Add(SessionLifespan)) {
		return fmt.Errorf("%w: the session reached its absolute lifetime; sign in again", fosite.ErrNotFound)
	}
	u, err := s.st.UserByID(ctx, sess.Subject)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: the session's user no longer exists", fosite.ErrNotFound)
	}
	if err != nil {
		return err
	}
	if !u.SessionAllowed(at) {
		return fmt.Errorf("%w: the user is disabled or their sessions were revoked", fosite.ErrNotFound)
	}
	return nil
}

// get loads a stored request; an inactive one is returned with its error so fosite can
// detect reuse. Sessions that are no longer live (see live) are not found.
func (s *Storage) get(ctx context.Context, kind, signature string, session fosite.Session) (fosite.Requester, bool, error) {
	var data string
	var active int
	var created int64
	err := s.st.DB().QueryRowContext(ctx, s.st.Rebind(`SELECT data, active, created_at FROM oauth_tokens WHERE signature = ?`), kind+":"+signature).
		Scan(&data, &active, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, fosite.ErrNotFound
	}
	if err != nil {
		return nil, false, err
	}
	var sr storedRequest
	if err := json.Unmarshal([]byte(data), &sr); err != nil {
		return nil, false, err
	}
	if err := s.live(ctx, sr.Session, time.UnixMilli(created)); err != nil {
		return nil, false, err
	}
	client, err := s.GetClient(ctx, sr.ClientID)
	if err != nil {
		return nil, false, err
	}
	var sess fosite.Session = sr.Session
	if ds, ok := session.(*fosite.DefaultSession); ok && ds != nil && sr.Session != nil {
		*ds = *sr.Session
		sess = ds
	}
	if sess == (*fosite.DefaultSession)(nil) {
		sess = &fosite.DefaultSession{}
	}
	req := &fosite.Request{
		ID: sr.ID, RequestedAt: sr.RequestedAt, Client: client,
		RequestedScope: sr.RequestedScope, GrantedScope: sr.GrantedScope,
		RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: sess,
	}
	if req.Form == nil {
		req.Form = url.Values{}
	}
	return req, active == 1, nil
}

func (s *Storage) delete(ctx context.Context, kind, signature string) error {
	_, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`DELETE FROM oauth_tokens WHERE signature = ?`), kind+":"+signature)
	return err
}

func expiry(req fosite.Requester, t fosite.TokenType) time.Time {
	if req.GetSession() == nil {
		return time.Time{}
	}
	return req.GetSession().GetExpiresAt(t)
}

// CreateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (s *Storage) CreateAuthorizeCodeSession(ctx context.Context, code string, req fosite.Requester) error {
	return s.create(ctx, kindCode, code, req, fosite.AuthorizeCode)
}

// GetAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage.
func (s *Storage) GetAuthorizeCodeSession(ctx context.Context, code string, session fosite.Session) (fosite.Requester, error) {
	req, active, err := s.get(ctx, kindCode, code, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return req, fosite.ErrInvalidatedAuthorizeCode
	}
	return req, nil
}

// InvalidateAuthorizeCodeSession implements oauth2.AuthorizeCodeStorage: a used code stays
// stored, inactive, so a second use is recognised (and its tokens revoked).
func (s *Storage) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	_, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`UPDATE oauth_tokens SET active = 0 WHERE signature = ?`), kindCode+":"+code)
	return err
}

// CreatePKCERequestSession implements pkce.PKCERequestStorage.
func (s *Storage) CreatePKCERequestSession(ctx context.Context, signature string, req fosite.Requester) error {
	return s.create(ctx, kindPKCE, signature, req, fosite.AuthorizeCode)
}

// GetPKCERequestSession implements pkce.PKCERequestStorage.
func (s *Storage) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	req, _, err := s.get(ctx, kindPKCE, signature, session)
	return req, err
}

// DeletePKCERequestSession implements pkce.PKCERequestStorage.
func (s *Storage) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return s.delete(ctx, kindPKCE, signature)
}

// CreateAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *Storage) CreateAccessTokenSession(ctx context.Context, signature string, req fosite.Requester) error {
	return s.create(ctx, kindAccess, signature, req, fosite.AccessToken)
}

// GetAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *Storage) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	req, active, err := s.get(ctx, kindAccess, signature, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return nil, fosite.ErrNotFound
	}
	return req, nil
}

// DeleteAccessTokenSession implements oauth2.AccessTokenStorage.
func (s *Storage) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return s.delete(ctx, kindAccess, signature)
}

// CreateRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (s *Storage) CreateRefreshTokenSession(ctx context.Context, signature, _ string, req fosite.Requester) error {
	return s.create(ctx, kindRefresh, signature, req, fosite.RefreshToken)
}

// GetRefreshTokenSession implements oauth2.RefreshTokenStorage. A used (rotated) refresh
// token answers with fosite.ErrInactiveToken and its request, which makes fosite revoke
// the whole family: reuse detection.
func (s *Storage) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	req, active, err := s.get(ctx, kindRefresh, signature, session)
	if err != nil {
		return nil, err
	}
	if !active {
		return req, fosite.ErrInactiveToken
	}
	return req, nil
}

// DeleteRefreshTokenSession implements oauth2.RefreshTokenStorage.
func (s *Storage) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return s.delete(ctx, kindRefresh, signature)
}

// RotateRefreshToken implements oauth2.RefreshTokenStorage: the family's refresh tokens
// become inactive (kept for reuse detection) and its access tokens are deleted; fosite
// then stores the new pair.
func (s *Storage) RotateRefreshToken(ctx context.Context, requestID, _ string) error {
	if err := s.RevokeRefreshToken(ctx, requestID); err != nil {
		return err
	}
	return s.RevokeAccessToken(ctx, requestID)
}

// RevokeRefreshToken implements oauth2.TokenRevocationStorage.
func (s *Storage) RevokeRefreshToken(ctx context.Context, requestID string) error {
	_, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`UPDATE oauth_tokens SET active = 0 WHERE kind = ? AND request_id = ?`), kindRefresh, requestID)
	return err
}

// RevokeAccessToken implements oauth2.TokenRevocationStorage.
func (s *Storage) RevokeAccessToken(ctx context.Context, requestID string) error {
	_, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`DELETE FROM oauth_tokens WHERE kind = ? AND request_id = ?`), kindAccess, requestID)
	return err
}

// Sweep deletes tokens that expired more than a day ago (inactive refresh tokens are kept
// until then for reuse detection), tokens of users who were deleted or disabled or had
// their sessions revoked since (reads already refuse them), and sign-in failure counts
// old enough to be forgotten.
func (s *Storage) Sweep(ctx context.Context) (int64, error) {
	now := s.now()
	res, err := s.st.DB().ExecContext(ctx, s.st.Rebind(`DELETE FROM oauth_tokens WHERE expires_at < ?`), now.Add(-24*time.Hour).UnixMilli())
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	res, err = s.st.DB().ExecContext(ctx, `DELETE FROM oauth_tokens WHERE NOT EXISTS (
		SELECT 1 FROM users u WHERE u.id = oauth_tokens.subject AND u.disabled_at IS NULL
		AND (u.sessions_revoked_at IS NULL OR u.sessions_revoked_at <= oauth_tokens.created_at))`)
	if err != nil {
		return n, err
	}
	m, _ := res.RowsAffected()
	logins, err := s.st.SweepLogins(ctx, now)
	return n + m + logins, err
}
