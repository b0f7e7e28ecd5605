package cluster

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/test/live"
)

// kubectlOn runs the real kubectl (bin/kubectl, which make cluster-up links) against the
// cluster as its admin, as a person types it.
func (e *env) kubectlOn(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin", "kubectl"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", e.creds.Kubeconfig}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// The samples, applied to the real cluster as its README shows (issue 14, "the same
// scenarios on the real cluster"): human-named manifests, the table in a ConfigMap the
// manager fetches, a Run that becomes a Job whose engine pod finds its human-named dataset,
// and the REST facade finding the run by its derived id.
func TestSamplesOnTheCluster(t *testing.T) {
	e := cluster(t)
	done := phase(t, "samples applied, fetched and run as a Job")
	e.kubectlOn(t, "apply", "-k", filepath.Join("..", "..", "config", "samples"))
	e.kubectlOn(t, "-n", "physics-lab", "wait", "--for=jsonpath={.status.phase}=ready", "dset/drops-2024", "--timeout=5m")
	e.kubectlOn(t, "-n", "physics-lab", "wait", "--for=condition=Succeeded", "drun/first-look", "--timeout=10m")
	done()

	if key := e.kubectlOn(t, "-n", "physics-lab", "get", "dset", "drops-2024", "-o", "jsonpath={.status.source.blobKey}"); !strings.Contains(key, "/physics-lab/sources/drops-2024/") {
		t.Errorf("the fetched table is stored at %q", key)
	}
	if job := e.kubectlOn(t, "-n", "physics-lab", "get", "jobs", "-l", "discovery.disco.dev/run", "-o", "name"); job == "" {
		t.Error("the samples' run left no Job: it did not run on the node")
	}
	runID := e.kubectlOn(t, "-n", "physics-lab", "get", "drun", "first-look", "-o", "jsonpath={.status.id}")
	projectID := e.kubectlOn(t, "-n", "physics-lab", "get", "drun", "first-look", "-o", "jsonpath={.status.projectID}")
	campaignID := e.kubectlOn(t, "-n", "physics-lab", "get", "drun", "first-look", "-o", "jsonpath={.status.campaignID}")
	if claims := e.kubectlOn(t, "-n", "physics-lab", "get", "clm", "-l", "discovery.disco.dev/run="+runID, "-o", "name"); claims == "" {
		t.Error("the samples' run has no claims")
	}
	// The facade finds the human-named run by its id with the key the samples' Tenant
	// declared; the admin key, another tenant's, sees 404, as across tenants.
	// The key is issued by its own controller: wait for its Secret as test/e2e does.
	e.kubectlOn(t, "-n", "physics-lab", "wait", "--for=create", "secret/disco-api-key-pipeline", "--timeout=2m")
	raw := e.kubectlOn(t, "-n", "physics-lab", "get", "secret", "disco-api-key-pipeline", "-o", "jsonpath={.data.DISCO_API_KEY}")
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) == 0 {
		t.Fatalf("the Tenant's API key Secret: %q, %v", raw, err)
	}
	lab := &live.Client{T: t, Base: e.creds.BaseURL, Key: string(key), HTTP: &http.Client{Timeout: 60 * time.Second}}
	if run := lab.Must(200, "GET", runPath(projectID, campaignID, runID), nil); run["status"] != "completed" {
		t.Errorf("the samples' run over REST: %v", run)
	}
	if code, _ := e.api(t).Do("GET", runPath(projectID, campaignID, runID), nil); code != 404 {
		t.Errorf("another tenant's key reading the samples' run: %d, want 404", code)
	}
}
