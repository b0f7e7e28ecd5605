package dashboard

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/discolab/disco/dashboard/api"
)

var controls = []string{"shuffled_target", "noise_feature", "time_shift", "placebo_cause"}

func (d *Dashboard) newRun(c *call) error {
	return c.showRunForm(http.StatusOK, nil)
}

func (c *call) showRunForm(status int, fe *formError) error {
	p, camp, err := c.campaign()
	if err != nil {
		return err
	}
	var ds api.List[api.Dataset]
	if err := c.get("/projects/"+p.ID+"/datasets", queryOf("status", "ready", "limit", "100"), &ds); err != nil {
		return err
	}
	if fe == nil {
		fe = &formError{Fields: map[string]string{}, Values: map[string][]string{
			"mode": {p.Settings.DefaultMode}, "dataset_id": {c.r.URL.Query().Get("dataset_id")}, "cross_validate": {"on"},
		}}
	}
	return c.show(status, "run_new.html", &page{Title: "Submit a run", Project: p, Section: "overview", Data: map[string]any{
		"P": p, "C": camp, "Datasets": ds.Data, "Modes": modes, "Controls": controls, "Form": fe,
	}})
}

// submitRun sends the form to POST .../runs; the API's validation messages come back to
// the fields they name.
func (d *Dashboard) submitRun(c *call) error {
	ids, err := c.ids("pid", "cid")
	if err != nil {
		return err
	}
	if err := c.form(); err != nil {
		return err
	}
	f := c.r.PostForm
	params := map[string]any{"target_variables": splitList(f.Get("target_variables")), "constraints": splitList(f.Get("constraints")),
		"cross_validate": f.Get("cross_validate") == "on"}
	bad := map[string]string{}
	for _, k := range []string{"max_complexity", "epochs"} {
		if v, ok := formInt(f.Get(k)); !ok {
			bad["parameters."+k] = "enter a whole number"
		} else if v != nil {
			params[k] = *v
		}
	}
	gov := map[string]any{"negative_controls": nonNilStrings(f["negative_controls"])}
	if v, ok := formFloat(f.Get("evidence_threshold")); !ok {
		bad["governance.evidence_threshold"] = "enter a number between 0 and 1"
	} else if v != nil {
		gov["evidence_threshold"] = *v
	}
	if len(bad) > 0 {
		return c.showRunForm(http.StatusBadRequest, &formError{Fields: bad, Values: f})
	}
	in := map[string]any{"mode": f.Get("mode"), "dataset_id": strings.TrimSpace(f.Get("dataset_id")), "parameters": params, "governance": gov}
	var run api.Run
	if err := c.send(http.MethodPost, "/projects/"+ids[0]+"/campaigns/"+ids[1]+"/runs", in, &run); err != nil {
		if apiRefusal(err) {
			return c.showRunForm(api.StatusOf(err), formErrorOf(err, f, "mode", "dataset_id", "parameters.target_variables",
				"parameters.constraints", "parameters.max_complexity", "parameters.epochs", "governance.negative_controls",
				"governance.evidence_threshold"))
		}
		return err
	}
	return c.seeOther("/projects/" + ids[0] + "/campaigns/" + ids[1] + "/runs/" + run.ID)
}

func nonNilStrings(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// runView is what the run page and its live pipeline fragment show.
type runView struct {
	Base      string // the run page's path
	Run       api.Run
	Status    api.RunStatus
	Results   *api.RunResults
	Artifacts []api.Artifact
	Claims    []api.Claim
}

func (c *call) runView(full bool) (*runView, *api.Project, error) {
	ids, err := c.ids("pid", "cid", "rid")
	if err != nil {
		return nil, nil, err
	}
	base := "/projects/" + ids[0] + "/campaigns/" + ids[1] + "/runs/" + ids[2]
	v := &runView{Base: base}
	var p *api.Project
	if full {
		if p, err = c.project(); err != nil {
			return nil, nil, err
		}
	}
	if err := c.get(base, nil, &v.Run); err != nil {
		return nil, nil, err
	}
	if err := c.get(base+"/status", nil, &v.Status); err != nil {
		return nil, nil, err
	}
	if v.Status.Status == "completed" {
		var res api.RunResults
		if err := c.get(base+"/results", nil, &res); err != nil {
			return nil, nil, err
		}
		v.Results = &res
		var arts api.List[api.Artifact]
		if err := c.get(base+"/artifacts", queryOf("limit", "100"), &arts); err != nil {
			return nil, nil, err
		}
		v.Artifacts = arts.Data
		var claims api.List[api.Claim]
		if err := c.get("/projects/"+ids[0]+"/claims", queryOf("run_id", ids[2], "sort", "score", "order", "desc", "limit", "10"), &claims); err != nil {
			return nil, nil, err
		}
		v.Claims = claims.Data
	}
	return v, p, nil
}

func (d *Dashboard) run(c *call) error {
	v, p, err := c.runView(true)
	if err != nil {
		return err
	}
	return c.show(http.StatusOK, "run.html", &page{Title: "Run " + v.Run.ID, Project: p, Section: "overview", Data: v})
}

// pipeline is the run's live part, polled by htmx every two seconds until the run ends
// (the fragment it returns for an ended run stops polling).
func (d *Dashboard) pipeline(c *call) error {
	v, _, err := c.runView(false)
	if err != nil {
		return err
	}
	d.fragment(c.w, http.StatusOK, "runlive", v)
	return nil
}

// artifact streams a run artifact from the API. Plots (SVG) are shown in <img>, where
// they cannot run scripts; every other kind is a download. The response forbids scripts
// and framing in any case.
func (d *Dashboard) artifact(c *call) error {
	ids, err := c.ids("pid", "cid", "rid", "aid")
	if err != nil {
		return err
	}
	path := "/projects/" + ids[0] + "/campaigns/" + ids[1] + "/runs/" + ids[2] + "/artifacts/" + ids[3] + "/content"
	resp, err := c.stream(api.Request{Method: http.MethodGet, Path: path})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	h := c.w.Header()
	ct := resp.Header.Get("Content-Type")
	h.Set("Content-Type", ct)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if !strings.HasPrefix(ct, "image/svg+xml") && !strings.HasPrefix(ct, "image/png") {
		h.Set("Content-Disposition", "attachment")
	}
	if etag := resp.Header.Get("ETag"); etag != "" {
		h.Set("ETag", etag)
	}
	c.w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(c.w, resp.Body)
	return nil
}

// stream sends a request whose answer the caller reads as a stream; a non-2xx answer is
// returned as an error.
func (c *call) stream(req api.Request) (*http.Response, error) {
	if c.d.now().After(c.s.Expires.Add(-time.Minute)) {
		if err := c.refresh(); err != nil {
			return nil, err
		}
	}
	req.Token, req.RemoteAddr = c.s.Access, c.r.RemoteAddr
	resp, err := c.d.api.Send(c.ctx(), req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		err := api.ErrorOf(resp)
		if resp.StatusCode == http.StatusUnauthorized {
			return nil, errSignedOut
		}
		return nil, err
	}
	return resp, nil
}
