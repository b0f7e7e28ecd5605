package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// TestKubernetesPathKeepsTheRules drives `disco dev` through its two kubeconfigs, as a
// person with kubectl would: the admin (system:masters) and kubeconfig-user (disco-editor).
// Neither can move a claim, forge one or loosen governance outside the rules (issue 14);
// a ClaimPromotion is decided like a REST promotion and ledgered with its author.
func TestKubernetesPathKeepsTheRules(t *testing.T) {
	p := startDev(t, t.TempDir(), freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	ctx := context.Background()

	pid := a.must(201, "POST", "/projects", map[string]any{"name": "guarded"})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 10000, "max_runs": 2}})["id"].(string)
	did := a.readyDataset(pid, "quadratic", quadraticCSV(240))
	rid := a.must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}}})["id"].(string)
	runPath := "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
	a.runEnded(runPath, 3*time.Minute)
	best := a.must(200, "GET", runPath+"/results", nil)["summary"].(map[string]any)["best_claim_id"].(string)

	creds := p.creds
	admin, user := kubeClient(t, creds.Kubeconfig), kubeClient(t, creds.KubeconfigUser)
	ns := creds.Namespace
	claimKey := client.ObjectKey{Namespace: ns, Name: ids.ToName(best)}
	claim := &discov1.Claim{}
	if err := user.Get(ctx, claimKey, claim); err != nil {
		t.Fatalf("the editor cannot read claims: %v", err)
	}

	for who, c := range map[string]client.Client{"admin": admin, "editor": user} {
		flip := fmt.Sprintf(`{"spec":{"negativeControlsPassed":%t}}`, !claim.Spec.NegativeControlsPassed)
		for _, patch := range []string{`{"spec":{"tier":"publish"}}`, flip, `{"spec":{"expression":"x"}}`} {
			err := c.Patch(ctx, claim.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)))
			if !apierrors.IsForbidden(err) {
				t.Errorf("%s patch %s: want Forbidden, got %v", who, patch, err)
			}
		}
		forged := &discov1.Claim{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Claim)), Namespace: ns}, Spec: claim.Spec}
		forged.Spec.Tier = discov1.TierPublish
		if err := c.Create(ctx, forged); !apierrors.IsForbidden(err) {
			t.Errorf("%s creates a claim: want Forbidden, got %v", who, err)
		}
	}
	project := &discov1.Project{}
	if err := user.Get(ctx, client.ObjectKey{Namespace: ns, Name: ids.ToName(pid)}, project); err != nil {
		t.Fatal(err)
	}
	err := user.Patch(ctx, project, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"settings":{"governance":{"promotionCeiling":"publish"}}}}`)))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "projects/governance") {
		t.Errorf("editor loosens governance: %v", err)
	}
	// The editor submits runs, within the budget: the campaign allows 2 and has 1.
	run := func() *discov1.Run {
		return &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Run)), Namespace: ns},
			Spec: discov1.RunSpec{ProjectID: pid, CampaignID: cid, Mode: discov1.ModeSymbolic, DatasetID: did, Parameters: discov1.RunParameters{TargetVariables: []string{"y"}}}}
	}
	if err := user.Create(ctx, run()); err != nil {
		t.Fatalf("editor submits a run: %v", err)
	}
	if err := user.Create(ctx, run()); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "max_runs") {
		t.Errorf("editor's run over max_runs: %v", err)
	}

	// Promotion through the governed path: above the ceiling is denied, validate approved.
	for _, target := range []discov1.Tier{discov1.TierPublish, discov1.TierValidate} {
		pr := &discov1.ClaimPromotion{ObjectMeta: metav1.ObjectMeta{Name: "to-" + string(target), Namespace: ns},
			Spec: discov1.ClaimPromotionSpec{ClaimName: claimKey.Name, TargetTier: target, Rationale: "kubectl"}}
		if err := user.Create(ctx, pr.DeepCopy()); !apierrors.IsForbidden(err) {
			t.Errorf("editor asks for a promotion: want Forbidden, got %v", err)
		}
		if err := admin.Create(ctx, pr); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "promotion decided", func() bool {
			return admin.Get(ctx, client.ObjectKeyFromObject(pr), pr) == nil && pr.Status.Phase != ""
		})
		want := discov1.ClaimPromotionApproved
		if target == discov1.TierPublish {
			want = discov1.ClaimPromotionDenied
		}
		if pr.Status.Phase != want {
			t.Errorf("promotion to %s: %s %s", target, pr.Status.Phase, pr.Status.Message)
		}
	}
	got := a.must(200, "GET", "/projects/"+pid+"/claims/"+best, nil)
	if got["tier"] != "validate" {
		t.Errorf("claim tier after the kubectl promotion = %v", got["tier"])
	}
	entries := a.must(200, "GET", "/projects/"+pid+"/ledger?claim_id="+best+"&limit=100", nil)["data"].([]any)
	byKubectl := 0
	for _, e := range entries {
		if e := e.(map[string]any); e["event_type"] == "claim_promoted" && e["actor"] == "kubernetes:disco-admin" {
			byKubectl++
		}
	}
	if byKubectl != 1 {
		t.Errorf("ledger of the claim has %d claim_promoted entries by kubernetes:disco-admin: %v", byKubectl, entries)
	}
	if v := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil); v["valid"] != true {
		t.Errorf("ledger verify = %v", v)
	}
}
