package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/discolab/disco/dashboard/api"
)

func (d *Dashboard) pageRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /projects", d.authed(d.projects))
	m.HandleFunc("POST /projects", d.authed(d.createProject))
	m.HandleFunc("GET /projects/{pid}", d.authed(d.project))
	m.HandleFunc("POST /projects/{pid}/governance", d.authed(d.updateGovernance))
	m.HandleFunc("POST /projects/{pid}/campaigns", d.authed(d.createCampaign))
	m.HandleFunc("GET /projects/{pid}/campaigns/{cid}", d.authed(d.campaign))
	m.HandleFunc("GET /projects/{pid}/campaigns/{cid}/runs/new", d.authed(d.newRun))
	m.HandleFunc("POST /projects/{pid}/campaigns/{cid}/runs", d.authed(d.submitRun))
	m.HandleFunc("GET /projects/{pid}/campaigns/{cid}/runs/{rid}", d.authed(d.run))
	m.HandleFunc("GET /projects/{pid}/campaigns/{cid}/runs/{rid}/pipeline", d.authed(d.pipeline))
	m.HandleFunc("GET /projects/{pid}/campaigns/{cid}/runs/{rid}/artifacts/{aid}", d.authed(d.artifact))
	m.HandleFunc("GET /projects/{pid}/claims", d.authed(d.claims))
	m.HandleFunc("GET /projects/{pid}/claims/{clm}", d.authed(d.claim))
	m.HandleFunc("GET /projects/{pid}/claims/{clm}/pareto.svg", d.authed(d.pareto))
	m.HandleFunc("POST /projects/{pid}/claims/{clm}/tier", d.authed(d.moveTier))
	m.HandleFunc("GET /projects/{pid}/datasets", d.authed(d.datasets))
	m.HandleFunc("POST /projects/{pid}/datasets", d.authed(d.upload))
	m.HandleFunc("GET /projects/{pid}/datasets/{did}", d.authed(d.dataset))
	m.HandleFunc("GET /projects/{pid}/datasets/{did}/columns/{col}/histogram.svg", d.authed(d.columnHistogram))
	m.HandleFunc("GET /projects/{pid}/ledger", d.authed(d.ledger))
	m.HandleFunc("GET /projects/{pid}/ledger/{eid}", d.authed(d.ledgerEntry))
	m.HandleFunc("GET /settings/keys", d.authed(d.keys))
	m.HandleFunc("POST /settings/keys", d.authed(d.createKey))
	m.HandleFunc("POST /settings/keys/{kid}/roll", d.authed(d.rollKey))
	m.HandleFunc("POST /settings/keys/{kid}/revoke", d.authed(d.revokeKey))
	m.HandleFunc("GET /settings/webhooks", d.authed(d.webhooks))
	m.HandleFunc("POST /settings/webhooks", d.authed(d.createWebhook))
	m.HandleFunc("GET /settings/webhooks/{wid}", d.authed(d.webhook))
	m.HandleFunc("POST /settings/webhooks/{wid}/delete", d.authed(d.deleteWebhook))
	m.HandleFunc("POST /settings/webhooks/{wid}/deliveries/{did}/redeliver", d.authed(d.redeliver))
	m.HandleFunc("GET /settings/oauth-clients", d.authed(d.oauthClients))
	m.HandleFunc("GET /settings/users", d.authed(d.users))
	m.HandleFunc("POST /settings/users/{uid}/{change}", d.authed(d.changeUser))
}

// idPattern is the form of every API id (discovery-api.md: <prefix>_<text>). Ids from the
// address bar go into API paths, so anything else (a slash, a dot) is refused here.
var idPattern = regexp.MustCompile(`^[a-z]{2,5}_[A-Za-z0-9]{1,64}$`)

// errNotFound answers 404 like the API does for a missing or foreign object.
var errNotFound = &api.Error{Status: http.StatusNotFound, Code: "not_found", Message: "not found"}

