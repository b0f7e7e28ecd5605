package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
)

// kubectlBinary finds a real kubectl: $DISCO_KUBECTL, or bin/kubectl as `make kubectl` links
// it. `make test` sets DISCO_REQUIRE_KUBECTL=1 (and builds kubectl first), so there the test
// cannot skip; a bare `go test ./...` without kubectl skips and says how to get it.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	path := os.Getenv("DISCO_KUBECTL")
	if path == "" {
		path, _ = filepath.Abs(filepath.Join("..", "..", "bin", "kubectl"))
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("DISCO_REQUIRE_KUBECTL") == "1" {
			t.Fatalf("no kubectl at %s (run `make kubectl`): %v", path, err)
		}
		t.Skipf("no kubectl at %s; run `make kubectl` (make test does)", path)
	}
	return path
}

// kubectl runs the real kubectl binary as one person (one kubeconfig), as a user types it.
type kubectl struct {
	t          *testing.T
	bin        string
	kubeconfig string
	namespace  string
}

// run returns stdout, stderr and whether kubectl exited 0; stdin feeds `-f -`.
func (k kubectl) run(stdin string, args ...string) (string, string, bool) {
	k.t.Helper()
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig, "-n", k.namespace}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	return strings.TrimSpace(out.String()), strings.TrimSpace(errb.String()), err == nil
}

func (k kubectl) must(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, ok := k.run(stdin, args...)
	if !ok {
		k.t.Fatalf("kubectl %s: %s", strings.Join(args, " "), errOut)
	}
	return out
}

// refused asserts kubectl exits non-zero with every one of the words in its error.
func (k kubectl) refused(stdin string, words []string, args ...string) {
	k.t.Helper()
	out, errOut, ok := k.run(stdin, args...)
	if ok {
		k.t.Errorf("kubectl %s succeeded (%s); want refused", strings.Join(args, " "), out)
		return
	}
	for _, w := range words {
		if !strings.Contains(errOut, w) {
			k.t.Errorf("kubectl %s: error %q lacks %q", strings.Join(args, " "), errOut, w)
		}
	}
}

