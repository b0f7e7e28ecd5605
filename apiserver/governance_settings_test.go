package apiserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// governanceOfResponse returns settings.governance of a project answer.
func governanceOfResponse(t *testing.T, r *response) map[string]any {
	t.Helper()
	st, _ := r.JSON["settings"].(map[string]any)
	g, _ := st["governance"].(map[string]any)
	if g == nil {
		t.Fatalf("no settings.governance in %s", r.Raw)
	}
	return g
}

// policyEntries returns the project's policy_changed ledger entries, oldest first.
func policyEntries(t *testing.T, pid string) []map[string]any {
	t.Helper()
	r := call(t, "GET", "/v1/projects/"+pid+"/ledger?limit=100", env.adminA, nil).expect(t, 200)
	var out []map[string]any
	for _, it := range r.JSON["data"].([]any) {
		if e := it.(map[string]any); e["event_type"] == "policy_changed" {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["tree_index"].(float64) - b["tree_index"].(float64)) })
	return out
}

func TestGovernanceSettingsNeedTheirOwnScope(t *testing.T) {
	writer := newKey(t, env.tenantA, []string{auth.ProjectsRead, auth.ProjectsWrite})
	insufficient := func(r *response) {
		t.Helper()
		r.expect(t, 403, "insufficient_scope")
		if r.errDetails()["required_scope"] != auth.GovernanceWrite {
			t.Fatalf("required_scope: %s", r.Raw)
		}
	}

	// Creating: the defaults, spelled out or not, need nothing more; anything else does.
	insufficient(call(t, "POST", "/v1/projects", writer, map[string]any{"name": "g", "settings": map[string]any{
		"governance": map[string]any{"promotion_ceiling": "publish"}}}))
	insufficient(call(t, "POST", "/v1/projects", writer, map[string]any{"name": "g", "settings": map[string]any{
		"governance": map[string]any{"truth_dial_threshold": 0}}}))
	pid := mustProject(t, writer, map[string]any{"name": "g", "settings": map[string]any{"default_mode": "causal",
		"governance": map[string]any{"promotion_ceiling": "validate", "truth_dial_threshold": 0.7, "require_negative_controls": true}}})

	// Patching: every governance rule is refused, the rest of the project is not.
	for _, g := range []map[string]any{
		{"promotion_ceiling": "publish"}, {"truth_dial_threshold": 0}, {"require_negative_controls": false},
	} {
		insufficient(call(t, "PATCH", "/v1/projects/"+pid, writer, map[string]any{"settings": map[string]any{"governance": g}}))
	}
	insufficient(call(t, "PATCH", "/v1/projects/"+pid, writer, map[string]any{"description": "x",
		"settings": map[string]any{"governance": map[string]any{"truth_dial_threshold": 0.1}}}))
	got := call(t, "GET", "/v1/projects/"+pid, writer, nil).expect(t, 200)
	if g := governanceOfResponse(t, got); g["promotion_ceiling"] != "validate" || g["truth_dial_threshold"] != 0.7 ||
		g["require_negative_controls"] != true || got.str("description") != "" {
		t.Fatalf("a refused patch changed the project: %s", got.Raw)
	}
	call(t, "PATCH", "/v1/projects/"+pid, writer, map[string]any{"description": "ok", "name": "g2"}).expect(t, 200)
	// Restating the current governance changes nothing, so it needs nothing.
	call(t, "PATCH", "/v1/projects/"+pid, writer, map[string]any{"settings": map[string]any{"default_mode": "causal",
		"governance": map[string]any{"promotion_ceiling": "validate"}}}).expect(t, 200)

	// Campaigns: any governance rule of their own needs the scope.
	for _, g := range []map[string]any{
		{"promotion_ceiling": "publish"}, {"require_negative_controls": false}, {"auto_promote_to": "explore"},
	} {
		insufficient(call(t, "POST", "/v1/projects/"+pid+"/campaigns", writer, map[string]any{"name": "c",
			"budget": map[string]any{"compute_units": 10, "max_runs": 1}, "governance": g}))
	}
	mustCampaign(t, writer, pid, nil, nil)

	// With governance:write the same changes go through.
	governor := newKey(t, env.tenantA, []string{auth.ProjectsRead, auth.ProjectsWrite, auth.GovernanceWrite})
	p := call(t, "PATCH", "/v1/projects/"+pid, governor, map[string]any{"settings": map[string]any{
		"governance": map[string]any{"promotion_ceiling": "publish", "truth_dial_threshold": 0.2, "require_negative_controls": false}}}).expect(t, 200)
	if g := governanceOfResponse(t, p); g["promotion_ceiling"] != "publish" || g["truth_dial_threshold"] != 0.2 || g["require_negative_controls"] != false {
		t.Fatalf("patched: %s", p.Raw)
	}
	mustCampaign(t, governor, pid, nil, map[string]any{"promotion_ceiling": "validate", "auto_promote_to": "explore"})
	mustProject(t, governor, map[string]any{"name": "g3", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
}

func TestGovernanceChangesAreLedgered(t *testing.T) {
	pid := mustProject(t, env.adminA, map[string]any{"name": "ledgered", "settings": map[string]any{
		"governance": map[string]any{"promotion_ceiling": "publish"}}})
	entries := policyEntries(t, pid)
	if len(entries) != 1 {
		t.Fatalf("after create: %d policy_changed entries, want 1", len(entries))
	}
	d := entries[0]["details"].(map[string]any)
	if d["resource"] != "project" || d["project_id"] != pid ||
		d["before"].(map[string]any)["promotion_ceiling"] != "validate" || d["after"].(map[string]any)["promotion_ceiling"] != "publish" ||
		fmt.Sprint(d["changed"]) != "[promotion_ceiling]" || !strings.HasPrefix(entries[0]["actor"].(string), "key_") {
		t.Fatalf("create entry: %v", entries[0])
	}

	// A change of the rules is ledgered with before and after; other edits are not.
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "no policy here"}).expect(t, 200)
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"settings": map[string]any{"governance": map[string]any{
		"truth_dial_threshold": 0, "require_negative_controls": false}}}).expect(t, 200)
	entries = policyEntries(t, pid)
	if len(entries) != 2 {
		t.Fatalf("after patches: %d policy_changed entries, want 2", len(entries))
	}
	d = entries[1]["details"].(map[string]any)
	before, after := d["before"].(map[string]any), d["after"].(map[string]any)
	if before["truth_dial_threshold"] != 0.7 || before["require_negative_controls"] != true || before["promotion_ceiling"] != "publish" ||
		after["truth_dial_threshold"] != 0.0 || after["require_negative_controls"] != false || after["promotion_ceiling"] != "publish" ||
		fmt.Sprint(d["changed"]) != "[require_negative_controls truth_dial_threshold]" {
		t.Fatalf("patch entry: %v", d)
	}

	// A campaign's own rules are ledgered in its project's ledger.
	cid := mustCampaign(t, env.adminA, pid, nil, map[string]any{"promotion_ceiling": "validate", "require_negative_controls": true})
	mustCampaign(t, env.adminA, pid, nil, nil)
	entries = policyEntries(t, pid)
	if len(entries) != 3 {
		t.Fatalf("after campaigns: %d policy_changed entries, want 3", len(entries))
	}
	d = entries[2]["details"].(map[string]any)
	if d["resource"] != "campaign" || d["campaign_id"] != cid || d["before"].(map[string]any)["promotion_ceiling"] != nil ||
		d["after"].(map[string]any)["promotion_ceiling"] != "validate" || d["after"].(map[string]any)["require_negative_controls"] != true ||
		fmt.Sprint(d["changed"]) != "[promotion_ceiling require_negative_controls]" {
		t.Fatalf("campaign entry: %v", d)
	}
	call(t, "GET", "/v1/projects/"+pid+"/ledger/verify", env.adminA, nil).expect(t, 200)
}

