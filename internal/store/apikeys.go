package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/discolab/disco/internal/ids"
)

// APIKey is a stored API key. The plaintext is never stored; Hash is its SHA-256.
type APIKey struct {
	ID         string
	TenantID   string
	Name       string
	Hash       string
	Prefix     string   // first characters of the plaintext, for display
	Scopes     []string // granted scopes
	ProjectIDs []string // projects the key may touch; empty means all of the tenant's
	CreatedBy  string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	ReplacedBy string     // id of the key that replaced this one by a roll
	GraceUntil *time.Time // a rolled key stays valid until then
	// LastUsedAt is when the key last authenticated a request, exact to
	// APIKeyUseResolution; nil if it never has.
	LastUsedAt *time.Time
}

// ActiveAt reports whether the key authenticates at time now: not revoked, not expired,
// and, if it was rolled, still within its grace period.
func (k APIKey) ActiveAt(now time.Time) bool {
	if k.RevokedAt != nil && !now.Before(*k.RevokedAt) {
		return false
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return false
	}
	if k.GraceUntil != nil && !now.Before(*k.GraceUntil) {
		return false
	}
	return true
}

// AllowsProject reports whether the key may act on projectID.
func (k APIKey) AllowsProject(projectID string) bool {
	if len(k.ProjectIDs) == 0 {
		return true
	}
	for _, p := range k.ProjectIDs {
		if p == projectID {
			return true
		}
	}
	return false
}

// NewAPIKey is what a caller chooses when creating a key.
type NewAPIKey struct {
	TenantID   string
	Name       string
	Scopes     []string
	ProjectIDs []string
	CreatedBy  string
	ExpiresAt  *time.Time
}

// CreateAPIKey generates a key, stores its hash and returns the stored key together
// with the plaintext, which is shown to the caller once and never again.
func (s *Store) CreateAPIKey(ctx context.Context, n NewAPIKey) (APIKey, string, error) {
	var (
		k         APIKey
		plaintext string
	)
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		var err error
		k, plaintext, err = s.insertAPIKey(ctx, tx, n)
		return err
	})
	return k, plaintext, err
}

func (s *Store) insertAPIKey(ctx context.Context, tx *sql.Tx, n NewAPIKey) (APIKey, string, error) {
	if n.TenantID == "" {
		return APIKey{}, "", errors.New("store: api key needs a tenant")
	}
	plaintext, hash := GenerateAPIKey()
	k := APIKey{
		ID:         ids.New(ids.APIKey),
		TenantID:   n.TenantID,
		Name:       n.Name,
		Hash:       hash,
		Prefix:     APIKeyDisplayPrefix(plaintext),
		Scopes:     nonNil(n.Scopes),
		ProjectIDs: nonNil(n.ProjectIDs),
		CreatedBy:  n.CreatedBy,
		CreatedAt:  s.Now(),
		ExpiresAt:  truncated(n.ExpiresAt),
	}
	scopes, _ := json.Marshal(k.Scopes)
	projects, _ := json.Marshal(k.ProjectIDs)
	_, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO api_keys
		(id, tenant_id, name, hash, prefix, scopes, project_ids, created_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		k.ID, k.TenantID, k.Name, k.Hash, k.Prefix, string(scopes), string(projects), k.CreatedBy,
		millis(k.CreatedAt), nullMillis(k.ExpiresAt))
	if err != nil {
		return APIKey{}, "", fmt.Errorf("store: create api key: %w", err)
	}
	return k, plaintext, nil
}

const apiKeyColumns = `id, tenant_id, name, hash, prefix, scopes, project_ids, created_by, created_at,
	expires_at, revoked_at, replaced_by, grace_until, last_used_at`

