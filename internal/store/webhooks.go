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
