package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/store/storetest"
)

// The registration handlers are called without HTTP, over a SQLite store: what a
// registration may name, and who sees it.

const (
	tenantA = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	tenantB = "ten_bbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func caller(tenant string, projects ...string) context.Context {
	return auth.WithCaller(context.Background(), &auth.Caller{
		Principal: &auth.Principal{TenantID: tenant, Scopes: auth.All, ProjectIDs: projects},
		Tenant:    &auth.Tenant{ID: tenant, Namespace: "ns"},
	})
}

func create(h *handlers, ctx context.Context, url string, events ...string) (string, error) {
	out, err := h.createWebhook(ctx, &struct{ Body webhookCreate }{Body: webhookCreate{URL: url, Events: events, Secret: "0123456789abcdef"}})
	if err != nil {
		return "", err
	}
	return out.Body.ID, nil
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if e := apierror.Of(err); e == nil || e.Body.Code != code {
		t.Fatalf("%s: %v, want %s", what, err, code)
	}
}

func TestRegistrationsAreCheckedAndStayInTheirTenant(t *testing.T) {
	kit := resource.NewKit(resource.Kit{Now: time.Now, BaseURL: "/v1"})
	h := &handlers{Deps{Kit: kit, Store: storetest.OpenSQLite(t)}}
	a := caller(tenantA)

	_, err := create(h, a, "https://hooks.example/disco", "run.finished")
	wantCode(t, "an unknown event type", err, apierror.CodeValidation)
	_, err = create(h, caller(tenantA, "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"), "https://hooks.example/disco", "*")
	wantCode(t, "a restricted key without a project", err, apierror.CodeValidation)
	_, err = create(h, a, "http://127.0.0.1:9000/hook", "*")
	wantCode(t, "a loopback receiver where none is allowed", err, apierror.CodeWebhookURL)

	id, err := create(h, a, "https://hooks.example/disco", "run.completed", "*", "run.completed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.getWebhook(a, &WebhookPath{WebhookID: id})
	if err != nil || len(got.Body.Events) != 2 {
		t.Fatalf("%+v, %v: want the events sorted and without repeats", got, err)
	}
	_, err = h.getWebhook(caller(tenantB), &WebhookPath{WebhookID: id})
	wantCode(t, "another tenant's registration", err, apierror.CodeNotFound)
	_, err = h.deleteWebhook(caller(tenantB), &WebhookPath{WebhookID: id})
	wantCode(t, "deleting another tenant's registration", err, apierror.CodeNotFound)

	h.AllowLoopbackWebhooks = true
	if _, err := create(h, a, "http://127.0.0.1:9000/hook", "*"); err != nil {
		t.Fatalf("a loopback receiver where allowed: %v", err)
	}
}
