package apiserver

import (
	"net/http"
	"testing"
)

// TestWebhookRegistrationNeedsNoDNS (issue 17): registration judges the URL by its
// form and literal address only. A host name that no resolver knows (.invalid never
// resolves, RFC 2606) is accepted; its addresses are checked at every delivery. Bad
// forms and literal internal addresses are refused with webhook_url_not_allowed.
func TestWebhookRegistrationNeedsNoDNS(t *testing.T) {
	register := func(url string) *response {
		return call(t, "POST", "/v1/webhooks", env.adminA, map[string]any{
			"url": url, "events": []string{"run.completed"}, "secret": "0123456789abcdef0123"})
	}
	r := register("https://hooks.example.invalid/hook").expect(t, http.StatusCreated)
	call(t, "DELETE", "/v1/webhooks/"+r.str("id"), env.adminA, nil).expect(t, http.StatusNoContent)
	for _, url := range []string{
		"https://10.0.0.1/hook",
		"https://169.254.169.254/latest/meta-data/",
		"https://user:pw@hooks.example.invalid/hook",
		"https://hooks.example.invalid:0/hook",
		"https://bad_host.invalid/hook",
		"ftp://hooks.example.invalid/hook",
	} {
		checkEnvelope(t, register(url), http.StatusUnprocessableEntity, "webhook_url_not_allowed")
	}
}
