package apiserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
)

// ownArtifactKey is where the engine stores an artifact of run (issue 14 item 3).
func ownArtifactKey(run *discov1.Run, tenantID, name string) string {
	return blob.RunRefOf(tenantID, run, "").Artifact(ids.Derive(ids.Artifact, run.Name, name), name)
}

// runObject submits a run over REST and returns its object.
func runObject(t *testing.T, key string) (base string, run *discov1.Run) {
	t.Helper()
	pid := mustProject(t, key, nil)
	cid := mustCampaign(t, key, pid, map[string]any{"compute_units": 100, "max_runs": 3}, nil)
	did := readyDataset(t, key, pid)
	base = "/v1/projects/" + pid + "/campaigns/" + cid + "/runs"
	rid := call(t, "POST", base, key, map[string]any{"mode": "symbolic", "dataset_id": did}).expect(t, 201).str("id")
	run = &discov1.Run{}
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: ids.ToName(rid)}, run); err != nil {
		t.Fatal(err)
	}
	return base + "/" + rid, run
}

// setArtifacts writes a run's status as its engine would and waits for the facade to see it.
func setArtifacts(t *testing.T, run *discov1.Run, resultsKey string, artifacts ...discov1.ArtifactRef) {
	t.Helper()
	ctx := context.Background()
	now := metav1.Now()
	for i := range artifacts {
		artifacts[i].Kind, artifacts[i].MediaType, artifacts[i].CreatedAt = "plot", "image/svg+xml", now
		artifacts[i].SHA256 = strings.Repeat("a", 64)
	}
	run.Status = discov1.RunStatus{Phase: discov1.RunCompleted, CompletedAt: &now, ResultsKey: resultsKey,
		ArtifactsCount: int32(len(artifacts)), Artifacts: artifacts}
	if err := env.direct.Status().Update(ctx, run); err != nil {
		t.Fatal(err)
	}
	inFacadeCache(t, run)
}

// download fetches an artifact's content.
func download(t *testing.T, key, runPath, artifactID string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", strings.TrimSuffix(env.url, "/v1")+runPath+"/artifacts/"+artifactID+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), res.Header
}

// Issue 17 item 2: whoever can write a Run's status (its engine) chose the blob the
// facade streamed. Only the run's own keys are streamed now, with their stored length.
func TestArtifactContentStreamsOnlyTheRunsOwnBlobs(t *testing.T) {
	ctx := context.Background()
	runPath, run := runObject(t, env.adminA)

	own := ownArtifactKey(run, env.tenantA, "fit.svg")
	if err := env.blob.Put(ctx, own, []byte("<svg>")); err != nil {
		t.Fatal(err)
	}
	// Tenant B's data: an uploaded dataset and the artifact of B's run of the same name.
	nsB := "disco-" + ids.ToName(env.tenantB)
	foreignDataset := "datasets/" + nsB + "/ds-secret/data.csv"
	sameNameB := blob.RunRef{TenantID: env.tenantB, Namespace: nsB, Name: run.Name, UID: "b-uid"}.Artifact("art_x", "graph.json")
	for _, k := range []string{foreignDataset, sameNameB} {
		if err := env.blob.Put(ctx, k, []byte("tenant B's secret")); err != nil {
			t.Fatal(err)
		}
	}
	arts := map[string]string{
		"art_aaaaaaaaaaaaaaaaaaaaaaaaaa": own,
		"art_bbbbbbbbbbbbbbbbbbbbbbbbbb": foreignDataset,
		"art_cccccccccccccccccccccccccc": sameNameB,
		// Another tenant's key spelled under this run's prefix.
		"art_dddddddddddddddddddddddddd": blob.RunRefOf(env.tenantA, run, "").Prefix() + "../../../../../" + strings.TrimPrefix(sameNameB, "runs/"),
		// The layout before tenant scoping, while the run's results are scoped.
		"art_eeeeeeeeeeeeeeeeeeeeeeeeee": blob.LegacyRunPrefix(run.Name) + "artifacts/art_x-graph.json",
	}
	if err := env.blob.Put(ctx, arts["art_eeeeeeeeeeeeeeeeeeeeeeeeee"], []byte("tenant B's secret")); err != nil {
		t.Fatal(err)
	}
	var refs []discov1.ArtifactRef
	for id, k := range arts {
		// The status claims a size; the header must come from the stored blob.
		refs = append(refs, discov1.ArtifactRef{ID: id, Name: id + ".svg", SizeBytes: 1 << 20, Key: k})
	}
	setArtifacts(t, run, blob.RunRefOf(env.tenantA, run, "").Results(), refs...)

	status, body, h := download(t, env.adminA, runPath, "art_aaaaaaaaaaaaaaaaaaaaaaaaaa")
	if status != 200 || body != "<svg>" || h.Get("Content-Length") != "5" {
		t.Fatalf("own artifact: %d %q Content-Length %q", status, body, h.Get("Content-Length"))
	}
	for id, k := range arts {
		if id == "art_aaaaaaaaaaaaaaaaaaaaaaaaaa" {
			continue
		}
		r := call(t, "GET", runPath+"/artifacts/"+id+"/content", env.adminA, nil)
		if r.Status != 404 || strings.Contains(string(r.Raw), "secret") {
			t.Errorf("artifact with key %s: %d %s", k, r.Status, r.Raw)
		}
	}
	// Tenant B cannot reach the run at all.
	call(t, "GET", runPath+"/artifacts/art_aaaaaaaaaaaaaaaaaaaaaaaaaa/content", env.adminB, nil).expect(t, 404)
}

