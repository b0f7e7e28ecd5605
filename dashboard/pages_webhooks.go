package dashboard

import (
	"net/http"
	"strings"

	"github.com/discolab/disco/dashboard/api"
)

// events are the webhook event types (discovery-api.md, "Events"); "*" is every one.
var events = []string{"run.completed", "run.failed", "claim.created", "claim.promoted", "dataset.profiled", "budget.exhausted", "*"}

func (d *Dashboard) webhooks(c *call) error { return c.showWebhooks(http.StatusOK, nil) }

func (c *call) showWebhooks(status int, fe *formError) error {
	var l api.List[api.Webhook]
	if err := c.get("/webhooks", listQuery(c.r, "status", "project_id"), &l); err != nil {
		return err
	}
	return c.show(status, "webhooks.html", &page{Title: "Webhooks", Section: "webhooks", Data: map[string]any{
		"List": l.Data, "Pager": pagerOf(c.r, l), "Events": events, "Form": fe, "Status": c.r.URL.Query().Get("status"),
	}})
}

// createWebhook registers a webhook; the signing secret goes to the API and is never shown
// again.
func (d *Dashboard) createWebhook(c *call) error {
	if err := c.form(); err != nil {
		return err
	}
	f := c.r.PostForm
	in := map[string]any{"url": strings.TrimSpace(f.Get("url")), "events": nonNilStrings(f["events"]), "secret": f.Get("secret")}
	if pid := f.Get("project_id"); pid != "" {
		in["project_id"] = pid
	}
	var w api.Webhook
	if err := c.send(http.MethodPost, "/webhooks", in, &w); err != nil {
		if apiRefusal(err) {
			f.Del("secret")
			return c.showWebhooks(api.StatusOf(err), formErrorOf(err, f, "url", "events", "secret", "project_id"))
		}
		return err
	}
	return c.seeOther("/settings/webhooks/" + w.ID)
}

func (d *Dashboard) webhook(c *call) error { return c.showWebhook(http.StatusOK, "") }

func (c *call) showWebhook(status int, msg string) error {
	ids, err := c.ids("wid")
	if err != nil {
		return err
	}
	var w api.Webhook
	if err := c.get("/webhooks/"+ids[0], nil, &w); err != nil {
		return err
	}
	var l api.List[api.Delivery]
	if err := c.get("/webhooks/"+ids[0]+"/deliveries", listQuery(c.r), &l); err != nil {
		return err
	}
	return c.show(status, "webhook.html", &page{Title: "Webhook", Section: "webhooks", Data: map[string]any{
		"W": w, "List": l.Data, "Pager": pagerOf(c.r, l), "Message": msg,
	}})
}

// redeliver queues a delivery again through the API.
func (d *Dashboard) redeliver(c *call) error {
	ids, err := c.ids("wid", "did")
	if err != nil {
		return err
	}
	var dl api.Delivery
	if err := c.send(http.MethodPost, "/webhooks/"+ids[0]+"/deliveries/"+ids[1]+"/redeliver", map[string]any{}, &dl); err != nil {
		if apiRefusal(err) {
			return c.showWebhook(api.StatusOf(err), messageOf(err))
		}
		return err
	}
	return c.seeOther("/settings/webhooks/" + ids[0] + "?redelivered=" + dl.ID)
}

func (d *Dashboard) deleteWebhook(c *call) error {
	ids, err := c.ids("wid")
	if err != nil {
		return err
	}
	if err := c.send(http.MethodDelete, "/webhooks/"+ids[0], nil, nil); err != nil {
		if apiRefusal(err) {
			return c.showWebhook(api.StatusOf(err), messageOf(err))
		}
		return err
	}
	return c.seeOther("/settings/webhooks")
}

// oauthClients lists the tenant's OAuth clients (the dashboard's own among them).
func (d *Dashboard) oauthClients(c *call) error {
	var l api.List[api.OAuthClient]
	if err := c.get("/oauth-clients", listQuery(c.r), &l); err != nil {
		return err
	}
	return c.show(http.StatusOK, "clients.html", &page{Title: "OAuth clients", Section: "clients", Data: map[string]any{
		"List": l.Data, "Pager": pagerOf(c.r, l),
	}})
}
