package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

// A GitOps repository of plain, human-named manifests brings up a tenant with its own API
// key, a project, datasets whose files come from a file root and a ConfigMap, and a run,
// with a real kubectl and nothing uploaded or copied by hand (issue 14, "Done when" and
// item 7). The key the Tenant declared then reaches the same objects over REST.
func TestGitOpsManifestsWithoutUploads(t *testing.T) {
	bin := kubectlBinary(t)
	dir := t.TempDir()
	p := startDev(t, dir, freeAddr(t))
	tenantID := ids.New(ids.Tenant)
	ns := "optics-lab"
	in := kubectl{t: t, bin: bin, kubeconfig: p.creds.Kubeconfig, namespace: ns}
	// The admin puts the table where the manager reads file sources for the namespace.
	csv := live.QuadraticCSV(240)
	if err := os.MkdirAll(filepath.Join(dir, "sources", ns), 0o755); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(dir, "sources", ns, "lens.csv")
	if err := os.WriteFile(table, csv, 0o644); err != nil {
		t.Fatal(err)
	}
	manifests := `apiVersion: v1
kind: Namespace
metadata:
  name: ` + ns + `
  labels: {discovery.disco.dev/tenant: ` + tenantID + `}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Tenant
metadata: {name: ` + ids.ToName(tenantID) + `}
spec:
  tier: team
  namespace: ` + ns + `
  apiKeys:
  - {name: pipeline, scopes: [projects:read, datasets:read, runs:read, claims:read, ledger:read]}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Project
metadata: {name: lenses, namespace: ` + ns + `}
spec: {}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Campaign
metadata: {name: focal, namespace: ` + ns + `}
spec:
  projectRef: {name: lenses}
  budget: {computeUnits: 10000, maxRuns: 5}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Dataset
metadata: {name: lens-file, namespace: ` + ns + `}
spec:
  projectRef: {name: lenses}
  format: csv
  source: {url: "file://` + table + `"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: lens-table, namespace: ` + ns + `}
data:
  lens.csv: |
` + indent(string(csv), "    ") + `---
apiVersion: discovery.disco.dev/v1alpha1
kind: Dataset
metadata: {name: lens-configmap, namespace: ` + ns + `}
spec:
  projectRef: {name: lenses}
  format: csv
  source: {configMapRef: {name: lens-table, key: lens.csv}}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Run
metadata: {name: first-fit, namespace: ` + ns + `}
spec:
  campaignRef: {name: focal}
  datasetRef: {name: lens-file}
  mode: symbolic
  parameters:
    targetVariables: ["y"]
`
	// One pass, in file order, as a GitOps tool syncs it.
	in.must(manifests, "apply", "-f", "-")
	in.must("", "wait", "--for=jsonpath={.status.phase}=ready", "dset/lens-file", "dset/lens-configmap", "--timeout=3m")
	for _, ds := range []string{"lens-file", "lens-configmap"} {
		if rows := in.must("", "get", "dset", ds, "-o", "jsonpath={.status.rows}"); rows != "240" {
			t.Errorf("dataset %s has %s rows, want 240", ds, rows)
		}
		if key := in.must("", "get", "dset", ds, "-o", "jsonpath={.status.source.blobKey}"); !strings.Contains(key, "/"+ns+"/sources/"+ds+"/") {
			t.Errorf("dataset %s was stored at %q", ds, key)
		}
	}
	in.must("", "wait", "--for=condition=Succeeded", "drun/first-fit", "--timeout=5m")

	// A file outside the namespace's directory is refused, and says why.
	in.must(`apiVersion: discovery.disco.dev/v1alpha1
kind: Dataset
metadata: {name: escape}
spec:
  projectRef: {name: lenses}
  format: csv
  source: {url: "file://`+filepath.Join(dir, "credentials.json")+`"}
`, "apply", "-f", "-")
	in.must("", "wait", "--for=jsonpath={.status.phase}=failed", "dset/escape", "--timeout=2m")
	if msg := in.must("", "get", "dset", "escape", "-o", "jsonpath={.status.message}"); !strings.Contains(msg, "is not a file under") {
		t.Errorf("escape dataset message %q", msg)
	}

	// The key the Tenant declared, read from its Secret as a pipeline would.
	var key string
	live.Eventually(t, time.Minute, "the API key Secret", func() bool {
		out, _, ok := in.run("", "get", "secret", "disco-api-key-pipeline", "-o", "jsonpath={.data.DISCO_API_KEY}")
		if !ok || out == "" {
			return false
		}
		raw, err := base64.StdEncoding.DecodeString(out)
		key = string(raw)
		return err == nil
	})
	a := &api{t: t, base: p.creds.BaseURL, key: key}
	projectID := in.must("", "get", "project", "lenses", "-o", "jsonpath={.status.id}")
	if got := a.must(200, "GET", "/projects/"+projectID, nil); got["name"] != "lenses" {
		t.Errorf("GET /projects/%s = %v", projectID, got)
	}
	campaignID := in.must("", "get", "campaign", "focal", "-o", "jsonpath={.status.id}")
	runID := in.must("", "get", "drun", "first-fit", "-o", "jsonpath={.status.id}")
	runPath := "/projects/" + projectID + "/campaigns/" + campaignID + "/runs/" + runID
	if got := a.must(200, "GET", runPath, nil); got["status"] != "completed" {
		t.Errorf("GET %s = %v", runPath, got)
	}
	datasetID := in.must("", "get", "dset", "lens-configmap", "-o", "jsonpath={.status.id}")
	got := a.must(200, "GET", "/projects/"+projectID+"/datasets/"+datasetID, nil)
	if got["status"] != "ready" || got["size_bytes"] != float64(len(csv)) || got["name"] != "lens-configmap" {
		t.Errorf("GET dataset %s = %v, want ready, %d bytes, named lens-configmap", datasetID, got, len(csv))
	}
	// Its scopes are the declared ones: it reads but may not write.
	if code, _ := a.do("POST", "/projects", map[string]any{"name": "nope"}); code != 403 {
		t.Errorf("POST /projects with a read-only declared key = %d, want 403", code)
	}
	if v := a.must(200, "GET", "/projects/"+projectID+"/ledger/verify", nil); v["valid"] != true {
		t.Errorf("ledger verify = %v", v)
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
