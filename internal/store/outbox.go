package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/discolab/disco/internal/ids"
)

// Delivery statuses. A failed delivery has a retry scheduled at NextAttemptAt; a dead
// one has none left (retry window over, or the endpoint answered 410).
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
	DeliveryDead      = "dead"
)

// Event is the envelope delivered to webhook endpoints.
type Event struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	CreatedAt time.Time      `json:"created_at"`
	Data      map[string]any `json:"data"`
}

// Delivery is one event on its way to one registration: the durable outbox row.
type Delivery struct {
	ID             string
	WebhookID      string
	TenantID       string
	EventID        string
	EventType      string
	Payload        []byte // the exact bytes to POST (the Event envelope), identical on every attempt
	Attempt        int    // attempts made so far
	Status         string
	NextAttemptAt  time.Time
	LastStatusCode int // 0 when there was no HTTP answer
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// DueDelivery is a claimed delivery with what the dispatcher needs to send it.
type DueDelivery struct {
	Delivery
	URL    string
	Secret string
}

// EnqueueEvent assigns the event an id and time if it has none and queues one delivery
// per active registration of the tenant that matches the project and event type, all in
// one transaction. It returns the event as it will be delivered and the deliveries.
func (s *Store) EnqueueEvent(ctx context.Context, tenantID, projectID string, ev Event) (Event, []Delivery, error) {
	var out []Delivery
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		var err error
		ev, out, err = s.EnqueueEventTx(ctx, tx, tenantID, projectID, ev)
		return err
	})
	return ev, out, err
}

// EnqueueEventTx is EnqueueEvent inside the caller's transaction, so an event can be
// queued atomically with the change it announces.
func (s *Store) EnqueueEventTx(ctx context.Context, tx *sql.Tx, tenantID, projectID string, ev Event) (Event, []Delivery, error) {
	if ev.Type == "" {
		return ev, nil, errors.New("store: event needs a type")
	}
	now := s.Now()
	if ev.ID == "" {
		ev.ID = ids.New(ids.Event)
	}
	if ev.CreatedAt.IsZero() {
		ev.CreatedAt = now
	}
	ev.CreatedAt = ev.CreatedAt.UTC().Truncate(time.Millisecond)
	if ev.Data == nil {
		ev.Data = map[string]any{}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return ev, nil, fmt.Errorf("store: encode event: %w", err)
	}
	rows, err := tx.QueryContext(ctx, s.Rebind(`SELECT `+webhookColumns+` FROM webhooks
		WHERE tenant_id = ? AND status = ? AND (project_id = '' OR project_id = ?)`), tenantID, WebhookActive, projectID)
	if err != nil {
		return ev, nil, fmt.Errorf("store: match webhooks: %w", err)
	}
	var targets []Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			rows.Close()
			return ev, nil, err
		}
		if w.Matches(projectID, ev.Type) {
			targets = append(targets, w)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ev, nil, err
	}
	out := make([]Delivery, 0, len(targets))
	for _, w := range targets {
		d := Delivery{
			ID: ids.New(ids.Delivery), WebhookID: w.ID, TenantID: tenantID, EventID: ev.ID, EventType: ev.Type,
			Payload: payload, Status: DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now,
		}
		if err := s.insertDelivery(ctx, tx, d); err != nil {
			return ev, nil, err
		}
		out = append(out, d)
	}
	return ev, out, nil
}