// TestCampaignCannotSwitchOffProjectControls: the effective rule is the stricter of
// project and campaign, so a campaign that does not require negative controls does not
// lift its project's requirement.
func TestCampaignCannotSwitchOffProjectControls(t *testing.T) {
	pid := mustProject(t, env.adminA, map[string]any{"name": "strict", "settings": map[string]any{"governance": map[string]any{
		"promotion_ceiling": "publish", "truth_dial_threshold": 0.5, "require_negative_controls": true}}})
	cid := mustCampaign(t, env.adminA, pid, nil, map[string]any{"require_negative_controls": false})
	failed := makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimLaw, 0.95, false)
	r := call(t, "POST", "/v1/projects/"+pid+"/claims/"+failed+"/promote", env.adminA,
		map[string]any{"target_tier": "validate", "rationale": "loosened by the campaign"}).expect(t, 403, "negative_controls_required")
	if r.errDetails()["constraint"] != "negative_controls" {
		t.Fatalf("refusal: %s", r.Raw)
	}
	// And the other way round: a campaign can require what its project does not.
	loose := mustProject(t, env.adminA, map[string]any{"name": "loose", "settings": map[string]any{"governance": map[string]any{
		"promotion_ceiling": "publish", "truth_dial_threshold": 0.5, "require_negative_controls": false}}})
	strictCamp := mustCampaign(t, env.adminA, loose, nil, map[string]any{"require_negative_controls": true})
	failed = makeClaim(t, loose, strictCamp, ids.New(ids.Run), discov1.ClaimLaw, 0.95, false)
	call(t, "POST", "/v1/projects/"+loose+"/claims/"+failed+"/promote", env.adminA,
		map[string]any{"target_tier": "validate", "rationale": "r"}).expect(t, 403, "negative_controls_required")
	looseCamp := mustCampaign(t, env.adminA, loose, nil, nil)
	failed = makeClaim(t, loose, looseCamp, ids.New(ids.Run), discov1.ClaimLaw, 0.95, false)
	call(t, "POST", "/v1/projects/"+loose+"/claims/"+failed+"/promote", env.adminA,
		map[string]any{"target_tier": "validate", "rationale": "r"}).expect(t, 200)
}

