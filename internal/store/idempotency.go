package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// IdempotencyTTL is how long a stored response answers repeats of its key.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyRecord is the first response to a POST carrying an Idempotency-Key.
// A repeat with the same key and BodySHA256 gets this response again; a repeat with a
// different body is refused by the facade (409 idempotency_key_reused).
//
// Records are keyed by tenant, principal and key: a stored response is only ever
// replayed to the principal that caused it (issue 17), so the same key sent by another
// credential names another record.
type IdempotencyRecord struct {
	TenantID string
	// Principal names the caller and its grant (credential, scopes, projects), as the
	// facade derives it; the store only compares it.
	Principal  string
	Key        string
	Method     string
	Path       string
	BodySHA256 string
	Status     int
	Header     http.Header // response headers worth replaying, e.g. Location
	Body       []byte
	CreatedAt  time.Time
}

// PutIdempotent stores rec unless a live record with the same tenant, principal and key
// exists, in which case it returns ErrConflict and the caller should read that one
// instead. An expired record is replaced.
func (s *Store) PutIdempotent(ctx context.Context, rec IdempotencyRecord) error {
	if rec.TenantID == "" || rec.Principal == "" || rec.Key == "" {
		return errors.New("store: idempotency record needs tenant, principal and key")
	}
	now := s.Now()
	header, err := json.Marshal(rec.Header)
	if err != nil {
		return fmt.Errorf("store: idempotency headers: %w", err)
	}
	if rec.Body == nil {
		rec.Body = []byte{}
	}
	return s.WithTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.Rebind(`DELETE FROM idempotency WHERE tenant_id = ? AND principal = ? AND key = ? AND created_at <= ?`),
			rec.TenantID, rec.Principal, rec.Key, millis(now.Add(-IdempotencyTTL))); err != nil {
			return fmt.Errorf("store: idempotency: %w", err)
		}
		_, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO idempotency
			(tenant_id, principal, key, method, path, body_sha256, status, response_headers, response, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			rec.TenantID, rec.Principal, rec.Key, rec.Method, rec.Path, rec.BodySHA256, rec.Status, string(header), rec.Body, millis(now))
		if isUniqueViolation(err) {
			return fmt.Errorf("%w: idempotency key %q already used", ErrConflict, rec.Key)
		}
		if err != nil {
			return fmt.Errorf("store: idempotency: %w", err)
		}
		return nil
	})
}

// GetIdempotent returns the live record for tenant, principal and key, or ErrNotFound
// when there is none or it is older than IdempotencyTTL.
func (s *Store) GetIdempotent(ctx context.Context, tenantID, principal, key string) (IdempotencyRecord, error) {
	var (
		rec     IdempotencyRecord
		header  string
		created int64
	)
	err := s.db.QueryRowContext(ctx, s.Rebind(`SELECT tenant_id, principal, key, method, path, body_sha256, status, response_headers, response, created_at
		FROM idempotency WHERE tenant_id = ? AND principal = ? AND key = ? AND created_at > ?`),
		tenantID, principal, key, millis(s.Now().Add(-IdempotencyTTL))).
		Scan(&rec.TenantID, &rec.Principal, &rec.Key, &rec.Method, &rec.Path, &rec.BodySHA256, &rec.Status, &header, &rec.Body, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return IdempotencyRecord{}, ErrNotFound
	}
	if err != nil {
		return IdempotencyRecord{}, fmt.Errorf("store: idempotency: %w", err)
	}
	if err := json.Unmarshal([]byte(header), &rec.Header); err != nil {
		return IdempotencyRecord{}, fmt.Errorf("store: idempotency headers: %w", err)
	}
	rec.CreatedAt = fromMillis(created)
	return rec, nil
}

// SweepIdempotency deletes records older than IdempotencyTTL and returns how many.
// Run it periodically; reads already ignore expired records.
func (s *Store) SweepIdempotency(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.Rebind(`DELETE FROM idempotency WHERE created_at <= ?`), millis(s.Now().Add(-IdempotencyTTL)))
	if err != nil {
		return 0, fmt.Errorf("store: sweep idempotency: %w", err)
	}
	return res.RowsAffected()
}