// APIKeyByHash returns the key with that hash whatever its state (check ActiveAt), or
// ErrNotFound.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (APIKey, error) {
	return scanAPIKey(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = ?`), hash))
}

// APIKeyByID returns the tenant's key with that id, or ErrNotFound.
func (s *Store) APIKeyByID(ctx context.Context, tenantID, id string) (APIKey, error) {
	return scanAPIKey(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+apiKeyColumns+` FROM api_keys WHERE tenant_id = ? AND id = ?`), tenantID, id))
}

// ListAPIKeys returns up to limit of the tenant's keys in creation order, starting after
// the key with id after ("" for the first page).
func (s *Store) ListAPIKeys(ctx context.Context, tenantID string, limit int, after string) ([]APIKey, error) {
	q := `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE tenant_id = ?`
	args := []any{tenantID}
	if after != "" {
		q += ` AND (created_at, id) > (SELECT created_at, id FROM api_keys WHERE tenant_id = ? AND id = ?)`
		args = append(args, tenantID, after)
	}
	q += ` ORDER BY created_at, id LIMIT ?`
	args = append(args, clampLimit(limit))
	rows, err := s.db.QueryContext(ctx, s.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list api keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey revokes the tenant's key now. Revoking twice keeps the first time.
func (s *Store) RevokeAPIKey(ctx context.Context, tenantID, id string) error {
	res, err := s.db.ExecContext(ctx, s.Rebind(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE tenant_id = ? AND id = ?`),
		millis(s.Now()), tenantID, id)
	if err != nil {
		return fmt.Errorf("store: revoke api key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RollAPIKey issues a replacement for the tenant's key id with the same name, scopes,
// projects and expiry, and keeps the old key valid for grace. Both changes happen in
// one transaction. Rolling a revoked or already rolled key gives ErrConflict.
func (s *Store) RollAPIKey(ctx context.Context, tenantID, id, createdBy string, grace time.Duration) (APIKey, string, error) {
	var (
		k         APIKey
		plaintext string
	)
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		old, err := scanAPIKey(tx.QueryRowContext(ctx, s.Rebind(`SELECT `+apiKeyColumns+` FROM api_keys WHERE tenant_id = ? AND id = ?`+s.forUpdate()), tenantID, id))
		if err != nil {
			return err
		}
		if old.RevokedAt != nil || old.ReplacedBy != "" {
			return fmt.Errorf("%w: api key %s is revoked or already rolled", ErrConflict, id)
		}
		k, plaintext, err = s.insertAPIKey(ctx, tx, NewAPIKey{
			TenantID: tenantID, Name: old.Name, Scopes: old.Scopes, ProjectIDs: old.ProjectIDs,
			CreatedBy: createdBy, ExpiresAt: old.ExpiresAt,
		})
		if err != nil {
			return err
		}
		// The conditions repeat the check above so that two concurrent rolls cannot
		// both win, even where the row lock is unavailable.
		res, err := tx.ExecContext(ctx, s.Rebind(`UPDATE api_keys SET replaced_by = ?, grace_until = ?
			WHERE id = ? AND replaced_by IS NULL AND revoked_at IS NULL`),
			k.ID, millis(k.CreatedAt.Add(grace)), old.ID)
		if err != nil {
			return fmt.Errorf("store: roll api key: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: api key %s was rolled or revoked concurrently", ErrConflict, id)
		}
		return nil
	})
	if err != nil {
		return APIKey{}, "", err
	}
	return k, plaintext, nil
}

// APIKeyUseResolution is how exact a key's LastUsedAt is: TouchAPIKey writes at most once
// per key in this long, so authenticated traffic costs a write a minute per key rather than
// one per request (issue 15).
const APIKeyUseResolution = time.Minute

// TouchAPIKey records that the key with that id authenticated a request at time at. It
// writes only when the stored time is unset or more than APIKeyUseResolution older, so a
// busy key is written once a minute whichever replica serves it; written reports whether
// this call wrote. A later use never moves the time back.
func (s *Store) TouchAPIKey(ctx context.Context, id string, at time.Time) (written bool, err error) {
	res, err := s.db.ExecContext(ctx, s.Rebind(`UPDATE api_keys SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`),
		millis(at), id, millis(at.Add(-APIKeyUseResolution)))
	if err != nil {
		return false, fmt.Errorf("store: record api key use: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: record api key use: %w", err)
	}
	return n > 0, nil
}

func scanAPIKey(row interface{ Scan(...any) error }) (APIKey, error) {
	var (
		k                            APIKey
		scopes, projects             string
		created                      int64
		expires, revoked, graceUntil sql.NullInt64
		lastUsed                     sql.NullInt64
		replacedBy                   sql.NullString
	)
	err := row.Scan(&k.ID, &k.TenantID, &k.Name, &k.Hash, &k.Prefix, &scopes, &projects, &k.CreatedBy, &created,
		&expires, &revoked, &replacedBy, &graceUntil, &lastUsed)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("store: read api key: %w", err)
	}
	if err := json.Unmarshal([]byte(scopes), &k.Scopes); err != nil {
		return APIKey{}, fmt.Errorf("store: api key %s scopes: %w", k.ID, err)
	}
	if err := json.Unmarshal([]byte(projects), &k.ProjectIDs); err != nil {
		return APIKey{}, fmt.Errorf("store: api key %s project_ids: %w", k.ID, err)
	}
	k.CreatedAt = fromMillis(created)
	k.ExpiresAt, k.RevokedAt, k.GraceUntil = timePtr(expires), timePtr(revoked), timePtr(graceUntil)
	k.LastUsedAt = timePtr(lastUsed)
	k.ReplacedBy = replacedBy.String
	return k, nil
}