// ids returns the named path values, or errNotFound when one is not an id.
func (c *call) ids(names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v := c.r.PathValue(n)
		if !idPattern.MatchString(v) {
			return nil, errNotFound
		}
		out[i] = v
	}
	return out, nil
}

// listQuery copies the page's list parameters (limit, cursor, sort, order and the
// named filters) into the API's query.
func listQuery(r *http.Request, filters ...string) url.Values {
	q := url.Values{}
	in := r.URL.Query()
	for _, k := range append([]string{"cursor", "sort", "order", "limit"}, filters...) {
		if v := strings.TrimSpace(in.Get(k)); v != "" && len(v) <= 4096 {
			q.Set(k, v)
		}
	}
	if q.Get("limit") == "" {
		q.Set("limit", "20")
	}
	return q
}

// pager holds the links of a paginated list: the next page keeps the filters.
type pager struct {
	Next  string
	First string
	Total *int
}

func pagerOf[T any](r *http.Request, l api.List[T]) pager {
	q := r.URL.Query()
	q.Del("cursor")
	p := pager{First: r.URL.Path + "?" + q.Encode(), Total: l.TotalCount}
	if l.HasMore && l.NextCursor != "" {
		q.Set("cursor", l.NextCursor)
		p.Next = r.URL.Path + "?" + q.Encode()
	}
	if r.URL.Query().Get("cursor") == "" {
		p.First = ""
	}
	return p
}

// project reads the project of the page's {pid} (404 across tenants, as the API answers).
func (c *call) project() (*api.Project, error) {
	ids, err := c.ids("pid")
	if err != nil {
		return nil, err
	}
	var p api.Project
	if err := c.get("/projects/"+ids[0], nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// campaign reads the project and the campaign of the page's {pid} and {cid}.
func (c *call) campaign() (*api.Project, *api.Campaign, error) {
	p, err := c.project()
	if err != nil {
		return nil, nil, err
	}
	ids, err := c.ids("cid")
	if err != nil {
		return nil, nil, err
	}
	var camp api.Campaign
	if err := c.get("/projects/"+p.ID+"/campaigns/"+ids[0], nil, &camp); err != nil {
		return nil, nil, err
	}
	return p, &camp, nil
}

// projectForm reads the page's {pid} and the posted form.
func (c *call) projectForm() (string, url.Values, error) {
	ids, err := c.ids("pid")
	if err != nil {
		return "", nil, err
	}
	if err := c.form(); err != nil {
		return "", nil, err
	}
	return ids[0], c.r.PostForm, nil
}

// formError is what a form shows after the API refused it: the message at the field it
// names, or at the top.
type formError struct {
	Top    string
	Fields map[string]string
	Values url.Values
}

func formErrorOf(err error, values url.Values, fields ...string) *formError {
	e, _ := api.AsError(err)
	fe := &formError{Fields: map[string]string{}, Values: values}
	if e == nil {
		fe.Top = messageOf(err)
		return fe
	}
	placed := false
	for _, f := range fields {
		if m := e.Field(f); m != "" {
			fe.Fields[f] = m
			placed = true
		}
	}
	if !placed {
		fe.Top = e.Message
	}
	return fe
}

// apiRefusal tells whether err is an API answer a form shows (4xx but 401 and 404).
func apiRefusal(err error) bool {
	st := api.StatusOf(err)
	return st >= 400 && st < 500 && st != http.StatusUnauthorized && st != http.StatusNotFound
}

func (c *call) form() error {
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, 64<<10)
	return c.r.ParseForm()
}

func (c *call) seeOther(path string) error {
	http.Redirect(c.w, c.r, path, http.StatusSeeOther)
	return nil
}

func formInt(s string) (*int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return &v, err == nil
}

func formFloat(s string) (*float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	v, err := strconv.ParseFloat(s, 64)
	return &v, err == nil
}

// splitList reads a comma- or newline-separated list.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sortStrings(s []string) { slices.Sort(s) }