// TestKubectlAsTheREADMEShows types the README's "kubectl and GitOps" section with a real
// kubectl against `disco dev`: a plain Run manifest from the editor runs to Succeeded, claims
// filter by tier, the editor can neither move a claim nor ask for a promotion, and the admin's
// ClaimPromotions are decided under governance (issue 14: the kubectl path is tested with a
// real kubectl).
func TestKubectlAsTheREADMEShows(t *testing.T) {
	bin := kubectlBinary(t)
	p := startDev(t, t.TempDir(), freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	pid := a.must(201, "POST", "/projects", map[string]any{"name": "by-kubectl"})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 10000, "max_runs": 1}})["id"].(string)
	did := a.readyDataset(pid, "quadratic", quadraticCSV(240))

	ns := p.creds.Namespace
	admin := kubectl{t: t, bin: bin, kubeconfig: p.creds.Kubeconfig, namespace: ns}
	editor := kubectl{t: t, bin: bin, kubeconfig: p.creds.KubeconfigUser, namespace: ns}

	if got := editor.must("", "auth", "can-i", "create", "runs.discovery.disco.dev"); got != "yes" {
		t.Errorf("editor can-i create runs = %q", got)
	}
	for _, verb := range []string{"create claimpromotions.discovery.disco.dev", "patch claims.discovery.disco.dev", "update projects.discovery.disco.dev --subresource=governance"} {
		out, _, _ := editor.run("", append([]string{"auth", "can-i"}, strings.Fields(verb)...)...)
		if out != "no" {
			t.Errorf("editor can-i %s = %q, want no", verb, out)
		}
	}

	// A plain Run manifest, as GitOps would carry it: the editor creates it, kubectl waits.
	runName := ids.ToName(ids.New(ids.Run))
	manifest := `apiVersion: discovery.disco.dev/v1alpha1
kind: Run
metadata:
  name: ` + runName + `
spec:
  projectID: ` + pid + `
  campaignID: ` + cid + `
  datasetID: ` + did + `
  mode: symbolic
  parameters:
    targetVariables: ["y"]
`
	// A careless manifest: YAML 1.1 reads an unquoted y as true. The API server's schema
	// validation names the field, not a webhook's decoder.
	editor.refused(strings.Replace(manifest, `["y"]`, `[y]`, 1), []string{"spec.parameters.targetVariables[0]", "string"}, "create", "-f", "-")
	if out := editor.must(manifest, "create", "-f", "-"); !strings.Contains(out, runName) {
		t.Errorf("create run said %q", out)
	}
	editor.must("", "wait", "--for=condition=Succeeded", "drun/"+runName, "--timeout=5m")
	if cols := editor.must("", "get", "drun", runName); !strings.Contains(cols, "completed") || !strings.Contains(cols, "symbolic") {
		t.Errorf("kubectl get drun shows:\n%s", cols)
	}
	// The campaign allows one run: a second manifest is refused at admission with the REST
	// constraint name.
	second := strings.Replace(manifest, runName, ids.ToName(ids.New(ids.Run)), 1)
	editor.refused(second, []string{"budget_exhausted", "max_runs"}, "create", "-f", "-")

	best := editor.must("", "get", "drun", runName, "-o", "jsonpath={.status.summary.bestClaimID}")
	if best == "" {
		t.Fatal("the run names no best claim")
	}
	claim := ids.ToName(best)
	explore := editor.must("", "get", "clm", "--field-selector", "spec.tier=explore", "-o", "name")
	if !strings.Contains(explore, "claim.discovery.disco.dev/"+claim) {
		t.Errorf("get clm --field-selector spec.tier=explore lists:\n%s\nwant %s", explore, claim)
	}

	// The editor cannot move, rewrite or forge a claim, nor ask for a promotion.
	editor.refused("", []string{"forbidden"}, "patch", "clm", claim, "--type=merge", "-p", `{"spec":{"tier":"publish"}}`)
	editor.refused("", []string{"forbidden"}, "label", "clm", claim, "tier=publish")
	promotion := func(target string) string {
		return `apiVersion: discovery.disco.dev/v1alpha1
kind: ClaimPromotion
metadata: {generateName: promote-}
spec: {claimName: ` + claim + `, targetTier: ` + target + `, rationale: replicated twice}
`
	}
	editor.refused(promotion("validate"), []string{"forbidden"}, "create", "-f", "-")
	// Even the admin cannot patch the tier directly: only a ClaimPromotion moves it.
	admin.refused("", []string{"denied"}, "patch", "clm", claim, "--type=merge", "-p", `{"spec":{"tier":"validate"}}`)

	// The admin's promotions: above the default ceiling is Denied with the constraint,
	// validate is Approved, and the claim moves.
	phase := func(name string) (string, string) {
		var pr struct {
			Status struct{ Phase, Constraint string } `json:"status"`
		}
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			raw := admin.must("", "get", "clmpromo", name, "-o", "json")
			if err := json.Unmarshal([]byte(raw), &pr); err != nil {
				t.Fatal(err)
			}
			if pr.Status.Phase != "" {
				return pr.Status.Phase, pr.Status.Constraint
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("ClaimPromotion %s was not decided", name)
		return "", ""
	}
	created := func(target string) string {
		out := admin.must(promotion(target), "create", "-f", "-", "-o", "name")
		return strings.TrimPrefix(out, "claimpromotion.discovery.disco.dev/")
	}
	if ph, constraint := phase(created("publish")); ph != "Denied" || constraint == "" {
		t.Errorf("promotion to publish: phase %q constraint %q, want Denied with a constraint", ph, constraint)
	}
	if ph, _ := phase(created("validate")); ph != "Approved" {
		t.Errorf("promotion to validate: phase %q, want Approved", ph)
	}
	if tier := admin.must("", "get", "clm", claim, "-o", "jsonpath={.spec.tier}"); tier != "validate" {
		t.Errorf("claim tier after approval = %q", tier)
	}
	listed := admin.must("", "get", "clmpromo")
	for _, col := range []string{"PHASE", "CONSTRAINT", "Approved", "Denied"} {
		if !strings.Contains(listed, col) {
			t.Errorf("kubectl get clmpromo lacks %q:\n%s", col, listed)
		}
	}
	if v := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil); v["valid"] != true {
		t.Errorf("ledger verify = %v", v)
	}
}
