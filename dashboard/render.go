package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/discolab/disco/dashboard/api"
)

// page is what the layout template renders around a page's content.
type page struct {
	Title    string
	Signed   bool
	Tenant   string
	Projects []api.Project
	Project  *api.Project
	Section  string // the navigation item shown as current
	Data     any
}

type pageTemplate struct{ t *template.Template }

var funcs = template.FuncMap{
	"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"deref": func(t *time.Time) time.Time {
		if t == nil {
			return time.Time{}
		}
		return *t
	},
	"num": func(v any) string {
		switch x := v.(type) {
		case *float64:
			if x == nil {
				return "—"
			}
			return fmt.Sprintf("%.3g", *x)
		case float64:
			return fmt.Sprintf("%.3g", x)
		case *int:
			if x == nil {
				return "—"
			}
			return fmt.Sprint(*x)
		case *int32:
			if x == nil {
				return "—"
			}
			return fmt.Sprint(*x)
		}
		return fmt.Sprint(v)
	},
	"pct": func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) },
	"ms": func(v any) string {
		var ms int64
		switch x := v.(type) {
		case *int64:
			if x == nil {
				return ""
			}
			ms = *x
		case int64:
			ms = x
		}
		return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond).String()
	},
	"bytes": func(n int64) string {
		switch {
		case n >= 1<<30:
			return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
		case n >= 1<<20:
			return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
		case n >= 1<<10:
			return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
		}
		return fmt.Sprintf("%d B", n)
	},
	// share is used/total as a 0..100 number for a gauge; 0 when there is no total.
	"share": func(used, total any) int {
		u, t := toFloat(used), toFloat(total)
		if t <= 0 {
			return 0
		}
		return int(min(100, 100*u/t))
	},
	"join":     strings.Join,
	"list":     func(s ...string) []string { return s },
	"contains": containsString,
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
	"esc": url.PathEscape,
	// pretty indents a JSON document for reading.
	"pretty": func(raw json.RawMessage) string {
		var buf bytes.Buffer
		if json.Indent(&buf, raw, "", "  ") != nil {
			return string(raw)
		}
		return buf.String()
	},
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parsePages parses the layout and shared partials once per page file, so every page
// defines its own "content" template.
func parsePages() (map[string]*pageTemplate, error) {
	base, err := template.New("base").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*pageTemplate{}
	for _, n := range names {
		short := strings.TrimPrefix(n, "templates/")
		if short == "layout.html" || short == "partials.html" {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(files, n); err != nil {
			return nil, err
		}
		out[short] = &pageTemplate{t: t}
	}
	out["partials"] = &pageTemplate{t: base}
	return out, nil
}

// render writes a whole page: the layout around the page's content.
func (d *Dashboard) render(w http.ResponseWriter, _ *http.Request, status int, name string, p *page) {
	pt, ok := d.pages[name]
	if !ok {
		panic("dashboard: no template " + name)
	}
	d.execute(w, status, pt.t, "layout", p)
}

// fragment writes one named template of the partials (an htmx swap).
func (d *Dashboard) fragment(w http.ResponseWriter, status int, name string, data any) {
	d.execute(w, status, d.pages["partials"].t, name, data)
}

// execute renders into a buffer first, so a template error is a clean 500 and not half a
// page.
func (d *Dashboard) execute(w http.ResponseWriter, status int, t *template.Template, name string, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		d.log.Error(err, "dashboard: render", "template", name)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// show renders a page of a signed-in user with the navigation: the tenant's projects.
func (c *call) show(status int, name string, p *page) error {
	projects, err := c.navProjects()
	if err != nil {
		return err
	}
	p.Signed, p.Tenant, p.Projects = true, c.s.Tenant, projects
	c.d.render(c.w, c.r, status, name, p)
	return nil
}

// renderError shows an error page; c is nil when nobody is signed in.
func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, c *call, status int, msg string) {
	p := &page{Title: http.StatusText(status), Data: map[string]any{"Status": status, "Message": msg}}
	if c != nil {
		p.Signed, p.Tenant = true, c.s.Tenant
		p.Projects, _ = c.navProjects()
	}
	d.render(w, r, status, "error.html", p)
}

// navProjects is the first hundred of the tenant's projects by name, for the navigation.
func (c *call) navProjects() ([]api.Project, error) {
	var projects api.List[api.Project]
	err := c.get("/projects", url.Values{"limit": {"100"}, "sort": {"name"}, "order": {"asc"}}, &projects)
	return projects.Data, err
}