// Runs stored before keys named the tenant keep their artifacts; a run of another tenant
// given the same name (and the same legacy keys) does not get them.
func TestArtifactContentReadsLegacyKeysOnlyForTheRunThatWroteThem(t *testing.T) {
	ctx := context.Background()
	runPath, run := runObject(t, env.adminA)
	legacy := blob.LegacyRunPrefix(run.Name) + "artifacts/art_x-fit.svg"
	if err := env.blob.Put(ctx, legacy, []byte("<svg>")); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	ref := discov1.ArtifactRef{ID: "art_aaaaaaaaaaaaaaaaaaaaaaaaaa", Name: "fit.svg", SizeBytes: 5, Key: legacy}
	setArtifacts(t, run, blob.LegacyRunResultsKey(run.Name), ref)
	if status, body, _ := download(t, env.adminA, runPath, ref.ID); status != 200 || body != "<svg>" {
		t.Fatalf("legacy artifact of its own run: %d %q", status, body)
	}

	// Tenant B creates a Run with the victim's name after the blob was written (creation
	// times have whole seconds) and points its status at the victim's legacy keys.
	for time.Now().Truncate(time.Second).Compare(written) <= 0 {
		time.Sleep(50 * time.Millisecond)
	}
	pidB := mustProject(t, env.adminB, nil)
	cidB := mustCampaign(t, env.adminB, pidB, map[string]any{"compute_units": 100, "max_runs": 3}, nil)
	copycat := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: run.Name, Namespace: "disco-" + ids.ToName(env.tenantB)},
		Spec:       discov1.RunSpec{ProjectID: pidB, CampaignID: cidB, Mode: discov1.ModeSymbolic, DatasetID: ids.New(ids.Dataset)},
	}
	if err := env.direct.Create(ctx, copycat); err != nil {
		t.Fatal(err)
	}
	setArtifacts(t, copycat, blob.LegacyRunResultsKey(run.Name), ref)
	copyPath := "/v1/projects/" + pidB + "/campaigns/" + cidB + "/runs/" + ids.FromName(run.Name)
	call(t, "GET", copyPath, env.adminB, nil).expect(t, 200)
	if status, body, _ := download(t, env.adminB, copyPath, ref.ID); status != 404 {
		t.Fatalf("another tenant's same-named run read the legacy artifact: %d %q", status, body)
	}
}