// racingServer is a second facade over the same control plane and store whose client
// lets touch write the project (as a controller would) just before each of the
// facade's project updates.
func racingServer(t *testing.T, touch func(ctx context.Context, p *discov1.Project)) (url string, updates *atomic.Int32) {
	t.Helper()
	updates = &atomic.Int32{}
	c := interceptor.NewClient(noWatch{env.client}, interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if p, ok := obj.(*discov1.Project); ok {
				updates.Add(1)
				touch(ctx, p)
			}
			return c.Update(ctx, obj, opts...)
		},
	})
	return replicaWith(t, func(o *Options) { o.Client = c }), updates
}

// noWatch lets the interceptor wrap a client that does not watch; the facade never does.
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("watch is not used by the facade")
}

// controllerWrite changes the project behind the facade's back, as a controller does.
func controllerWrite(ctx context.Context, t *testing.T, name string) {
	var p discov1.Project
	if err := env.direct.Get(ctx, client.ObjectKey{Namespace: nsA(), Name: name}, &p); err != nil {
		t.Error(err)
		return
	}
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations["test.disco.dev/touched"] = fmt.Sprint(len(p.Annotations))
	if err := env.direct.Update(ctx, &p); err != nil {
		t.Error(err)
	}
}

func TestPatchSurvivesAControllerWrite(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	name := ids.ToName(pid)
	var race atomic.Bool
	url, updates := racingServer(t, func(ctx context.Context, p *discov1.Project) {
		if p.Name == name && race.CompareAndSwap(true, false) {
			controllerWrite(ctx, t, name)
		}
	})

	// Without a precondition the patch is applied to the fresh object.
	race.Store(true)
	r := call(t, "PATCH", url+"/projects/"+pid, env.adminA, map[string]any{"description": "after the race"}).expect(t, 200)
	if r.str("description") != "after the race" || updates.Load() != 2 {
		t.Fatalf("patch: %d updates, %s", updates.Load(), r.Raw)
	}
	var stored discov1.Project
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: name}, &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Annotations["test.disco.dev/touched"] == "" || stored.Spec.Description != "after the race" {
		t.Fatalf("the controller's write or the patch was lost: %+v", stored.ObjectMeta.Annotations)
	}
	if want := `"` + stored.ResourceVersion + `"`; r.Header.Get("ETag") != want {
		t.Fatalf("ETag %q, want %q", r.Header.Get("ETag"), want)
	}

	// With If-Match naming the version read, the same race is the client's 412.
	etag := r.Header.Get("ETag")
	race.Store(true)
	r = call(t, "PATCH", url+"/projects/"+pid, env.adminA, map[string]any{"description": "lost"}, "If-Match", etag)
	checkEnvelope(t, r, 412, "precondition_failed")
}