func (s *Store) insertDelivery(ctx context.Context, tx *sql.Tx, d Delivery) error {
	_, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO webhook_deliveries
		(id, webhook_id, tenant_id, event_id, event_type, payload, attempt, status, next_attempt_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		d.ID, d.WebhookID, d.TenantID, d.EventID, d.EventType, string(d.Payload), d.Attempt, d.Status,
		millis(d.NextAttemptAt), millis(d.CreatedAt), millis(d.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: queue delivery: %w", err)
	}
	return nil
}

// ClaimDueDeliveries leases up to limit deliveries that are due at now (pending, or
// failed with their retry time reached) and whose registration is active, oldest due
// first. A leased delivery is not handed out again until lease has passed, so a
// dispatcher that dies mid-send loses nothing: its deliveries come back after the lease.
// On PostgreSQL, concurrent dispatchers skip each other's rows (FOR UPDATE SKIP LOCKED).
func (s *Store) ClaimDueDeliveries(ctx context.Context, now time.Time, limit int, lease time.Duration) ([]DueDelivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	nowMs := millis(now)
	var out []DueDelivery
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		lock := ""
		if s.dialect == Postgres {
			lock = " FOR UPDATE OF d SKIP LOCKED"
		}
		rows, err := tx.QueryContext(ctx, s.Rebind(`SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.status IN (?, ?) AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?) AND w.status = ?
			ORDER BY d.next_attempt_at, d.id LIMIT ?`+lock),
			DeliveryPending, DeliveryFailed, nowMs, nowMs, WebhookActive, limit)
		if err != nil {
			return fmt.Errorf("store: find due deliveries: %w", err)
		}
		var claimed []any
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			claimed = append(claimed, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(claimed) == 0 {
			return err
		}
		in := placeholders(len(claimed))
		args := append([]any{millis(now.Add(lease)), nowMs}, claimed...)
		if _, err := tx.ExecContext(ctx, s.Rebind(`UPDATE webhook_deliveries SET lease_until = ?, updated_at = ? WHERE id IN (`+in+`)`), args...); err != nil {
			return fmt.Errorf("store: lease deliveries: %w", err)
		}
		rows, err = tx.QueryContext(ctx, s.Rebind(`SELECT `+deliveryColumns+`, w.url, w.secret
			FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.id IN (`+in+`) ORDER BY d.next_attempt_at, d.id`), claimed...)
		if err != nil {
			return fmt.Errorf("store: read claimed deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var due DueDelivery
			if err := scanDelivery(rows, &due.Delivery, &due.URL, &due.Secret); err != nil {
				return err
			}
			out = append(out, due)
		}
		return rows.Err()
	})
	return out, err
}

// DeliveryAttempt is the outcome of sending one claimed delivery.
type DeliveryAttempt struct {
	DeliveryID string
	Succeeded  bool
	StatusCode int    // 0 when there was no HTTP answer
	Error      string // why it failed, for the deliveries log
	// NextAttemptAt schedules a retry after a failure; nil means none is left and the
	// delivery is dead.
	NextAttemptAt *time.Time
	// DisableWebhook disables the registration (the endpoint answered 410 Gone); the
	// delivery is then dead whatever NextAttemptAt says.
	DisableWebhook bool
	// Sent is what the attempt sent, kept in the delivery's attempt log
	// (webhooks.go); nil keeps no entry.
	Sent *SentAttempt
}

// RecordDeliveryAttempt stores the outcome of an attempt and releases the lease.
func (s *Store) RecordDeliveryAttempt(ctx context.Context, a DeliveryAttempt) error {
	now := s.Now()
	status, next := DeliverySucceeded, now
	switch {
	case a.Succeeded:
	case a.DisableWebhook || a.NextAttemptAt == nil:
		status = DeliveryDead
	default:
		status, next = DeliveryFailed, *a.NextAttemptAt
	}
	code := sql.NullInt64{Int64: int64(a.StatusCode), Valid: a.StatusCode != 0}
	return s.WithTx(ctx, func(tx *sql.Tx) error {
		var webhookID, tenantID string
		err := tx.QueryRowContext(ctx, s.Rebind(`SELECT webhook_id, tenant_id FROM webhook_deliveries WHERE id = ?`), a.DeliveryID).Scan(&webhookID, &tenantID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: record attempt: %w", err)
		}
		var attempt int
		if err := tx.QueryRowContext(ctx, s.Rebind(`UPDATE webhook_deliveries SET attempt = attempt + 1, status = ?, next_attempt_at = ?,
			lease_until = NULL, last_status_code = ?, last_error = ?, updated_at = ? WHERE id = ? RETURNING attempt`),
			status, millis(next), code, a.Error, millis(now), a.DeliveryID).Scan(&attempt); err != nil {
			return fmt.Errorf("store: record attempt: %w", err)
		}
		if err := s.logAttempt(ctx, tx, tenantID, attempt, a); err != nil {
			return err
		}
		if a.DisableWebhook {
			if _, err := tx.ExecContext(ctx, s.Rebind(`UPDATE webhooks SET status = ?, updated_at = ? WHERE id = ?`),
				WebhookDisabled, millis(now), webhookID); err != nil {
				return fmt.Errorf("store: disable webhook: %w", err)
			}
		}
		return nil
	})
}

const deliveryColumns = `d.id, d.webhook_id, d.tenant_id, d.event_id, d.event_type, d.payload, d.attempt, d.status,
	d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at`

// DeliveryByID returns one delivery of the tenant's registration, or ErrNotFound.
func (s *Store) DeliveryByID(ctx context.Context, tenantID, webhookID, id string) (Delivery, error) {
	var d Delivery
	err := scanDelivery(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+deliveryColumns+` FROM webhook_deliveries d
		WHERE d.tenant_id = ? AND d.webhook_id = ? AND d.id = ?`), tenantID, webhookID, id), &d)
	return d, err
}

