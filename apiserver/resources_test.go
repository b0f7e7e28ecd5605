package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/ids"
)

func nsA() string { return "disco-" + ids.ToName(env.tenantA) }

func TestProjects(t *testing.T) {
	key := env.adminA
	r := call(t, "POST", "/v1/projects", key, map[string]any{
		"name": "Pendulum", "description": "swing", "unknown_field": true,
		"settings": map[string]any{"default_mode": "neuro_symbolic", "governance": map[string]any{"promotion_ceiling": "publish", "truth_dial_threshold": 0.8}},
	}).expect(t, 201)
	id := r.str("id")
	if !ids.Valid(ids.Project, id) || r.Header.Get("Location") != env.url+"/projects/"+id {
		t.Fatalf("id %q location %q", id, r.Header.Get("Location"))
	}
	for _, k := range []string{"id", "name", "description", "status", "settings", "created_at", "updated_at", "created_by", "tenant_id"} {
		if _, ok := r.JSON[k]; !ok {
			t.Errorf("project lacks %s: %s", k, r.Raw)
		}
	}
	if r.str("status") != "active" || r.str("tenant_id") != env.tenantA || !strings.HasPrefix(r.str("created_by"), "key_") {
		t.Fatalf("project: %s", r.Raw)
	}
	g := r.JSON["settings"].(map[string]any)["governance"].(map[string]any)
	if g["promotion_ceiling"] != "publish" || g["truth_dial_threshold"] != 0.8 || g["require_negative_controls"] != true {
		t.Fatalf("governance: %v", g)
	}

	got := call(t, "GET", "/v1/projects/"+id, key, nil).expect(t, 200)
	if got.str("name") != "Pendulum" {
		t.Fatalf("get: %s", got.Raw)
	}
	// Another tenant sees nothing.
	call(t, "GET", "/v1/projects/"+id, env.adminB, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/projects/proj_nonexistentnonexistent000", key, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/projects/garbage", key, nil).expect(t, 404, "not_found")

	// PATCH is a merge patch.
	p := call(t, "PATCH", "/v1/projects/"+id, key, map[string]any{
		"name": "Pendulum 2", "status": "archived", "settings": map[string]any{"governance": map[string]any{"truth_dial_threshold": nil}},
	}).expect(t, 200)
	g = p.JSON["settings"].(map[string]any)["governance"].(map[string]any)
	if p.str("name") != "Pendulum 2" || p.str("status") != "archived" || p.str("description") != "swing" ||
		g["truth_dial_threshold"] != 0.7 || g["promotion_ceiling"] != "publish" {
		t.Fatalf("patched: %s", p.Raw)
	}
	call(t, "PATCH", "/v1/projects/"+id, key, map[string]any{"name": nil}).expect(t, 400, "validation_error")
	call(t, "PATCH", "/v1/projects/"+id, key, map[string]any{"status": "exploded"}).expect(t, 400, "validation_error")
	call(t, "PATCH", "/v1/projects/"+id, key, []byte(`{"description": "merge"}`), "Content-Type", "application/merge-patch+json").expect(t, 200)

	// Status filter.
	list := call(t, "GET", "/v1/projects?status=archived&limit=100", key, nil).expect(t, 200)
	found := false
	for _, it := range list.JSON["data"].([]any) {
		m := it.(map[string]any)
		if m["status"] != "archived" {
			t.Fatalf("filter leaked %v", m)
		}
		found = found || m["id"] == id
	}
	if !found || list.JSON["object"] != "list" {
		t.Fatalf("list: %s", list.Raw)
	}
	call(t, "GET", "/v1/projects?status=bogus", key, nil).expect(t, 400, "validation_error")
}

func TestProjectConcurrentPatchConflicts(t *testing.T) {
	id := mustProject(t, env.adminA, nil)
	// Two writers holding the same resource version: the second must get 409.
	var proj discov1.Project
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: ids.ToName(id)}, &proj); err != nil {
		t.Fatal(err)
	}
	stale := proj.DeepCopy()
	proj.Spec.Description = "first"
	if err := env.direct.Update(context.Background(), &proj); err != nil {
		t.Fatal(err)
	}
	stale.Spec.Description = "second"
	err := env.direct.Update(context.Background(), stale)
	if e := resource.WriteErrorOf(err, "project", id); e == nil || e.(*apierror.Error).GetStatus() != 409 {
		t.Fatalf("stale update gave %v", err)
	}
}