// TestUnledgeredGovernanceDoesNotStand: when its policy_changed entry cannot be written,
// a governance setting is taken back: a created project or campaign is deleted again, a
// patched project gets its former governance back, and the client is told 500.
func TestUnledgeredGovernanceDoesNotStand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := ledger.LoadOrCreateKey(filepath.Join(dir, "ledger.key"))
	if err != nil {
		t.Fatal(err)
	}
	broken, err := ledger.New(st, key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	_ = st.Close() // every append fails from now on
	url := replicaWith(t, func(o *Options) { o.Ledger = broken })
	publish := map[string]any{"promotion_ceiling": "publish"}

	// Without a governance change nothing is ledgered, so the broken ledger is no obstacle.
	pid := call(t, "POST", url+"/projects", env.adminA, map[string]any{"name": "plain"}).expect(t, 201).str("id")

	name := "unledgered " + ids.New(ids.Project)
	checkEnvelope(t, call(t, "POST", url+"/projects", env.adminA, map[string]any{"name": name,
		"settings": map[string]any{"governance": publish}}), 500, "internal_error")
	checkEnvelope(t, call(t, "POST", url+"/projects/"+pid+"/campaigns", env.adminA, map[string]any{"name": name,
		"budget": map[string]any{"compute_units": 10, "max_runs": 1}, "governance": publish}), 500, "internal_error")
	var projects discov1.ProjectList
	var campaigns discov1.CampaignList
	if err := env.direct.List(ctx, &projects, client.InNamespace(nsA())); err != nil {
		t.Fatal(err)
	}
	if err := env.direct.List(ctx, &campaigns, client.InNamespace(nsA())); err != nil {
		t.Fatal(err)
	}
	for _, p := range projects.Items {
		if p.Spec.DisplayName == name {
			t.Fatalf("the project whose governance was not ledgered stands: %s", p.Name)
		}
	}
	for _, c := range campaigns.Items {
		if c.Spec.DisplayName == name {
			t.Fatalf("the campaign whose governance was not ledgered stands: %s", c.Name)
		}
	}

	checkEnvelope(t, call(t, "PATCH", url+"/projects/"+pid, env.adminA, map[string]any{"description": "with it",
		"settings": map[string]any{"governance": publish}}), 500, "internal_error")
	var stored discov1.Project
	if err := env.direct.Get(ctx, client.ObjectKey{Namespace: nsA(), Name: ids.ToName(pid)}, &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Spec.Settings.Governance.PromotionCeiling == discov1.TierPublish {
		t.Fatalf("the unledgered governance change stands: %+v", stored.Spec.Settings.Governance)
	}
}

func TestETagAndIfMatch(t *testing.T) {
	created := call(t, "POST", "/v1/projects", env.adminA, map[string]any{"name": "etag"}).expect(t, 201)
	pid := created.str("id")
	var stored discov1.Project
	get := func() {
		t.Helper()
		if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: ids.ToName(pid)}, &stored); err != nil {
			t.Fatal(err)
		}
	}
	get()
	tag := created.Header.Get("ETag")
	if tag != `"`+stored.ResourceVersion+`"` {
		t.Fatalf("POST ETag %q, resource version %s", tag, stored.ResourceVersion)
	}
	eventually(t, func() error {
		if g := call(t, "GET", "/v1/projects/"+pid, env.adminA, nil).expect(t, 200).Header.Get("ETag"); g != tag {
			return fmt.Errorf("GET ETag %q, want %q", g, tag)
		}
		return nil
	})

	// A matching tag updates and yields the next one.
	p := call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "v2"}, "If-Match", tag).expect(t, 200)
	next := p.Header.Get("ETag")
	get()
	if next == tag || next != `"`+stored.ResourceVersion+`"` {
		t.Fatalf("PATCH ETag %q (before %q, stored %s)", next, tag, stored.ResourceVersion)
	}
	// The old tag, a weak tag and an unknown one are stale: 412 with the current tag.
	for _, stale := range []string{tag, "W/" + next, `"1", ` + tag} {
		r := call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "stale"}, "If-Match", stale)
		checkEnvelope(t, r, 412, "precondition_failed")
		if r.errDetails()["etag"] != next {
			t.Fatalf("If-Match %s: details %v, want etag %s", stale, r.errDetails(), next)
		}
	}
	// A write by someone else makes the client's tag stale too.
	controllerWrite(context.Background(), t, ids.ToName(pid))
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "stale"}, "If-Match", next).expect(t, 412, "precondition_failed")
	get()
	if stored.Spec.Description != "v2" {
		t.Fatalf("a refused patch was applied: %q", stored.Spec.Description)
	}
	// A list holding the current tag, and "*", match.
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "v3"}, "If-Match", `"1", "`+stored.ResourceVersion+`"`).expect(t, 200)
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "v4"}, "If-Match", "*").expect(t, 200)
	for _, bad := range []string{"abc", `"unterminated`, `"a" "b"`} {
		call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"description": "x"}, "If-Match", bad).expect(t, 400, "validation_error")
	}

	// Campaigns carry their tag on POST and GET.
	c := call(t, "POST", "/v1/projects/"+pid+"/campaigns", env.adminA, map[string]any{"name": "c",
		"budget": map[string]any{"compute_units": 10, "max_runs": 1}}).expect(t, 201)
	var camp discov1.Campaign
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: nsA(), Name: ids.ToName(c.str("id"))}, &camp); err != nil {
		t.Fatal(err)
	}
	if c.Header.Get("ETag") != `"`+camp.ResourceVersion+`"` {
		t.Fatalf("campaign POST ETag %q, resource version %s", c.Header.Get("ETag"), camp.ResourceVersion)
	}
	if g := call(t, "GET", "/v1/projects/"+pid+"/campaigns/"+c.str("id"), env.adminA, nil).expect(t, 200); g.Header.Get("ETag") == "" {
		t.Fatal("campaign GET has no ETag")
	}
}

