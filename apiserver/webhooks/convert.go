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
	AttemptLog     []Attempt  `json:"attempt_log" maxItems:"20" doc:"The delivery's last 20 attempts, newest first, each with the signature headers it was sent with, so a receiver can be checked against what it got. Attempts made before the log existed are not in it."`
}

// Attempt is one logged attempt of a delivery (store.AttemptLog).
type Attempt struct {
	Attempt    int               `json:"attempt" minimum:"1" doc:"1 for the first attempt."`
	SentAt     time.Time         `json:"sent_at" doc:"When the attempt was signed and sent."`
	DurationMS int64             `json:"duration_ms" doc:"From sending the request to reading the answer."`
	StatusCode int               `json:"status_code,omitempty" doc:"The endpoint's HTTP status; absent when it did not answer."`
	Error      string            `json:"error,omitempty" doc:"Why the attempt failed; absent when it succeeded."`
	Signature  *SignatureHeaders `json:"signature" doc:"The signature headers sent; null when no request went out (the address was refused before connecting)."`
}

// SignatureHeaders are the values of the signature headers of one attempt
// (internal/webhook.Headers). They hold a MAC, never the secret.
type SignatureHeaders struct {
	XServiceSignature string `json:"x_service_signature" doc:"X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<event id>.<t>.<body>\">."`
	WebhookID         string `json:"webhook_id" doc:"webhook-id (Standard Webhooks): the event id."`
	WebhookTimestamp  string `json:"webhook_timestamp" doc:"webhook-timestamp: the signing time, unix seconds."`
	WebhookSignature  string `json:"webhook_signature" doc:"webhook-signature: v1,<base64 of the same MAC>."`
}

func attemptOf(l store.AttemptLog) Attempt {
	a := Attempt{Attempt: l.Attempt, SentAt: l.SentAt.UTC(), DurationMS: l.Duration.Milliseconds(), StatusCode: l.StatusCode, Error: l.Error}
	if l.Signature != "" {
		a.Signature = &SignatureHeaders{XServiceSignature: l.Signature, WebhookID: l.SignatureID,
			WebhookTimestamp: l.SignatureTime, WebhookSignature: l.StandardSignature}
	}
	return a
}

// deliveriesOf converts a page of deliveries with their attempt logs.
func deliveriesOf(page []store.Delivery, logs map[string][]store.AttemptLog) []Delivery {
	out := make([]Delivery, 0, len(page))
	for _, d := range page {
		v := deliveryOf(d)
		for _, l := range logs[d.ID] {
			v.AttemptLog = append(v.AttemptLog, attemptOf(l))
		}
		out = append(out, v)
	}
	return out
}

func deliveryOf(d store.Delivery) Delivery {
	out := Delivery{
		ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Status: d.Status,
		Attempts: d.Attempt, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), AttemptLog: []Attempt{},
	}
	if d.Status == store.DeliveryPending || d.Status == store.DeliveryFailed {
		t := d.NextAttemptAt.UTC()
		out.NextAttemptAt = &t
	}
	return out
}