func mustCampaign(t *testing.T, key, projectID string, budget map[string]any, gov map[string]any) string {
	t.Helper()
	if budget == nil {
		budget = map[string]any{"compute_units": 100000, "max_runs": 50}
	}
	body := map[string]any{"name": "c " + t.Name(), "budget": budget}
	if gov != nil {
		body["governance"] = gov
	}
	return call(t, "POST", "/v1/projects/"+projectID+"/campaigns", key, body).expect(t, 201).str("id")
}

func TestCampaigns(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, map[string]any{"name": "camp", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	r := call(t, "POST", "/v1/projects/"+pid+"/campaigns", key, map[string]any{
		"name": "c1", "description": "d",
		"budget":     map[string]any{"compute_units": 1000, "max_runs": 5, "expires_at": exp.Format(time.RFC3339)},
		"governance": map[string]any{"promotion_ceiling": "validate", "require_negative_controls": false, "auto_promote_to": "explore"},
	}).expect(t, 201)
	cid := r.str("id")
	b := r.JSON["budget"].(map[string]any)
	if b["compute_units"] != 1000.0 || b["compute_units_used"] != 0.0 || b["max_runs"] != 5.0 || b["runs_completed"] != 0.0 || b["expires_at"] != exp.Format(time.RFC3339) {
		t.Fatalf("budget %v", b)
	}
	g := r.JSON["governance"].(map[string]any)
	if g["promotion_ceiling"] != "validate" || g["require_negative_controls"] != false || g["auto_promote_to"] != "explore" {
		t.Fatalf("governance %v", g)
	}
	if r.str("project_id") != pid || r.str("status") != "active" || r.str("created_by") == "" {
		t.Fatalf("campaign %s", r.Raw)
	}
	call(t, "GET", "/v1/projects/"+pid+"/campaigns/"+cid, key, nil).expect(t, 200)
	l := call(t, "GET", "/v1/projects/"+pid+"/campaigns", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 1.0 {
		t.Fatalf("list %s", l.Raw)
	}
	// Budget is required; auto_promote_to above the ceiling is refused by the CRD rule.
	call(t, "POST", "/v1/projects/"+pid+"/campaigns", key, map[string]any{"name": "x"}).expect(t, 400, "validation_error")
	call(t, "POST", "/v1/projects/"+pid+"/campaigns", key, map[string]any{"name": "x", "budget": map[string]any{"compute_units": -1, "max_runs": 1}}).expect(t, 400, "validation_error")
	call(t, "POST", "/v1/projects/"+pid+"/campaigns", key, map[string]any{"name": "x", "budget": map[string]any{"compute_units": 1, "max_runs": 1},
		"governance": map[string]any{"promotion_ceiling": "explore", "auto_promote_to": "publish"}}).expect(t, 400, "validation_error")
	// Campaign of another project, or of another tenant's project.
	other := mustProject(t, key, nil)
	call(t, "GET", "/v1/projects/"+other+"/campaigns/"+cid, key, nil).expect(t, 404)
	call(t, "GET", "/v1/projects/"+pid+"/campaigns/"+cid, env.adminB, nil).expect(t, 404)
	call(t, "POST", "/v1/projects/"+pid+"/campaigns", env.adminB, map[string]any{"name": "x", "budget": map[string]any{"compute_units": 1, "max_runs": 1}}).expect(t, 404)
}

// upload sends a multipart dataset upload.
func upload(t *testing.T, key, projectID, fileName string, content []byte, meta string, extra ...string) *response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	writeUpload(t, mw, meta, fileName, content)
	must(t, mw.Close())
	headers := append([]string{"Content-Type", mw.FormDataContentType()}, extra...)
	return call(t, "POST", "/v1/projects/"+projectID+"/datasets", key, buf.Bytes(), headers...)
}

// writeUpload writes the parts of a dataset upload to mw: the metadata part when meta is
// given, and the file part when content is. It returns the file part, for more content.
func writeUpload(t *testing.T, mw *multipart.Writer, meta, fileName string, content []byte) io.Writer {
	t.Helper()
	if meta != "" {
		w, err := mw.CreateFormField("metadata")
		must(t, err)
		_, err = io.WriteString(w, meta)
		must(t, err)
	}
	if content == nil {
		return nil
	}
	w, err := mw.CreateFormFile("file", fileName)
	must(t, err)
	_, err = w.Write(content)
	must(t, err)
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func csvData(rows int) []byte {
	var b strings.Builder
	b.WriteString("t,x,y\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i, i*2, i*i)
	}
	return []byte(b.String())
}

// markReady does what the profiling controller does.
func markReady(t *testing.T, datasetID string, variables ...string) {
	t.Helper()
	ctx := context.Background()
	var ds discov1.Dataset
	if err := env.direct.Get(ctx, client.ObjectKey{Namespace: nsA(), Name: ids.ToName(datasetID)}, &ds); err != nil {
		t.Fatal(err)
	}
	key := tenantProfileKey(env.tenantA, &ds)
	mean := 1.5
	prof, _ := json.Marshal(map[string]any{"row_count": 100, "column_count": len(variables),
		"columns": []map[string]any{{"name": variables[0], "dtype": "float64", "mean": mean, "std": 0.5, "null_count": 0}},
		"quality": map[string]any{"completeness": 1, "duplicate_rows": 0, "outlier_fraction": 0.01}})
	if err := env.blob.Put(ctx, key, prof); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	ds.Status = discov1.DatasetStatus{Phase: discov1.DatasetReady, Rows: 100, Columns: int32(len(variables)), Variables: variables, ProfileKey: key, ProfiledAt: &now}
	if err := env.direct.Status().Update(ctx, &ds); err != nil {
		t.Fatal(err)
	}
	inFacadeCache(t, &ds)
}

func TestDatasets(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	data := csvData(50)
	r := upload(t, key, pid, "../../etc/passwd", data, `{"name": "pend", "format": "csv", "variables": ["t","x","y"]}`).expect(t, 201)
	did := r.str("id")
	if r.str("status") != "profiling" || r.JSON["profile_ready"] != false || r.JSON["size_bytes"] != float64(len(data)) || r.str("format") != "csv" {
		t.Fatalf("dataset: %s", r.Raw)
	}
	for _, k := range []string{"id", "name", "format", "status", "size_bytes", "rows", "variables", "created_at", "profile_ready"} {
		if _, ok := r.JSON[k]; !ok {
			t.Errorf("dataset lacks %s", k)
		}
	}
	var ds discov1.Dataset
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: ids.ToName(did)}, &ds); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ds.Spec.BlobKey, "..") || strings.Contains(ds.Spec.BlobKey, "passwd") {
		t.Fatalf("file name reached the blob key: %s", ds.Spec.BlobKey)
	}
	rc, err := env.blob.Get(context.Background(), ds.Spec.BlobKey)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(stored, data) {
		t.Fatal("stored file differs")
	}

	call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", key, nil).expect(t, 409, "dataset_not_ready")
	markReady(t, did, "t", "x", "y")
	g := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did, key, nil).expect(t, 200)
	if g.str("status") != "ready" || g.JSON["profile_ready"] != true || g.JSON["rows"] != 100.0 {
		t.Fatalf("ready dataset: %s", g.Raw)
	}
	pr := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", key, nil).expect(t, 200)
	if pr.str("dataset_id") != did || pr.str("status") != "ready" || pr.JSON["row_count"] != 100.0 || pr.JSON["profiled_at"] == nil {
		t.Fatalf("profile: %s", pr.Raw)
	}
	if q := pr.JSON["quality"].(map[string]any); q["outlier_fraction"] != 0.01 {
		t.Fatalf("quality: %v", q)
	}
	l := call(t, "GET", "/v1/projects/"+pid+"/datasets?status=ready", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 1.0 {
		t.Fatalf("list: %s", l.Raw)
	}

	t.Run("errors", func(t *testing.T) {
		upload(t, key, pid, "x.xlsx", data, `{"name": "x", "format": "xlsx"}`).expect(t, 422, "dataset_format_unsupported")
		upload(t, key, pid, "x.parquet", data, `{"name": "x", "format": "parquet"}`).expect(t, 422, "dataset_unreadable")
		upload(t, key, pid, "x.csv", []byte{0, 1, 2, 3, 0xff}, `{"name": "x", "format": "csv"}`).expect(t, 422, "dataset_unreadable")
		upload(t, key, pid, "x.csv", []byte{}, `{"name": "x", "format": "csv"}`).expect(t, 422, "dataset_unreadable")
		upload(t, key, pid, "x.csv", data, "").expect(t, 400, "validation_error")
		upload(t, key, pid, "", nil, `{"name": "x", "format": "csv"}`).expect(t, 400, "validation_error")
		upload(t, key, pid, "x.csv", data, `{"name": 5, "format": "csv"}`).expect(t, 400, "validation_error")
		upload(t, key, pid, "x.csv", data, `{"name": `).expect(t, 400, "malformed_request")
		big := bytes.Repeat([]byte("1,2,3\n"), (2<<20)/6)
		upload(t, key, pid, "big.csv", big, `{"name": "x", "format": "csv"}`).expect(t, 413, "payload_too_large")
		call(t, "POST", "/v1/projects/"+pid+"/datasets", key, `{"name": "x"}`).expect(t, 415, "unsupported_media_type")
		upload(t, env.adminB, pid, "x.csv", data, `{"name": "x", "format": "csv"}`).expect(t, 404)
		// Nothing half-stored: only the good upload made an object.
		var list discov1.DatasetList
		must(t, env.direct.List(context.Background(), &list, client.InNamespace(nsA()), client.MatchingLabels{discov1.LabelProject: pid}))
		if len(list.Items) != 1 {
			t.Fatalf("%d datasets stored", len(list.Items))
		}
	})
}