// TestIdempotencyReplaysOnlyToItsPrincipal: a stored response is the answer to one
// principal's authorised request; another credential sending the same key and body runs
// its own request and meets its own authorisation.
func TestIdempotencyReplaysOnlyToItsPrincipal(t *testing.T) {
	pid := mustProject(t, env.adminA, map[string]any{"name": "idem", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	clm := makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimLaw, 0.95, true)
	path := "/v1/projects/" + pid + "/claims/" + clm + "/promote"
	body := map[string]any{"target_tier": "validate", "rationale": "holds"}
	first := call(t, "POST", path, env.adminA, body, "Idempotency-Key", "promote-1").expect(t, 200)

	// The same principal gets its answer again.
	again := call(t, "POST", path, env.adminA, body, "Idempotency-Key", "promote-1").expect(t, 200)
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Raw) != string(first.Raw) {
		t.Fatalf("replay to the same principal: %s", again.Raw)
	}

	// A read-only key, a key restricted to another project and another admin key do not.
	readOnly := newKey(t, env.tenantA, []string{auth.ClaimsRead, auth.ProjectsRead})
	r := call(t, "POST", path, readOnly, body, "Idempotency-Key", "promote-1")
	checkEnvelope(t, r, 403, "insufficient_scope")
	restricted := newKey(t, env.tenantA, nil, mustProject(t, env.adminA, nil))
	r = call(t, "POST", path, restricted, body, "Idempotency-Key", "promote-1")
	checkEnvelope(t, r, 404, "not_found")
	otherAdmin := newKey(t, env.tenantA, nil)
	r = call(t, "POST", path, otherAdmin, body, "Idempotency-Key", "promote-1")
	if r.Header.Get("Idempotent-Replayed") != "" || r.Status != 409 {
		t.Fatalf("another admin key got %d (replayed %q): %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Raw)
	}
	// Each principal's own answer is what it gets again.
	call(t, "POST", path, readOnly, body, "Idempotency-Key", "promote-1").expect(t, 403, "insufficient_scope")
	call(t, "POST", path, restricted, body, "Idempotency-Key", "promote-1").expect(t, 404, "not_found")
	// The same key with fewer scopes is another grant: no replay either.
	narrower := newKey(t, env.tenantA, slices.DeleteFunc(slices.Clone(auth.All), func(s string) bool { return s == auth.ClaimsWrite }))
	checkEnvelope(t, call(t, "POST", path, narrower, body, "Idempotency-Key", "promote-1"), 403, "insufficient_scope")
}

func TestArchivedProjectAcceptsNoWork(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"status": "archived"}).expect(t, 200)
	for _, r := range []*response{
		call(t, "POST", "/v1/projects/"+pid+"/campaigns", env.adminA, map[string]any{"name": "late", "budget": map[string]any{"compute_units": 10, "max_runs": 1}}),
		call(t, "POST", "/v1/projects/"+pid+"/campaigns/"+cid+"/runs", env.adminA, map[string]any{"dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"}),
	} {
		checkEnvelope(t, r, 409, "conflict")
		if d := r.errDetails(); d["status"] != "archived" || d["project_id"] != pid {
			t.Fatalf("details %v", d)
		}
	}
	// Reactivated, it takes work again.
	call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"status": "active"}).expect(t, 200)
	mustCampaign(t, env.adminA, pid, nil, nil)
	r := call(t, "POST", "/v1/projects/"+pid+"/campaigns/"+cid+"/runs", env.adminA, map[string]any{"dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	r.expect(t, 404, "not_found") // past the archive check: the dataset does not exist
}

// invalidField checks that r is a validation error and returns its first details.fields
// entry's field.
func invalidField(t *testing.T, r *response) string {
	t.Helper()
	checkEnvelope(t, r, 400, "validation_error")
	fs, _ := r.errDetails()["fields"].([]any)
	if len(fs) == 0 {
		t.Fatalf("no details.fields: %s", r.Raw)
	}
	f, _ := fs[0].(map[string]any)["field"].(string)
	return f
}

func TestNamesRefuseControlAndBidiCharacters(t *testing.T) {
	for _, name := range []string{"a\x00b", "\u202Egnp.exe", "x\u2066y", "\u200Fname", "tab\there", "line\nbreak", "del\x7f", "c1\u0085"} {
		if f := invalidField(t, call(t, "POST", "/v1/projects", env.adminA, map[string]any{"name": name})); f != "body.name" {
			t.Fatalf("name %q: field %q", name, f)
		}
	}
	if f := invalidField(t, call(t, "POST", "/v1/projects", env.adminA, map[string]any{"name": "ok", "description": "bell\x07"})); f != "body.description" {
		t.Fatalf("description field %q", f)
	}
	// Descriptions may span lines; names may be any visible script.
	pid := mustProject(t, env.adminA, map[string]any{"name": "Überprüfung 検証 تحقق", "description": "line one\nline two\ttabbed\r\n"})
	if f := invalidField(t, call(t, "PATCH", "/v1/projects/"+pid, env.adminA, map[string]any{"name": "evil\u202E"})); f != "body.name" {
		t.Fatalf("patch field %q", f)
	}
	if f := invalidField(t, call(t, "POST", "/v1/projects/"+pid+"/campaigns", env.adminA, map[string]any{"name": "c\x00",
		"budget": map[string]any{"compute_units": 10, "max_runs": 1}})); f != "body.name" {
		t.Fatalf("campaign field %q", f)
	}
}

func TestTextProblem(t *testing.T) {
	for _, c := range []struct {
		s         string
		multiline bool
		bad       bool
	}{
		{"plain", false, false},
		{"Überprüfung 検証 تحقق 🙂", false, false},
		{"a\nb", true, false},
		{"a\r\n\tb", true, false},
		{"a\nb", false, true},
		{"a\x00b", true, true},
		{"\x1b[31m", true, true},
		{"\u0085", true, true},
		{"\u061C", false, true},
		{"\u200E", false, true},
		{"\u202A", false, true},
		{"\u202E", true, true},
		{"\u2069", false, true},
		{"\xff\xfe", false, true},
		{"\u200D", false, false}, // the zero-width joiner is part of emoji and scripts, not a bidi control
	} {
		if got := transport.TextProblem(c.s, c.multiline) != ""; got != c.bad {
			t.Errorf("transport.TextProblem(%q, %v) = %q", c.s, c.multiline, transport.TextProblem(c.s, c.multiline))
		}
	}
}

// TestCredentialAndDatasetNamesRefuseControlCharacters: API keys, OAuth clients and
// datasets use the same rule for their names as projects and campaigns.
func TestCredentialAndDatasetNamesRefuseControlCharacters(t *testing.T) {
	if f := invalidField(t, call(t, "POST", "/v1/api-keys", env.adminA, map[string]any{"name": "ci\u202Eyek"})); f != "body.name" {
		t.Fatalf("api key: field %q", f)
	}
	if f := invalidField(t, call(t, "POST", "/v1/oauth-clients", env.adminA, map[string]any{"name": "app\x00",
		"redirect_uris": []string{"http://127.0.0.1:9/cb"}})); f != "body.name" {
		t.Fatalf("oauth client: field %q", f)
	}
	pid := mustProject(t, env.adminA, nil)
	if f := invalidField(t, upload(t, env.adminA, pid, "d.csv", csvData(5), `{"name": "d\u2067", "format": "csv"}`)); f != "body.metadata.name" {
		t.Fatalf("dataset: field %q", f)
	}
	call(t, "POST", "/v1/api-keys", env.adminA, map[string]any{"name": "ci key ✓"}).expect(t, 201)
	upload(t, env.adminA, pid, "d.csv", csvData(5), `{"name": "Daten ✓", "format": "csv"}`).expect(t, 201)
}
