package webhooks

import (
	"time"

	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/store"
)

type Webhook struct {
	ID        string    `json:"id" example:"whk_abcdefghijklmnopqrstuvwxyz"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	ProjectID string    `json:"project_id" doc:"Empty: events of every project of the tenant."`
	Status    string    `json:"status" enum:"active,disabled"`
	CreatedAt time.Time `json:"created_at"`
}

func webhookOf(w store.Webhook) Webhook {
	return Webhook{ID: w.ID, URL: w.URL, Events: resource.NonNil(w.Events), ProjectID: w.ProjectID, Status: w.Status, CreatedAt: w.CreatedAt.UTC()}
}

type webhookCreate struct {
	URL       string   `json:"url" required:"true" minLength:"1" maxLength:"2048" format:"uri"`
	Events    []string `json:"events" required:"true" nullable:"false" minItems:"1" maxItems:"16" doc:"Event types, or \"*\" for all: run.completed, run.failed, claim.promoted, claim.created, dataset.profiled, budget.exhausted."`
	ProjectID string   `json:"project_id,omitempty" maxLength:"64"`
	Secret    string   `json:"secret" required:"true" minLength:"16" maxLength:"256" doc:"Signing secret for X-Service-Signature; never returned."`
}

type Delivery struct {
	ID             string     `json:"id" example:"dlv_abcdefghijklmnopqrstuvwxyz"`
	WebhookID      string     `json:"webhook_id"`
	EventID        string     `json:"event_id"`
	EventType      string     `json:"event_type"`
	Status         string     `json:"status" enum:"pending,succeeded,failed,dead"`
	Attempts       int        `json:"attempts"`
	NextAttemptAt  *time.Time `json:"next_attempt_at,omitempty"`
	LastStatusCode int        `json:"last_status_code,omitempty"`
	LastError      string     `json:"last_error,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

func deliveryOf(d store.Delivery) Delivery {
	out := Delivery{
		ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Status: d.Status,
		Attempts: d.Attempt, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
	}
	if d.Status == store.DeliveryPending || d.Status == store.DeliveryFailed {
		t := d.NextAttemptAt.UTC()
		out.NextAttemptAt = &t
	}
	return out
}
