package dashboard

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/discolab/disco/dashboard/api"
	"github.com/discolab/disco/engine/artifacts"
)

func (d *Dashboard) claims(c *call) error {
	p, err := c.project()
	if err != nil {
		return err
	}
	in := c.r.URL.Query()
	q := listQuery(c.r, "type", "tier", "run_id", "campaign_id")
	minScore, scoreErr := minScoreOf(in.Get("min_score"))
	if minScore != nil && q.Get("sort") == "" {
		q.Set("sort", "score")
		q.Set("order", "desc")
	}
	var l api.List[api.Claim]
	if err := c.get("/projects/"+p.ID+"/claims", q, &l); err != nil {
		return err
	}
	pg := pagerOf(c.r, l)
	if minScore != nil {
		var ended bool
		l.Data, ended = atLeast(l.Data, *minScore, q.Get("sort") == "score" && q.Get("order") != "asc")
		if ended {
			pg.Next = ""
		}
		pg.Total = nil // the API's count is of the claims before the score filter
	}
	status := http.StatusOK
	if scoreErr != "" {
		status = http.StatusBadRequest
	}
	return c.show(status, "claims.html", &page{Title: "Claims", Project: p, Section: "claims", Data: map[string]any{
		"P": p, "List": l.Data, "Pager": pg, "Tiers": tiers, "Types": []string{"law", "causal", "conservation"},
		"Type": in.Get("type"), "Tier": in.Get("tier"), "RunID": in.Get("run_id"), "Sort": q.Get("sort"), "Order": q.Get("order"),
		"MinScore": in.Get("min_score"), "ScoreError": scoreErr, "ScoreFiltered": minScore != nil,
	}})
}

// minScoreOf reads the claims page's min_score: empty means no filter; anything but a
// number from 0 to 1 (the Truth Dial's range, discovery-api.md "Scores") is refused
// with a message for the field.
func minScoreOf(s string) (*float64, string) {
	v, ok := formFloat(s)
	if !ok || (v != nil && (math.IsNaN(*v) || *v < 0 || *v > 1)) {
		return nil, "The minimum score is a number from 0 to 1."
	}
	return v, ""
}

// atLeast keeps the claims scoring at least minScore. The list API has no score filter
// (discovery-api.md, "List filters seen"), so the page filters what it gets; when the
// list is sorted by score from high to low, the first claim below the minimum ends the
// matches, which ended reports (no later page can hold one).
func atLeast(list []api.Claim, minScore float64, byScoreDesc bool) (kept []api.Claim, ended bool) {
	kept = list[:0:0]
	for _, cl := range list {
		if cl.Score >= minScore {
			kept = append(kept, cl)
		} else if byScoreDesc {
			return kept, true
		}
	}
	return kept, false
}

// claimView is the claim page.
type claimView struct {
	P        *api.Project
	Claim    api.Claim
	Run      api.Run
	RunPath  string
	Fit      *api.Artifact // the run's predicted-against-observed plot for the claim's target
	Graph    *api.Artifact // the run's causal graph
	Pareto   bool
	History  []api.LedgerEntry
	Tiers    []string
	Refusal  *api.Error
	Moved    string
	Controls []string // names of the negative controls, sorted
	Terms    []termShare
}

// termShare is one term of a dynamics law's term_inclusion.
type termShare struct {
	Term  string
	Share float64
}

// termsOf lists a dynamics law's terms by the share of refits that select them, most
// selected first (ties by name, so the page reads the same on every load).
func termsOf(incl map[string]float64) []termShare {
	out := make([]termShare, 0, len(incl))
	for t, s := range incl {
		out = append(out, termShare{Term: t, Share: s})
	}
	slices.SortFunc(out, func(a, b termShare) int {
		if c := cmp.Compare(b.Share, a.Share); c != 0 {
			return c
		}
		return strings.Compare(a.Term, b.Term)
	})
	return out
}

func (c *call) claimView() (*claimView, error) {
	ids, err := c.ids("pid", "clm")
	if err != nil {
		return nil, err
	}
	p, err := c.project()
	if err != nil {
		return nil, err
	}
	v := &claimView{P: p, Tiers: tiers}
	if err := c.get("/projects/"+ids[0]+"/claims/"+ids[1], nil, &v.Claim); err != nil {
		return nil, err
	}
	cl := v.Claim
	for name := range cl.Evidence.NegativeControls {
		v.Controls = append(v.Controls, name)
	}
	sortStrings(v.Controls)
	v.Terms = termsOf(cl.Evidence.TermInclusion)
	if idPattern.MatchString(cl.CampaignID) && idPattern.MatchString(cl.RunID) {
		v.RunPath = "/projects/" + ids[0] + "/campaigns/" + cl.CampaignID + "/runs/" + cl.RunID
		if err := c.get(v.RunPath, nil, &v.Run); err != nil && api.StatusOf(err) != http.StatusNotFound {
			return nil, err
		}
		var arts api.List[api.Artifact]
		if err := c.get(v.RunPath+"/artifacts", queryOf("kind", "plot", "limit", "100"), &arts); err == nil {
			v.Fit, v.Graph = pickPlots(cl, v.Run, arts.Data)
		} else if api.StatusOf(err) != http.StatusNotFound {
			return nil, err
		}
	}
	v.Pareto = cl.Type == "law" && cl.Evidence.Complexity != nil && cl.Evidence.RSquared != nil
	var hist api.List[api.LedgerEntry]
	if err := c.get("/projects/"+ids[0]+"/ledger", queryOf("claim_id", cl.ID, "limit", "100", "sort", "tree_index", "order", "asc"), &hist); err != nil {
		if api.StatusOf(err) != http.StatusForbidden {
			return nil, err
		}
	}
	v.History = hist.Data
	return v, nil
}