// ListDeliveries returns up to limit deliveries of the tenant's registration, newest
// first, starting after the delivery with id after ("" for the first page).
func (s *Store) ListDeliveries(ctx context.Context, tenantID, webhookID string, limit int, after string) ([]Delivery, error) {
	q := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d WHERE d.tenant_id = ? AND d.webhook_id = ?`
	args := []any{tenantID, webhookID}
	if after != "" {
		q += ` AND (d.created_at, d.id) < (SELECT created_at, id FROM webhook_deliveries WHERE webhook_id = ? AND id = ?)`
		args = append(args, webhookID, after)
	}
	q += ` ORDER BY d.created_at DESC, d.id DESC LIMIT ?`
	args = append(args, clampLimit(limit))
	rows, err := s.db.QueryContext(ctx, s.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list deliveries: %w", err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		var d Delivery
		if err := scanDelivery(rows, &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Redeliver queues a new delivery of the same event and payload to the same
// registration, due now; the original keeps its history.
func (s *Store) Redeliver(ctx context.Context, tenantID, webhookID, deliveryID string) (Delivery, error) {
	var d Delivery
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		var orig Delivery
		err := scanDelivery(tx.QueryRowContext(ctx, s.Rebind(`SELECT `+deliveryColumns+` FROM webhook_deliveries d
			WHERE d.tenant_id = ? AND d.webhook_id = ? AND d.id = ?`), tenantID, webhookID, deliveryID), &orig)
		if err != nil {
			return err
		}
		now := s.Now()
		d = Delivery{
			ID: ids.New(ids.Delivery), WebhookID: orig.WebhookID, TenantID: orig.TenantID, EventID: orig.EventID,
			EventType: orig.EventType, Payload: orig.Payload, Status: DeliveryPending, NextAttemptAt: now,
			CreatedAt: now, UpdatedAt: now,
		}
		return s.insertDelivery(ctx, tx, d)
	})
	return d, err
}

func scanDelivery(row interface{ Scan(...any) error }, d *Delivery, extra ...any) error {
	var (
		payload                string
		next, created, updated int64
		code                   sql.NullInt64
	)
	dest := append([]any{&d.ID, &d.WebhookID, &d.TenantID, &d.EventID, &d.EventType, &payload, &d.Attempt, &d.Status,
		&next, &code, &d.LastError, &created, &updated}, extra...)
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: read delivery: %w", err)
	}
	d.Payload = []byte(payload)
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = fromMillis(next), fromMillis(created), fromMillis(updated)
	d.LastStatusCode = int(code.Int64)
	return nil
}

// placeholders returns "?, ?, ..." with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
