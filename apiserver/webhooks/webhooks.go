package webhooks

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/webhook"
)

// Deps is what the webhooks room needs.
type Deps struct {
	Kit *resource.Kit
	// Store keeps registrations and deliveries.
	Store *store.Store
	// AllowLoopbackWebhooks lets webhooks target loopback addresses (disco dev).
	AllowLoopbackWebhooks bool
}

type handlers struct{ Deps }

// Register adds the webhooks operations under /webhooks.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/webhooks")
	transport.Register(g, huma.Operation{
		OperationID: "createWebhook", Method: http.MethodPost, Path: "",
		Summary: "Register a webhook", Tags: []string{"Webhooks"}, DefaultStatus: http.StatusCreated,
		Description: "Deliveries are signed: X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<event id>.<t>.<body>\">, " +
			"plus Standard Webhooks headers. The URL must be https (plain http only where the deployment allows loopback " +
			"receivers, as disco dev does), without user or password, with a valid host name or a public IP address and a " +
			"port from 1 to 65535; a literal private, loopback, link-local or metadata address is refused (422). Host names " +
			"are not resolved at registration: every delivery resolves the name and refuses to connect to such an " +
			"address, and the delivery is recorded as failed with the reason.",
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
	}, auth.WebhooksWrite, s.createWebhook)
	transport.Register(g, huma.Operation{
		OperationID: "listWebhooks", Method: http.MethodGet, Path: "",
		Summary: "List webhook registrations", Tags: []string{"Webhooks"},
	}, auth.WebhooksWrite, s.listWebhooks)
	transport.Register(g, huma.Operation{
		OperationID: "getWebhook", Method: http.MethodGet, Path: "/{webhook_id}",
		Summary: "Get a webhook registration", Tags: []string{"Webhooks"}, Errors: []int{http.StatusNotFound},
	}, auth.WebhooksWrite, s.getWebhook)
	transport.Register(g, huma.Operation{
		OperationID: "deleteWebhook", Method: http.MethodDelete, Path: "/{webhook_id}",
		Summary: "Delete a webhook registration", Tags: []string{"Webhooks"}, DefaultStatus: http.StatusNoContent,
		Errors: []int{http.StatusNotFound},
	}, auth.WebhooksWrite, s.deleteWebhook)
	transport.Register(g, huma.Operation{
		OperationID: "listDeliveries", Method: http.MethodGet, Path: "/{webhook_id}/deliveries",
		Summary: "List a registration's deliveries, newest first", Tags: []string{"Webhooks"}, Errors: []int{http.StatusNotFound},
	}, auth.WebhooksWrite, s.listDeliveries)
	transport.Register(g, huma.Operation{
		OperationID: "getDelivery", Method: http.MethodGet, Path: "/{webhook_id}/deliveries/{delivery_id}",
		Summary: "Get a delivery with its attempt log", Tags: []string{"Webhooks"}, Errors: []int{http.StatusNotFound},
	}, auth.WebhooksWrite, s.getDelivery)
	transport.Register(g, huma.Operation{
		OperationID: "redeliver", Method: http.MethodPost, Path: "/{webhook_id}/deliveries/{delivery_id}/redeliver",
		Summary: "Send a delivery again", Tags: []string{"Webhooks"}, DefaultStatus: http.StatusAccepted,
		Errors: []int{http.StatusNotFound},
	}, auth.WebhooksWrite, s.redeliver)
}

