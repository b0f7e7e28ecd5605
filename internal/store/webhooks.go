package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/discolab/disco/internal/ids"
)

// Webhook registration statuses.
const (
	WebhookActive   = "active"
	WebhookDisabled = "disabled"
)

// Webhook is a registered endpoint. Secret signs deliveries and is never returned by
// the API; it is stored as given because signing needs it.
type Webhook struct {
	ID        string
	TenantID  string
	ProjectID string // "" receives events of every project of the tenant
	URL       string
	Events    []string // event types; "*" matches every type
	Secret    string
	Status    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Matches reports whether the registration wants an event of that type and project.
func (w Webhook) Matches(projectID, eventType string) bool {
	if w.Status != WebhookActive {
		return false
	}
	if w.ProjectID != "" && w.ProjectID != projectID {
		return false
	}
	return slices.Contains(w.Events, eventType) || slices.Contains(w.Events, "*")
}

// CreateWebhook stores a new active registration; ID, Status and timestamps are
// assigned here.
func (s *Store) CreateWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	if w.TenantID == "" || w.URL == "" || w.Secret == "" || len(w.Events) == 0 {
		return Webhook{}, errors.New("store: webhook needs tenant, url, secret and events")
	}
	w.ID = ids.New(ids.Webhook)
	w.Status = WebhookActive
	w.CreatedAt = s.Now()
	w.UpdatedAt = w.CreatedAt
	events, _ := json.Marshal(w.Events)
	_, err := s.db.ExecContext(ctx, s.Rebind(`INSERT INTO webhooks
		(id, tenant_id, project_id, url, events, secret, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		w.ID, w.TenantID, w.ProjectID, w.URL, string(events), w.Secret, w.Status, millis(w.CreatedAt), millis(w.UpdatedAt))
	if err != nil {
		return Webhook{}, fmt.Errorf("store: create webhook: %w", err)
	}
	return w, nil
}

const webhookColumns = `id, tenant_id, project_id, url, events, secret, status, created_at, updated_at`

// WebhookByID returns the tenant's registration, or ErrNotFound.
func (s *Store) WebhookByID(ctx context.Context, tenantID, id string) (Webhook, error) {
	return scanWebhook(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+webhookColumns+` FROM webhooks WHERE tenant_id = ? AND id = ?`), tenantID, id))
}

// ListWebhooks returns up to limit of the tenant's registrations in creation order,
// starting after the one with id after ("" for the first page).
func (s *Store) ListWebhooks(ctx context.Context, tenantID string, limit int, after string) ([]Webhook, error) {
	q := `SELECT ` + webhookColumns + ` FROM webhooks WHERE tenant_id = ?`
	args := []any{tenantID}
	if after != "" {
		q += ` AND (created_at, id) > (SELECT created_at, id FROM webhooks WHERE tenant_id = ? AND id = ?)`
		args = append(args, tenantID, after)
	}
	q += ` ORDER BY created_at, id LIMIT ?`
	args = append(args, clampLimit(limit))
	rows, err := s.db.QueryContext(ctx, s.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list webhooks: %w", err)
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SetWebhookStatus enables or disables the tenant's registration (a 410 answer from
// the endpoint disables it).
func (s *Store) SetWebhookStatus(ctx context.Context, tenantID, id, status string) error {
	if status != WebhookActive && status != WebhookDisabled {
		return fmt.Errorf("store: unknown webhook status %q", status)
	}
	res, err := s.db.ExecContext(ctx, s.Rebind(`UPDATE webhooks SET status = ?, updated_at = ? WHERE tenant_id = ? AND id = ?`),
		status, millis(s.Now()), tenantID, id)
	if err != nil {
		return fmt.Errorf("store: update webhook: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteWebhook removes the tenant's registration and its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, tenantID, id string) error {
	res, err := s.db.ExecContext(ctx, s.Rebind(`DELETE FROM webhooks WHERE tenant_id = ? AND id = ?`), tenantID, id)
	if err != nil {
		return fmt.Errorf("store: delete webhook: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

func scanWebhook(row interface{ Scan(...any) error }) (Webhook, error) {
	var (
		w                Webhook
		events           string
		created, updated int64
	)
	err := row.Scan(&w.ID, &w.TenantID, &w.ProjectID, &w.URL, &events, &w.Secret, &w.Status, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Webhook{}, ErrNotFound
	}
	if err != nil {
		return Webhook{}, fmt.Errorf("store: read webhook: %w", err)
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return Webhook{}, fmt.Errorf("store: webhook %s events: %w", w.ID, err)
	}
	w.CreatedAt, w.UpdatedAt = fromMillis(created), fromMillis(updated)
	return w, nil
}

// AttemptLogSize is how many attempts of a delivery the store keeps: the newest, so
// a delivery retried for 72 hours keeps its last ones (issue 15).
const AttemptLogSize = 20

// SentAttempt is what one delivery attempt sent: when, how long the exchange took,
// and the signature headers it carried (internal/webhook.Headers; never the secret).
type SentAttempt struct {
	SentAt            time.Time
	Duration          time.Duration
	Signature         string // X-Service-Signature
	SignatureID       string // webhook-id
	SignatureTime     string // webhook-timestamp
	StandardSignature string // webhook-signature
}

// AttemptLog is one logged attempt of a delivery.
type AttemptLog struct {
	SentAttempt
	Attempt    int    // 1 for the first attempt
	StatusCode int    // 0 when there was no HTTP answer
	Error      string // why it failed; "" when it succeeded
}

// logAttempt adds the attempt a, recorded in tx, to its delivery's log and drops
// entries older than the last AttemptLogSize. It numbers the entry n, the
// delivery's attempt count as tx has just raised it, so concurrent recorders of
// one delivery cannot share a number.
func (s *Store) logAttempt(ctx context.Context, tx *sql.Tx, tenantID string, n int, a DeliveryAttempt) error {
	if a.Sent == nil {
		return nil
	}
	code := sql.NullInt64{Int64: int64(a.StatusCode), Valid: a.StatusCode != 0}
	x := a.Sent
	if _, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO webhook_attempts
		(delivery_id, attempt, tenant_id, sent_at, duration_ms, status_code, error, signature, signature_id, signature_time, standard_signature)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		a.DeliveryID, n, tenantID, millis(x.SentAt), x.Duration.Milliseconds(), code, a.Error,
		x.Signature, x.SignatureID, x.SignatureTime, x.StandardSignature); err != nil {
		return fmt.Errorf("store: log attempt: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.Rebind(`DELETE FROM webhook_attempts WHERE delivery_id = ? AND attempt <= ?`),
		a.DeliveryID, n-AttemptLogSize); err != nil {
		return fmt.Errorf("store: trim attempt log: %w", err)
	}
	return nil
}

// AttemptLogs returns the logged attempts of the tenant's deliveries with the given
// ids, newest first, keyed by delivery id; deliveries without any are absent.
func (s *Store) AttemptLogs(ctx context.Context, tenantID string, deliveryIDs []string) (map[string][]AttemptLog, error) {
	out := map[string][]AttemptLog{}
	if len(deliveryIDs) == 0 {
		return out, nil
	}
	args := []any{tenantID}
	for _, id := range deliveryIDs {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, s.Rebind(`SELECT delivery_id, attempt, sent_at, duration_ms, status_code, error,
		signature, signature_id, signature_time, standard_signature FROM webhook_attempts
		WHERE tenant_id = ? AND delivery_id IN (`+placeholders(len(deliveryIDs))+`) ORDER BY delivery_id, attempt DESC`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list attempts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id        string
			l         AttemptLog
			sent, dur int64
			code      sql.NullInt64
		)
		if err := rows.Scan(&id, &l.Attempt, &sent, &dur, &code, &l.Error,
			&l.Signature, &l.SignatureID, &l.SignatureTime, &l.StandardSignature); err != nil {
			return nil, fmt.Errorf("store: read attempt: %w", err)
		}
		l.SentAt, l.Duration, l.StatusCode = fromMillis(sent), time.Duration(dur)*time.Millisecond, int(code.Int64)
		out[id] = append(out[id], l)
	}
	return out, rows.Err()
}
