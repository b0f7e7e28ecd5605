package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/discolab/disco/dashboard/api"
)

var (
	tiers = []string{"explore", "validate", "publish"}
	modes = []string{"symbolic", "neural", "neuro_symbolic", "causal"}
)

func (d *Dashboard) projects(c *call) error {
	return c.showProjects(http.StatusOK, nil)
}

func (c *call) showProjects(status int, fe *formError) error {
	var l api.List[api.Project]
	if err := c.get("/projects", listQuery(c.r, "status"), &l); err != nil {
		return err
	}
	return c.show(status, "projects.html", &page{Title: "Projects", Section: "projects", Data: map[string]any{
		"List": l.Data, "Pager": pagerOf(c.r, l), "Status": c.r.URL.Query().Get("status"), "Form": fe,
	}})
}

func (d *Dashboard) createProject(c *call) error {
	if err := c.form(); err != nil {
		return err
	}
	in := map[string]any{"name": strings.TrimSpace(c.r.PostForm.Get("name")), "description": c.r.PostForm.Get("description")}
	var p api.Project
	if err := c.send(http.MethodPost, "/projects", in, &p); err != nil {
		if apiRefusal(err) {
			return c.showProjects(api.StatusOf(err), formErrorOf(err, c.r.PostForm, "name", "description"))
		}
		return err
	}
	return c.seeOther("/projects/" + p.ID)
}

func (d *Dashboard) project(c *call) error {
	saved := c.r.URL.Query().Get("saved")
	if saved != "governance" {
		saved = ""
	}
	return c.showProject(http.StatusOK, nil, nil, saved)
}

func (c *call) showProject(status int, govErr, campErr *formError, saved string) error {
	p, err := c.project()
	if err != nil {
		return err
	}
	var l api.List[api.Campaign]
	if err := c.get("/projects/"+p.ID+"/campaigns", listQuery(c.r, "status"), &l); err != nil {
		return err
	}
	return c.show(status, "project.html", &page{Title: p.Name, Project: p, Section: "overview", Data: map[string]any{
		"P": p, "Campaigns": l.Data, "Pager": pagerOf(c.r, l), "Tiers": tiers, "Modes": modes,
		"GovForm": govErr, "CampForm": campErr, "Saved": saved,
	}})
}

// updateGovernance changes the project's governance settings (PATCH, which needs
// governance:write; the API refuses otherwise and the page shows why).
func (d *Dashboard) updateGovernance(c *call) error {
	pid, f, err := c.projectForm()
	if err != nil {
		return err
	}
	gov := map[string]any{"promotion_ceiling": f.Get("promotion_ceiling"), "require_negative_controls": f.Get("require_negative_controls") == "on"}
	if v, ok := formFloat(f.Get("truth_dial_threshold")); !ok {
		return c.showProject(http.StatusBadRequest, &formError{Fields: map[string]string{"truth_dial_threshold": "enter a number between 0 and 1"}, Values: f}, nil, "")
	} else if v != nil {
		gov["truth_dial_threshold"] = *v
	}
	if err := c.send(http.MethodPatch, "/projects/"+pid, map[string]any{"settings": map[string]any{"governance": gov}}, nil); err != nil {
		if apiRefusal(err) {
			return c.showProject(api.StatusOf(err), formErrorOf(err, f, "settings.governance.promotion_ceiling",
				"settings.governance.truth_dial_threshold", "settings.governance.require_negative_controls"), nil, "")
		}
		return err
	}
	return c.seeOther("/projects/" + pid + "?saved=governance")
}

func (d *Dashboard) createCampaign(c *call) error {
	pid, f, err := c.projectForm()
	if err != nil {
		return err
	}
	budget := map[string]any{}
	bad := map[string]string{}
	for _, k := range []string{"compute_units", "max_runs"} {
		v, ok := formInt(f.Get(k))
		if !ok || v == nil {
			bad["budget."+k] = "enter a whole number"
			continue
		}
		budget[k] = *v
	}
	if s := strings.TrimSpace(f.Get("expires_at")); s != "" {
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			bad["budget.expires_at"] = "enter a date"
		} else {
			budget["expires_at"] = t.Add(24*time.Hour - time.Second).UTC()
		}
	}
	if len(bad) > 0 {
		return c.showProject(http.StatusBadRequest, nil, &formError{Fields: bad, Values: f}, "")
	}
	in := map[string]any{"name": strings.TrimSpace(f.Get("name")), "description": f.Get("description"), "budget": budget}
	gov := map[string]any{}
	if v := f.Get("promotion_ceiling"); v != "" {
		gov["promotion_ceiling"] = v
	}
	if len(gov) > 0 {
		in["governance"] = gov
	}
	var camp api.Campaign
	if err := c.send(http.MethodPost, "/projects/"+pid+"/campaigns", in, &camp); err != nil {
		if apiRefusal(err) {
			return c.showProject(api.StatusOf(err), nil, formErrorOf(err, f, "name", "description", "budget.compute_units",
				"budget.max_runs", "budget.expires_at", "governance.promotion_ceiling"), "")
		}
		return err
	}
	return c.seeOther("/projects/" + pid + "/campaigns/" + camp.ID)
}

func (d *Dashboard) campaign(c *call) error {
	p, camp, err := c.campaign()
	if err != nil {
		return err
	}
	var runs api.List[api.Run]
	if err := c.get("/projects/"+p.ID+"/campaigns/"+camp.ID+"/runs", listQuery(c.r, "status", "mode"), &runs); err != nil {
		return err
	}
	var expires *time.Duration
	if camp.Budget.ExpiresAt != nil {
		left := camp.Budget.ExpiresAt.Sub(c.d.now())
		expires = &left
	}
	return c.show(http.StatusOK, "campaign.html", &page{Title: camp.Name, Project: p, Section: "overview", Data: map[string]any{
		"P": p, "C": camp, "Runs": runs.Data, "Pager": pagerOf(c.r, runs), "ExpiresIn": expires,
		"Status": c.r.URL.Query().Get("status"), "Mode": c.r.URL.Query().Get("mode"), "Modes": modes,
	}})
}

// queryOf builds a url.Values from pairs, skipping empty values.
func queryOf(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}