// lawTarget is the variable a law claim predicts: the left side of "y = ...", or the
// run's only target.
func lawTarget(cl api.Claim, run api.Run) string {
	if lhs, _, ok := strings.Cut(cl.Expression, "="); ok && strings.TrimSpace(lhs) != "" {
		return strings.TrimSpace(lhs)
	}
	if len(run.Parameters.TargetVariables) == 1 {
		return run.Parameters.TargetVariables[0]
	}
	return ""
}

// pickPlots finds the run's plots this claim is drawn in, as the engine names them
// (engine/run_artifacts.go): a law's own fit (artifacts.LawPlotName of its target and
// expression) and the causal graph (causal-graph.svg). A run from before laws had their own
// plots has only the chosen law's, under the target's name; it is shown for that target's
// laws only when the run has no per-law plot, so an alternative never shows another law's fit.
func pickPlots(cl api.Claim, run api.Run, arts []api.Artifact) (fit, graph *api.Artifact) {
	target := lawTarget(cl, run)
	var chosen *api.Artifact
	perLaw := false
	for i := range arts {
		a := &arts[i]
		switch {
		case cl.Type == "law" && target != "" && a.Name == artifacts.LawPlotName(target, cl.Expression):
			fit = a
		case cl.Type == "law" && target != "" && a.Name == artifacts.TargetPlotName(target):
			chosen = a
		case cl.Type == "law" && target != "" && artifacts.IsLawPlot(a.Name, target):
			perLaw = true
		case cl.Type == "causal" && a.Name == "causal-graph.svg":
			graph = a
		}
	}
	if fit == nil && !perLaw {
		fit = chosen
	}
	return fit, graph
}

func (d *Dashboard) claim(c *call) error {
	v, err := c.claimView()
	if err != nil {
		return err
	}
	v.Moved = c.r.URL.Query().Get("moved")
	if !containsString(tiers, v.Moved) {
		v.Moved = ""
	}
	return c.show(http.StatusOK, "claim.html", &page{Title: "Claim " + v.Claim.ID, Project: v.P, Section: "claims", Data: v})
}

// moveTier promotes or demotes the claim through the API; a refusal is shown as the API
// gives it (code, message and the constraint that blocked it), with its status.
func (d *Dashboard) moveTier(c *call) error {
	ids, err := c.ids("pid", "clm")
	if err != nil {
		return err
	}
	if err := c.form(); err != nil {
		return err
	}
	action := c.r.PostForm.Get("action")
	if action != "promote" && action != "demote" {
		return &api.Error{Status: http.StatusBadRequest, Code: "validation_error", Message: "action must be promote or demote"}
	}
	in := map[string]any{"target_tier": c.r.PostForm.Get("target_tier"), "rationale": c.r.PostForm.Get("rationale")}
	err = c.send(http.MethodPost, "/projects/"+ids[0]+"/claims/"+ids[1]+"/"+action, in, nil)
	if err == nil {
		return c.seeOther("/projects/" + ids[0] + "/claims/" + ids[1] + "?moved=" + c.r.PostForm.Get("target_tier"))
	}
	e, ok := api.AsError(err)
	if !ok || !apiRefusal(err) {
		return err
	}
	v, verr := c.claimView()
	if verr != nil {
		return verr
	}
	v.Refusal = e
	return c.show(e.Status, "claim.html", &page{Title: "Claim " + v.Claim.ID, Project: v.P, Section: "claims", Data: v})
}

// pareto draws the run's laws for the claim's target as error (1 − R²) against
// complexity with engine/artifacts' Pareto plot (gonum/plot), this claim highlighted.
func (d *Dashboard) pareto(c *call) error {
	ids, err := c.ids("pid", "clm")
	if err != nil {
		return err
	}
	var cl api.Claim
	if err := c.get("/projects/"+ids[0]+"/claims/"+ids[1], nil, &cl); err != nil {
		return err
	}
	var run api.Run
	if idPattern.MatchString(cl.CampaignID) && idPattern.MatchString(cl.RunID) {
		_ = c.get("/projects/"+ids[0]+"/campaigns/"+cl.CampaignID+"/runs/"+cl.RunID, nil, &run)
	}
	target := lawTarget(cl, run)
	var complexity []int
	var loss []float64
	chosen := -1
	q := queryOf("run_id", cl.RunID, "type", "law", "limit", "100")
	for pages := 0; pages < 10; pages++ {
		var l api.List[api.Claim]
		if err := c.get("/projects/"+ids[0]+"/claims", q, &l); err != nil {
			return err
		}
		for _, o := range l.Data {
			ev := o.Evidence
			if ev.Complexity == nil || ev.RSquared == nil || lawTarget(o, run) != target {
				continue
			}
			if o.ID == cl.ID {
				chosen = len(loss)
			}
			complexity = append(complexity, *ev.Complexity)
			loss = append(loss, max(0, 1-*ev.RSquared))
		}
		if !l.HasMore || l.NextCursor == "" {
			break
		}
		q.Set("cursor", l.NextCursor)
	}
	svg, err := artifacts.ParetoFront(complexity, loss, chosen, fmt.Sprintf("Laws for %s: 1 − R² against complexity", target))
	if err != nil {
		return &api.Error{Status: http.StatusNotFound, Code: "not_found", Message: "this claim has no Pareto front to draw"}
	}
	h := c.w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	_, _ = c.w.Write(svg)
	return nil
}