func (s *handlers) createWebhook(ctx context.Context, in *struct{ Body webhookCreate }) (*struct {
	Location string `header:"Location"`
	Body     Webhook
}, error) {
	p, t := auth.Who(ctx)
	b := in.Body
	if len(b.Events) == 0 {
		return nil, apierror.Invalid("body.events", "at least one event type, or \"*\" for all")
	}
	for i, e := range b.Events {
		if e != "*" && !webhook.ValidEventType(e) {
			return nil, apierror.Invalid("body.events["+strconv.Itoa(i)+"]", "unknown event type "+e+"; known: run.completed, run.failed, claim.promoted, claim.created, dataset.profiled, budget.exhausted, or *")
		}
	}
	if b.ProjectID != "" {
		if _, err := s.Kit.Project(ctx, b.ProjectID); err != nil {
			return nil, err
		}
	} else if p.Restricted() {
		return nil, apierror.Invalid("body.project_id", "required for an API key restricted to projects")
	}
	if err := webhook.CheckURL(b.URL, s.AllowLoopbackWebhooks, false); err != nil {
		return nil, apierror.New(http.StatusUnprocessableEntity, apierror.CodeWebhookURL, "the webhook URL is not allowed: %v", err).
			With("field", "body.url").With("reason", err.Error())
	}
	w, err := s.Store.CreateWebhook(ctx, store.Webhook{
		TenantID: t.ID, ProjectID: b.ProjectID, URL: b.URL, Events: slices.Compact(slices.Sorted(slices.Values(b.Events))), Secret: b.Secret,
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return &struct {
		Location string `header:"Location"`
		Body     Webhook
	}{Location: s.Kit.BaseURL + "/webhooks/" + w.ID, Body: webhookOf(w)}, nil
}

// tenantWebhooks reads every registration of the tenant the caller may see.
func (s *handlers) tenantWebhooks(ctx context.Context) ([]store.Webhook, error) {
	p, t := auth.Who(ctx)
	out, err := resource.StoreAll(ctx, t.ID, s.Store.ListWebhooks, webhookSort.ID, func(w store.Webhook) bool {
		return !p.Restricted() || (w.ProjectID != "" && p.AllowsProject(w.ProjectID))
	})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return out, nil
}

var webhookSort = pagination.Spec[store.Webhook]{
	Name: "webhooks",
	Fields: map[string]func(store.Webhook) pagination.Key{
		"created_at": func(w store.Webhook) pagination.Key { return pagination.Time(w.CreatedAt) },
		"url":        func(w store.Webhook) pagination.Key { return pagination.String(w.URL) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(w store.Webhook) string { return w.ID },
}

func (s *handlers) listWebhooks(ctx context.Context, in *struct {
	resource.PageParams
	Sort      string `query:"sort" enum:"created_at,url"`
	ProjectID string `query:"project_id" maxLength:"64" doc:"Only registrations of this project."`
	Status    string `query:"status" enum:"active,disabled"`
}) (*resource.ListOutput[Webhook], error) {
	all, err := s.tenantWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	items := all[:0]
	for _, w := range all {
		if (in.ProjectID == "" || w.ProjectID == in.ProjectID) && (in.Status == "" || w.Status == in.Status) {
			items = append(items, w)
		}
	}
	return resource.Paginate(s.Kit, items, webhookSort, in.PageParams, in.Sort, resource.FilterKey("project_id", in.ProjectID, "status", in.Status), webhookOf)
}

type WebhookPath struct {
	WebhookID string `path:"webhook_id" maxLength:"64"`
}

func (s *handlers) webhook(ctx context.Context, id string) (store.Webhook, error) {
	p, t := auth.Who(ctx)
	if !ids.Valid(ids.Webhook, id) {
		return store.Webhook{}, apierror.NotFound("webhook", id)
	}
	w, err := s.Store.WebhookByID(ctx, t.ID, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.Restricted() && (w.ProjectID == "" || !p.AllowsProject(w.ProjectID))) {
		return store.Webhook{}, apierror.NotFound("webhook", id)
	}
	if err != nil {
		return store.Webhook{}, apierror.Internal(err)
	}
	return w, nil
}

func (s *handlers) getWebhook(ctx context.Context, in *WebhookPath) (*struct{ Body Webhook }, error) {
	w, err := s.webhook(ctx, in.WebhookID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body Webhook }{Body: webhookOf(w)}, nil
}

func (s *handlers) deleteWebhook(ctx context.Context, in *WebhookPath) (*struct{}, error) {
	_, t := auth.Who(ctx)
	if _, err := s.webhook(ctx, in.WebhookID); err != nil {
		return nil, err
	}
	if err := s.Store.DeleteWebhook(ctx, t.ID, in.WebhookID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, apierror.Internal(err)
	}
	return &struct{}{}, nil
}

func (s *handlers) listDeliveries(ctx context.Context, in *struct {
	WebhookPath
	Limit  int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
	Cursor string `query:"cursor" maxLength:"4096"`
}) (*resource.ListOutput[Delivery], error) {
	_, t := auth.Who(ctx)
	if _, err := s.webhook(ctx, in.WebhookID); err != nil {
		return nil, err
	}
	// Deliveries page in SQL, newest first, keyed by id; the cursor carries the last id.
	after := ""
	filter := "webhook=" + in.WebhookID
	if in.Cursor != "" {
		c, err := s.Kit.Cursors.Decode(in.Cursor)
		if err != nil || c.Filter != filter {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeInvalidCursor, "the cursor is not valid for this list").
				With("fields", []apierror.Field{{Field: "query.cursor", Message: "not a cursor issued by this list"}})
		}
		after = c.ID
	}
	limit := max(in.Limit, 1)
	page, err := s.Store.ListDeliveries(ctx, t.ID, in.WebhookID, limit, after)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	logs, err := s.Store.AttemptLogs(ctx, t.ID, deliveryIDs(page))
	if err != nil {
		return nil, apierror.Internal(err)
	}
	out := &resource.ListOutput[Delivery]{Body: resource.ListPage[Delivery]{Object: "list", Data: deliveriesOf(page, logs)}}
	if len(page) == limit {
		more, err := s.Store.ListDeliveries(ctx, t.ID, in.WebhookID, 1, page[len(page)-1].ID)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		if len(more) > 0 {
			out.Body.HasMore = true
			out.Body.NextCursor = s.Kit.Cursors.Encode(pagination.Cursor{Sort: "created_at", Order: pagination.Desc, Filter: filter, ID: page[len(page)-1].ID})
		}
	}
	return out, nil
}

func deliveryIDs(page []store.Delivery) []string {
	out := make([]string, len(page))
	for i, d := range page {
		out[i] = d.ID
	}
	return out
}

type DeliveryPath struct {
	WebhookPath
	DeliveryID string `path:"delivery_id" maxLength:"64"`
}

func (s *handlers) getDelivery(ctx context.Context, in *DeliveryPath) (*struct{ Body Delivery }, error) {
	_, t := auth.Who(ctx)
	if _, err := s.webhook(ctx, in.WebhookID); err != nil {
		return nil, err
	}
	if !ids.Valid(ids.Delivery, in.DeliveryID) {
		return nil, apierror.NotFound("delivery", in.DeliveryID)
	}
	d, err := s.Store.DeliveryByID(ctx, t.ID, in.WebhookID, in.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierror.NotFound("delivery", in.DeliveryID)
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	logs, err := s.Store.AttemptLogs(ctx, t.ID, []string{d.ID})
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return &struct{ Body Delivery }{Body: deliveriesOf([]store.Delivery{d}, logs)[0]}, nil
}

func (s *handlers) redeliver(ctx context.Context, in *struct {
	WebhookPath
	DeliveryID string `path:"delivery_id" maxLength:"64"`
}) (*struct{ Body Delivery }, error) {
	_, t := auth.Who(ctx)
	if _, err := s.webhook(ctx, in.WebhookID); err != nil {
		return nil, err
	}
	d, err := s.Store.Redeliver(ctx, t.ID, in.WebhookID, in.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierror.NotFound("delivery", in.DeliveryID)
	}
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return &struct{ Body Delivery }{Body: deliveryOf(d)}, nil
}
