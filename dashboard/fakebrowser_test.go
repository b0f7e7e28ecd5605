package dashboard_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/discolab/disco/dashboard"
)

// The pages below are driven in Chromium against a REST API stand-in that answers with
// known claims, so what the page shows can be checked number by number: the claims list's
// score filter, across pages, and the evidence of a dynamics law (which the live flow's
// symbolic run does not make).

const fakeProject = "proj_fake"

// fakeClaim is a claim as the list and get endpoints answer it.
type fakeClaim struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Tier     string         `json:"tier"`
	Summary  string         `json:"summary"`
	Score    float64        `json:"score"`
	Evidence map[string]any `json:"evidence"`
	Created  time.Time      `json:"created_at"`
	Expr     string         `json:"expression,omitempty"`
	Scope    map[string]any `json:"scope"`
}

// fakeClaims are 40 claims: law and causal in turn, scores 0.02 to 0.80 in a shuffled
// order, and one dynamics law with the evidence of equations of motion.
func fakeClaims() []fakeClaim {
	var out []fakeClaim
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for i := range 40 {
		typ := []string{"law", "causal"}[i%2]
		score := float64((i*17)%40+1) / 50
		out = append(out, fakeClaim{ID: fmt.Sprintf("clm_c%02d", i), Type: typ, Tier: "explore", Score: score,
			Summary: fmt.Sprintf("%s claim %02d", typ, i), Created: t0.Add(time.Duration(i) * time.Minute),
			Evidence: map[string]any{"negative_controls_passed": true}, Scope: map[string]any{"variables": []string{"x"}}})
	}
	out = append(out, fakeClaim{ID: "clm_dynamics", Type: "law", Tier: "explore", Score: 0.93,
		Summary: "dx/dt = 10*(y - x)", Expr: "dx/dt = 10*(y - x)", Created: t0.Add(time.Hour),
		Scope: map[string]any{"variables": []string{"x", "y", "z"}, "domain": "t in [0, 20]"},
		Evidence: map[string]any{
			"negative_controls_passed": true, "r_squared": 0.998, "simulation_horizon": 7.25, "persistence_horizon": 0.5,
			"simulation_nrmse": 0.031, "trajectories": 6,
			"term_inclusion":    map[string]float64{"y": 1, "x": 0.98, "x*z": 0.04},
			"negative_controls": map[string]any{"time_shuffled": map[string]any{"passed": true, "p_value": 0.001}},
		}})
	return out
}

