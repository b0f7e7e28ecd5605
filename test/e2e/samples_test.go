package e2e

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/test/live"
)

// The tenant and namespace config/samples uses: the tenant is named by a person, so its id
// is derived from the name.
const samplesNamespace = "physics-lab"

var samplesTenantID = discov1.PublicIDFor(ids.Tenant, "", "physics-lab")

// TestSamplesApplyInOnePass applies config/samples with a real kubectl against a fresh
// `disco dev`, as its README says: one `kubectl apply -k`, human names and references by
// name, no ids, the table in a ConfigMap (issue 14, items 6, 7 and 8). The run succeeds, its claims exist, the objects
// carry their derived ids in status and as a label a selector finds, and the project's
// ledger verifies. A campaign that allows one run refuses a second Run written with
// campaignRef at admission, with the REST constraint name.
func TestSamplesApplyInOnePass(t *testing.T) {
	bin := kubectlBinary(t)
	dir := t.TempDir()
	p := startDev(t, dir, freeAddr(t))
	admin := kubectl{t: t, bin: bin, kubeconfig: p.creds.Kubeconfig, namespace: samplesNamespace}

	admin.must("", "apply", "-k", filepath.Join("..", "..", "config", "samples"))
	admin.must("", "wait", "--for=condition=Succeeded", "drun/first-look", "--timeout=10m")

	// The dataset's table came from the ConfigMap kustomize made of data/drop.csv, checked
	// against the pinned SHA-256 (issue 14, item 7): nothing was copied by hand.
	csv, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "data", "drop.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if size := admin.must("", "get", "dset", "drops-2024", "-o", "jsonpath={.status.source.sizeBytes}"); size != strconv.Itoa(len(csv)) {
		t.Errorf("the fetched dataset has %s bytes, data/drop.csv %d", size, len(csv))
	}

	// Derived ids in status and labels; displayName defaulted to the name.
	get := func(kind, name, path string) string { return admin.must("", "get", kind, name, "-o", "jsonpath="+path) }
	projectID := get("proj", "free-fall", "{.status.id}")
	if !strings.HasPrefix(projectID, "proj_") || get("proj", "free-fall", "{.spec.displayName}") != "free-fall" {
		t.Errorf("project: status.id %q, displayName %q", projectID, get("proj", "free-fall", "{.spec.displayName}"))
	}
	if found := admin.must("", "get", "proj", "-l", "discovery.disco.dev/id="+projectID, "-o", "name"); found != "project.discovery.disco.dev/free-fall" {
		t.Errorf("label selector on the project's id finds %q", found)
	}
	if got := get("camp", "drops", "{.status.projectID}"); got != projectID {
		t.Errorf("campaign status.projectID = %q, want %q", got, projectID)
	}
	runID := get("drun", "first-look", "{.status.id}")
	if got := get("drun", "first-look", "{.status.projectID}"); !strings.HasPrefix(runID, "run_") || got != projectID {
		t.Errorf("run: status.id %q, status.projectID %q", runID, got)
	}
	if got := get("drun", "first-look", "{.metadata.labels.discovery\\.disco\\.dev/project}"); got != projectID {
		t.Errorf("run's project label = %q, want %q (set by the controller)", got, projectID)
	}
	if got := admin.must("", "get", "ten", "physics-lab", "-o", "jsonpath={.status.id}"); got != samplesTenantID {
		t.Errorf("the tenant's status.id = %q, want %q (derived from its name)", got, samplesTenantID)
	}
	claims := admin.must("", "get", "clm", "-l", "discovery.disco.dev/run="+runID, "-o", "name")
	if claims == "" || get("drun", "first-look", "{.status.claimsCount}") == "0" {
		t.Fatalf("the run's claims: %q", claims)
	}

	// The Tenant's declared API key reaches the human-named run over REST by its id.
	var labKey []byte
	live.Eventually(t, time.Minute, "the Tenant's API key Secret", func() bool {
		raw, _, ok := admin.run("", "get", "secret", "disco-api-key-pipeline", "-o", "jsonpath={.data.DISCO_API_KEY}")
		labKey, _ = base64.StdEncoding.DecodeString(raw)
		return ok && len(labKey) > 0
	})
	lab := &api{t: t, base: p.creds.BaseURL, key: string(labKey)}
	runPath := "/projects/" + projectID + "/campaigns/" + get("drun", "first-look", "{.status.campaignID}") + "/runs/" + runID
	if run := lab.must(200, "GET", runPath, nil); run["status"] != "completed" {
		t.Errorf("GET %s with the Tenant's key = %v", runPath, run)
	}

	// The ledger of the human-named project, under its derived id, verifies.
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key, err := ledger.LoadOrCreateKey(filepath.Join(dir, "ledger.key"))
	if err != nil {
		t.Fatal(err)
	}
	led, err := ledger.New(st, key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := led.Verify(ctx, samplesTenantID, projectID); err != nil || !v.Valid || v.Size == 0 {
		t.Errorf("ledger of %s: %+v, %v; want valid and not empty", projectID, v, err)
	}

	// Budgets hold for Runs written by name: the second run of a one-run campaign is refused.
	admin.must(`apiVersion: discovery.disco.dev/v1alpha1
kind: Campaign
metadata: {name: one-run}
spec:
  projectRef: {name: free-fall}
  budget: {computeUnits: 1000, maxRuns: 1}
`, "apply", "-f", "-")
	run := func(name string) string {
		return `apiVersion: discovery.disco.dev/v1alpha1
kind: Run
metadata: {name: ` + name + `}
spec:
  campaignRef: {name: one-run}
  datasetRef: {name: drops-2024}
  mode: symbolic
`
	}
	admin.must(run("only-one"), "create", "-f", "-")
	admin.refused(run("one-too-many"), []string{"budget_exhausted (max_runs)"}, "create", "-f", "-")
}
