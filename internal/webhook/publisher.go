package webhook

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Publisher queues events in the store's outbox for every matching registration.
// It never sends anything itself, so publishing is as fast and as reliable as one
// database transaction.
type Publisher struct {
	st  *store.Store
	now func() time.Time
}

// NewPublisher returns a Publisher writing to st. now stamps created_at; nil means
// time.Now.
func NewPublisher(st *store.Store, now func() time.Time) *Publisher {
	if now == nil {
		now = time.Now
	}
	return &Publisher{st: st, now: now}
}

// Publish queues an event of eventType for every active registration of the tenant
// that subscribes to it and to projectID, and returns the event id. An event with
// no subscriber still gets an id: callers may log it, nothing is sent.
func (p *Publisher) Publish(ctx context.Context, tenantID, projectID, eventType string, data map[string]any) (string, error) {
	ev, err := p.event(projectID, eventType, data)
	if err != nil {
		return "", err
	}
	ev, _, err = p.st.EnqueueEvent(ctx, tenantID, projectID, ev)
	if err != nil {
		return "", fmt.Errorf("webhook: publish %s: %w", eventType, err)
	}
	return ev.ID, nil
}

// PublishTx is Publish inside the caller's transaction, so an event is queued if
// and only if the change it announces commits.
func (p *Publisher) PublishTx(ctx context.Context, tx *sql.Tx, tenantID, projectID, eventType string, data map[string]any) (string, error) {
	ev, err := p.event(projectID, eventType, data)
	if err != nil {
		return "", err
	}
	ev, _, err = p.st.EnqueueEventTx(ctx, tx, tenantID, projectID, ev)
	if err != nil {
		return "", fmt.Errorf("webhook: publish %s: %w", eventType, err)
	}
	return ev.ID, nil
}

func (p *Publisher) event(projectID, eventType string, data map[string]any) (store.Event, error) {
	if !ValidEventType(eventType) {
		return store.Event{}, fmt.Errorf("webhook: unknown event type %q", eventType)
	}
	// Copy so the caller's map is neither mutated nor shared with the encoder.
	d := make(map[string]any, len(data)+1)
	maps.Copy(d, data)
	if _, ok := d["project_id"]; !ok && projectID != "" {
		d["project_id"] = projectID
	}
	if err := checkData(eventType, d); err != nil {
		return store.Event{}, err
	}
	return store.Event{
		ID:        ids.New(ids.Event),
		Type:      eventType,
		CreatedAt: p.now().UTC().Truncate(time.Millisecond),
		Data:      d,
	}, nil
}