// fakeREST answers the few /v1 operations these pages call, with a sign-in that approves
// at once (the authorization page redirects straight back with a code).
func fakeREST(claims []fakeClaim) http.Handler {
	m := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	m.HandleFunc("GET /v1/auth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c0de&state="+url.QueryEscape(q.Get("state")), http.StatusSeeOther)
	})
	m.HandleFunc("POST /v1/auth/token", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"access_token": "disco_session_fake", "refresh_token": "disco_refresh_fake",
			"expires_in": 86400, "token_type": "Bearer", "tenant_id": "ten_fake"})
	})
	project := map[string]any{"id": fakeProject, "name": "fake project", "status": "active"}
	m.HandleFunc("GET /v1/projects", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"object": "list", "data": []any{project}, "has_more": false})
	})
	m.HandleFunc("GET /v1/projects/"+fakeProject, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, project) })
	m.HandleFunc("GET /v1/projects/"+fakeProject+"/ledger", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "has_more": false})
	})
	m.HandleFunc("GET /v1/projects/"+fakeProject+"/claims", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var list []fakeClaim
		for _, c := range claims {
			if (q.Get("type") == "" || q.Get("type") == c.Type) && (q.Get("tier") == "" || q.Get("tier") == c.Tier) {
				list = append(list, c)
			}
		}
		if _, ok := q["min_score"]; ok {
			http.Error(w, "min_score is no query parameter of the API", http.StatusBadRequest)
			return
		}
		if q.Get("sort") == "score" {
			slices.SortStableFunc(list, func(a, b fakeClaim) int {
				if q.Get("order") == "asc" {
					return cmp.Compare(a.Score, b.Score)
				}
				return cmp.Compare(b.Score, a.Score)
			})
		}
		from, _ := strconv.Atoi(q.Get("cursor"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		to := min(len(list), from+limit)
		page := map[string]any{"object": "list", "data": list[from:to], "has_more": to < len(list), "total_count": len(list)}
		if to < len(list) {
			page["next_cursor"] = strconv.Itoa(to)
		}
		writeJSON(w, page)
	})
	m.HandleFunc("GET /v1/projects/"+fakeProject+"/claims/{id}", func(w http.ResponseWriter, r *http.Request) {
		for _, c := range claims {
			if c.ID == r.PathValue("id") {
				writeJSON(w, c)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprint(w, `{"error":{"code":"not_found","message":"not found","status":404}}`)
	})
	return m
}

// startFakeDashboard serves the dashboard and the stand-in API on one origin.
func startFakeDashboard(t *testing.T, claims []fakeClaim) string {
	t.Helper()
	api := fakeREST(claims)
	var base string
	srv := httptest.NewUnstartedServer(nil)
	base = "http://" + srv.Listener.Addr().String()
	d, err := dashboard.New(dashboard.Options{API: api, BaseURL: base + "/v1", CookieKey: bytes.Repeat([]byte{7}, 32),
		ClientFor: func(context.Context, string) (string, error) { return "cli_fake", nil }, Tenant: "ten_fake"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			api.ServeHTTP(w, r)
			return
		}
		d.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// shownScores reads the scores of the claims table, in the order shown.
func shownScores(b *browser) []float64 {
	b.t.Helper()
	raw := eval[[]string](b, `[...document.querySelectorAll('main table tbody meter')].map(m => m.getAttribute('value'))`)
	out := make([]float64, len(raw))
	for i, s := range raw {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.t.Fatalf("score %q: %v", s, err)
		}
		out[i] = v
	}
	return out
}

// scoresAtLeast are the scores of the claims of a type (any when empty) at least min,
// high to low.
func scoresAtLeast(claims []fakeClaim, typ string, minScore float64) []float64 {
	var out []float64
	for _, c := range claims {
		if (typ == "" || c.Type == typ) && c.Score >= minScore {
			out = append(out, c.Score)
		}
	}
	slices.SortFunc(out, func(a, b float64) int { return cmp.Compare(b, a) })
	return out
}

func TestClaimsScoreFilterAndDynamicsEvidenceInChromium(t *testing.T) {
	claims := fakeClaims()
	base := startFakeDashboard(t, claims)
	b := newBrowser(t, base)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	b.do("sign in", chromedp.Navigate(base+"/projects"), chromedp.WaitVisible(css(`form[action="/projects"]`)))

	// The filter form: type and a minimum score, submitted as a user does; the address
	// holds the filters, so the page can be linked.
	b.do("filter by type and score",
		chromedp.Navigate(base+"/projects/"+fakeProject+"/claims"),
		chromedp.SetValue(css(`#f-type`), "law"),
		chromedp.SendKeys(css(`#f-score`), "0.6"),
		chromedp.Submit(css(`#f-score`)),
		chromedp.WaitVisible(css(`#score-note`)))
	loc, _ := url.Parse(b.location())
	if q := loc.Query(); q.Get("min_score") != "0.6" || q.Get("type") != "law" {
		t.Errorf("the filtered page's address %s does not hold type=law and min_score=0.6", loc)
	}
	want := scoresAtLeast(claims, "law", 0.6)
	if got := shownScores(b); !slices.Equal(got, want) {
		t.Errorf("type law, score ≥ 0.6 shows scores %v, want %v", got, want)
	}
	if v := eval[string](b, `document.getElementById('f-score').value`); v != "0.6" {
		t.Errorf("the score field reads %q after filtering", v)
	}
	b.page("30-claims-score-filter")

	// Pages of five, followed by their links: every claim of 0.3 or more once, best first,
	// and no page after the last match.
	next := base + "/projects/" + fakeProject + "/claims?min_score=0.3&limit=5"
	var got []float64
	for pages := 0; next != "" && pages < 20; pages++ {
		b.do("open a page of scores", chromedp.Navigate(next), chromedp.WaitVisible(css(`#score-note`)))
		got = append(got, shownScores(b)...)
		next = eval[string](b, `(document.querySelector('nav.pager a[rel=next]') || {href: ''}).href`)
	}
	if want := scoresAtLeast(claims, "", 0.3); !slices.Equal(got, want) {
		t.Errorf("score ≥ 0.3 across pages shows %v, want %v", got, want)
	}

	b.do("a score out of range", chromedp.Navigate(base+"/projects/"+fakeProject+"/claims?min_score=2"),
		chromedp.WaitVisible(css(`#f-score-err`)))
	if msg := b.text("#f-score-err"); !strings.Contains(msg, "from 0 to 1") {
		t.Errorf("min_score=2 shows %q", msg)
	}
	b.page("31-claims-score-invalid")

	// A dynamics law: its simulation evidence and the ensemble's term inclusion.
	b.do("open the dynamics law", chromedp.Navigate(base+"/projects/"+fakeProject+"/claims/clm_dynamics"),
		chromedp.WaitVisible(css(`#term-inclusion`)))
	ev := b.text("table.evidence")
	for _, s := range []string{"Simulation horizon\t7.25", "Persistence horizon\t0.5", "Simulation NRMSE\t0.031", "Trajectories\t6"} {
		if !strings.Contains(ev, strings.ReplaceAll(s, "\t", " ")) && !strings.Contains(ev, s) {
			t.Errorf("the evidence table lacks %q: %q", s, ev)
		}
	}
	terms := eval[[]string](b, `[...document.querySelectorAll('#term-inclusion tbody tr')].map(r => r.innerText.replace(/\s+/g, ' ').trim())`)
	if want := []string{"y 100%", "x 98%", "x*z 4%"}; !slices.Equal(terms, want) {
		t.Errorf("term inclusion rows %q, want %q", terms, want)
	}
	b.page("32-claim-dynamics")
}