func readyDataset(t *testing.T, key, pid string) string {
	t.Helper()
	did := upload(t, key, pid, "d.csv", csvData(30), `{"name": "d", "format": "csv"}`).expect(t, 201).str("id")
	markReady(t, did, "t", "x", "y")
	return did
}

func TestRuns(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	cid := mustCampaign(t, key, pid, map[string]any{"compute_units": 100, "max_runs": 3}, nil)
	did := readyDataset(t, key, pid)
	base := "/v1/projects/" + pid + "/campaigns/" + cid + "/runs"

	sub := map[string]any{"mode": "neuro_symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}, "max_complexity": 10, "epochs": 50, "cross_validate": false},
		"governance": map[string]any{"negative_controls": []string{"shuffled_target"}, "evidence_threshold": 0.5}}
	r := call(t, "POST", base, key, sub).expect(t, 201)
	rid := r.str("id")
	if r.str("status") != "queued" || r.JSON["compute_units_estimated"].(float64) < 1 || r.str("campaign_id") != cid {
		t.Fatalf("run: %s", r.Raw)
	}
	if p := r.JSON["parameters"].(map[string]any); p["max_complexity"] != 10.0 || p["target_variables"].([]any)[0] != "y" {
		t.Fatalf("parameters echo: %v", p)
	}
	// Same submission while queued: duplicate.
	d := call(t, "POST", base, key, sub).expect(t, 409, "duplicate_run")
	if d.errDetails()["run_id"] != rid {
		t.Fatalf("duplicate details: %s", d.Raw)
	}
	// Validation.
	call(t, "POST", base, key, map[string]any{"mode": "magic", "dataset_id": did}).expect(t, 400, "validation_error")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic"}).expect(t, 400, "validation_error")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": did, "parameters": map[string]any{"target_variables": []string{"nope"}}}).expect(t, 422, "parameter_invalid")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": did, "parameters": map[string]any{"constraints": []string{"garbage"}}}).expect(t, 422, "constraint_invalid")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": did, "governance": map[string]any{"negative_controls": []string{"nope"}}}).expect(t, 400, "validation_error")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"}).expect(t, 404, "not_found")
	notReady := upload(t, key, pid, "d.csv", csvData(30), `{"name": "d", "format": "csv"}`).expect(t, 201).str("id")
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": notReady}).expect(t, 409, "dataset_not_ready")

	// Reads.
	call(t, "GET", base+"/"+rid, key, nil).expect(t, 200)
	st := call(t, "GET", base+"/"+rid+"/status", key, nil).expect(t, 200)
	if st.str("status") != "queued" || len(st.JSON["pipeline"].(map[string]any)["stages"].([]any)) == 0 {
		t.Fatalf("status: %s", st.Raw)
	}
	call(t, "GET", base+"/"+rid+"/results", key, nil).expect(t, 409, "run_not_completed")
	l := call(t, "GET", base+"?status=queued", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 1.0 {
		t.Fatalf("list: %s", l.Raw)
	}

	// Budget: compute units.
	huge := map[string]any{"mode": "neural", "dataset_id": did, "parameters": map[string]any{"epochs": 100000, "cross_validate": true}}
	call(t, "POST", base, key, huge).expect(t, 403, "budget_exhausted")
	if e := call(t, "POST", base, key, huge); e.errDetails()["constraint"] != "compute_units" {
		t.Fatalf("details: %s", e.Raw)
	}
	// Budget: max runs (3): two more fit, the fourth does not.
	call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": did}).expect(t, 201)
	call(t, "POST", base, key, map[string]any{"mode": "causal", "dataset_id": did}).expect(t, 201)
	e := call(t, "POST", base, key, map[string]any{"mode": "neural", "dataset_id": did}).expect(t, 403, "budget_exhausted")
	if e.errDetails()["constraint"] != "max_runs" {
		t.Fatalf("details: %s", e.Raw)
	}
	// Expired campaign.
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	cid2 := mustCampaign(t, key, pid, map[string]any{"compute_units": 100, "max_runs": 3, "expires_at": past}, nil)
	e = call(t, "POST", "/v1/projects/"+pid+"/campaigns/"+cid2+"/runs", key, map[string]any{"mode": "symbolic", "dataset_id": did}).expect(t, 403, "budget_exhausted")
	if e.errDetails()["constraint"] != "expires_at" {
		t.Fatalf("details: %s", e.Raw)
	}

	// Cancel, then results after completion.
	c := call(t, "POST", base+"/"+rid+"/cancel", key, nil).expect(t, 202)
	if c.JSON["cancel_requested"] != true {
		t.Fatalf("cancel: %s", c.Raw)
	}
	var run discov1.Run
	ctx := context.Background()
	if err := env.direct.Get(ctx, client.ObjectKey{Namespace: nsA(), Name: ids.ToName(rid)}, &run); err != nil {
		t.Fatal(err)
	}
	if run.Annotations[discov1.AnnotationCancelRequested] == "" {
		t.Fatal("no cancel annotation")
	}
	now := metav1.Now()
	score := 0.9
	run.Status = discov1.RunStatus{Phase: discov1.RunCompleted, ComputeUnitsUsed: 7, CompletedAt: &now, DurationMS: 1234, ClaimsCount: 2, ArtifactsCount: 1,
		Summary:   &discov1.RunSummary{BestClaimID: "clm_x", BestClaimType: "law", BestClaimScore: &score, NegativeControlsPassed: true},
		Artifacts: []discov1.ArtifactRef{{ID: "art_aaaaaaaaaaaaaaaaaaaaaaaaaa", Name: "fit.svg", Kind: "plot", MediaType: "image/svg+xml", SizeBytes: 5, SHA256: strings.Repeat("a", 64), Key: ownArtifactKey(&run, env.tenantA, "fit.svg"), CreatedAt: now}}}
	if err := env.blob.Put(ctx, ownArtifactKey(&run, env.tenantA, "fit.svg"), []byte("<svg>")); err != nil {
		t.Fatal(err)
	}
	if err := env.direct.Status().Update(ctx, &run); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		r := call(t, "GET", base+"/"+rid+"/results", key, nil)
		if r.Status != 200 {
			return fmt.Errorf("results: %s", r.Raw)
		}
		if r.JSON["claims_count"] != 2.0 || r.JSON["duration_ms"] != 1234.0 || r.JSON["summary"].(map[string]any)["best_claim_score"] != 0.9 {
			return fmt.Errorf("results: %s", r.Raw)
		}
		return nil
	})
	call(t, "POST", base+"/"+rid+"/cancel", key, nil).expect(t, 409, "run_already_finished")
	a := call(t, "GET", base+"/"+rid+"/artifacts", key, nil).expect(t, 200)
	if a.JSON["total_count"] != 1.0 {
		t.Fatalf("artifacts: %s", a.Raw)
	}
	req, _ := http.NewRequest("GET", strings.TrimSuffix(env.url, "/v1")+base+"/"+rid+"/artifacts/art_aaaaaaaaaaaaaaaaaaaaaaaaaa/content", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "<svg>" || res.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("content %d %q %v", res.StatusCode, body, res.Header)
	}
	call(t, "GET", base+"/"+rid+"/artifacts/art_bbbbbbbbbbbbbbbbbbbbbbbbbb/content", key, nil).expect(t, 404)
}
