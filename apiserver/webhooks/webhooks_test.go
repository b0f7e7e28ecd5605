package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/resource/roomtest"
	"github.com/discolab/disco/internal/store/storetest"
)

// The registration handlers are called without HTTP, over a SQLite store: what a
// registration may name, and who sees it.

const (
	tenantA = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	tenantB = "ten_bbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func create(ctx context.Context, h *handlers, url string, events ...string) (string, error) {
	out, err := h.createWebhook(ctx, &struct{ Body webhookCreate }{Body: webhookCreate{URL: url, Events: events, Secret: "0123456789abcdef"}})
	if err != nil {
		return "", err
	}
	return out.Body.ID, nil
}

func TestRegistrationsAreCheckedAndStayInTheirTenant(t *testing.T) {
	kit := resource.NewKit(resource.Kit{Now: time.Now, BaseURL: "/v1"})
	h := &handlers{Deps{Kit: kit, Store: storetest.OpenSQLite(t)}}
	a := roomtest.Caller(tenantA, "ns", auth.All)

	_, err := create(a, h, "https://hooks.example/disco", "run.finished")
	roomtest.WantError(t, err, 400, apierror.CodeValidation)
	_, err = create(roomtest.Caller(tenantA, "ns", auth.All, "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"), h, "https://hooks.example/disco", "*")
	roomtest.WantError(t, err, 400, apierror.CodeValidation)
	_, err = create(a, h, "http://127.0.0.1:9000/hook", "*")
	roomtest.WantError(t, err, 422, apierror.CodeWebhookURL)

	id, err := create(a, h, "https://hooks.example/disco", "run.completed", "*", "run.completed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.getWebhook(a, &WebhookPath{WebhookID: id})
	if err != nil || len(got.Body.Events) != 2 {
		t.Fatalf("%+v, %v: want the events sorted and without repeats", got, err)
	}
	_, err = h.getWebhook(roomtest.Caller(tenantB, "ns", auth.All), &WebhookPath{WebhookID: id})
	roomtest.WantError(t, err, 404, apierror.CodeNotFound)
	_, err = h.deleteWebhook(roomtest.Caller(tenantB, "ns", auth.All), &WebhookPath{WebhookID: id})
	roomtest.WantError(t, err, 404, apierror.CodeNotFound)

	h.AllowLoopbackWebhooks = true
	if _, err := create(a, h, "http://127.0.0.1:9000/hook", "*"); err != nil {
		t.Fatalf("a loopback receiver where allowed: %v", err)
	}
}
