package listindex

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// spec mirrors apiserver's claimSort (claims.go); the facade passes claimSort itself.
var spec = pagination.Spec[*discov1.Claim]{
	Name: "claims",
	Fields: map[string]func(*discov1.Claim) pagination.Key{
		"created_at": func(c *discov1.Claim) pagination.Key { return pagination.Time(c.CreationTimestamp.Time) },
		"score":      func(c *discov1.Claim) pagination.Key { return pagination.Number(c.Spec.Score) },
		"tier":       func(c *discov1.Claim) pagination.Key { return pagination.Number(float64(c.Spec.Tier.Rank())) },
		"type":       func(c *discov1.Claim) pagination.Key { return pagination.String(string(c.Spec.Type)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(c *discov1.Claim) string { return c.Name },
}

var (
	base       = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	claimTypes = []discov1.ClaimType{discov1.ClaimLaw, discov1.ClaimCausal, discov1.ClaimConservation}
	tiers      = []discov1.Tier{discov1.TierExplore, discov1.TierValidate, discov1.TierPublish}
)

func claim(ns, project, name string, created time.Time, typ discov1.ClaimType, tier discov1.Tier, score float64, run, campaign string) *discov1.Claim {
	return &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(created), ResourceVersion: "1"},
		Spec:       discov1.ClaimSpec{ProjectID: project, Type: typ, Tier: tier, Score: score, RunID: run, CampaignID: campaign},
	}
}

// randomClaims makes n claims with many ties (one-second timestamps, few score values).
func randomClaims(r *rand.Rand, ns, project string, n int) []*discov1.Claim {
	out := make([]*discov1.Claim, n)
	for i := range out {
		out[i] = claim(ns, project, fmt.Sprintf("clm-%s-%05d", project, r.Intn(1<<20)*0+i),
			base.Add(time.Duration(r.Intn(n/3+1))*time.Second),
			claimTypes[r.Intn(3)], tiers[r.Intn(3)], float64(r.Intn(5))/4,
			fmt.Sprintf("run-%d", r.Intn(4)), fmt.Sprintf("cmp-%d", r.Intn(2)))
	}
	return out
}

func filterString(project string, m Match) string {
	return strings.Join([]string{project, m.RunID, m.CampaignID, m.Type, m.Tier}, "|")
}

func names(cs []*discov1.Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// TestMatchesPaginate walks every page of many queries through the index and through
// pagination.Paginate over the filtered slice: same items, totals, has_more and cursors.
func TestMatchesPaginate(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	x := New(spec)
	all := append(randomClaims(r, "t1", "p1", 300), randomClaims(r, "t1", "p2", 50)...)
	all = append(all, randomClaims(r, "t2", "p1", 40)...) // same project id, other namespace
	for _, c := range all {
		x.OnAdd(c, true)
	}
	codec := pagination.NewCodec([]byte("0123456789abcdef0123456789abcdef"))
	matches := []Match{{}, {Type: "law"}, {Tier: "publish"}, {Type: "causal", Tier: "validate"},
		{RunID: "run-1"}, {CampaignID: "cmp-0"}, {RunID: "run-2", Type: "law"}, {RunID: "run-3", CampaignID: "cmp-1", Tier: "explore"},
		{RunID: "nope"}, {Type: "law", Tier: "nope"}}
	for _, m := range matches {
		var want []*discov1.Claim
		for _, c := range all {
			if c.Namespace == "t1" && c.Spec.ProjectID == "p1" && m.matches(c) {
				want = append(want, c)
			}
		}
		for _, sortField := range []string{"", "created_at", "score", "tier", "type"} {
			for _, order := range []string{"", "asc", "desc"} {
				for _, limit := range []int{0, 1, 7, 100} {
					name := fmt.Sprintf("%+v/%s/%s/%d", m, sortField, order, limit)
					req := pagination.Request{Limit: limit, Sort: sortField, Order: order, Filter: filterString("p1", m)}
					seen := 0
					for pages := 0; ; pages++ {
						wp, werr := pagination.Paginate(codec, want, spec, req)
						gp, gerr := x.Paginate(codec, "t1", "p1", m, req)
						if (werr == nil) != (gerr == nil) {
							t.Fatalf("%s: errors differ: %v vs %v", name, werr, gerr)
						}
						if werr != nil {
							break
						}
						if fmt.Sprint(names(wp.Items)) != fmt.Sprint(names(gp.Items)) || wp.Total != gp.Total || wp.HasMore != gp.HasMore || wp.NextCursor != gp.NextCursor {
							t.Fatalf("%s page %d:\nwant %v total %d more %v %q\ngot  %v total %d more %v %q", name, pages,
								names(wp.Items), wp.Total, wp.HasMore, wp.NextCursor, names(gp.Items), gp.Total, gp.HasMore, gp.NextCursor)
						}
						seen += len(gp.Items)
						if !gp.HasMore {
							break
						}
						req.Cursor, req.Sort, req.Order = gp.NextCursor, "", ""
					}
					if seen != len(want) {
						t.Fatalf("%s: walked %d of %d", name, seen, len(want))
					}
				}
			}
		}
	}
}

func TestPaginateErrors(t *testing.T) {
	x := New(spec)
	codec := pagination.NewCodec([]byte("k"))
	for _, req := range []pagination.Request{{Limit: 101}, {Limit: -1}, {Sort: "summary"}, {Order: "up"}, {Cursor: "garbage"}} {
		_, werr := pagination.Paginate(codec, nil, spec, req)
		_, gerr := x.Paginate(codec, "t", "p", Match{}, req)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%+v: want %v, got %v", req, werr, gerr)
		}
	}
	// A cursor of another filter is refused.
	for i := 0; i < 3; i++ {
		x.Upsert(claim("t", "p", fmt.Sprint("c", i), base, "law", "explore", 0, "", ""))
	}
	p, err := x.Paginate(codec, "t", "p", Match{}, pagination.Request{Limit: 1, Filter: "a"})
	if err != nil || !p.HasMore {
		t.Fatal(p, err)
	}
	if _, err := x.Paginate(codec, "t", "p", Match{}, pagination.Request{Limit: 1, Filter: "b", Cursor: p.NextCursor}); err == nil || err.(*pagination.Error).Param != "cursor" {
		t.Fatal(err)
	}
	if _, _, _, err := x.Page("t", "p", Query{Sort: "summary"}); err == nil {
		t.Fatal("unknown sort accepted")
	}
}

func TestCursorStableWhileInserting(t *testing.T) {
	x := New(spec)
	x.MarkSynced()
	for i := 0; i < 50; i++ {
		x.Upsert(claim("t", "p", fmt.Sprintf("old-%02d", i), base.Add(time.Duration(i/2)*time.Second), "law", "explore", 0.5, "r", "c"))
	}
	var got []string
	var after *Key
	for round := 0; ; round++ {
		items, total, next, err := x.Page("t", "p", Query{Desc: true, After: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if total != 50+round*3 {
			t.Fatalf("round %d: total %d", round, total)
		}
		got = append(got, names(items)...)
		// New claims arrive between pages: newer (before the cursor in desc order, never on
		// a later page), and tied with the cursor's timestamp on either side of its id.
		for j := 0; j < 3; j++ {
			c := claim("t", "p", fmt.Sprintf("new-%d-%d", round, j), base.Add(time.Hour), "law", "explore", 0.5, "r", "c")
			if j == 1 && next != nil {
				c.CreationTimestamp = metav1.NewTime(base.Add(24 * time.Second)) // same second as some old ones; "new" > "old" so it sorts before them in desc
			}
			x.Upsert(c)
		}
		if next == nil {
			break
		}
		after = next
	}
	var old []string
	for _, n := range got {
		if strings.HasPrefix(n, "old-") {
			old = append(old, n)
		}
	}
	if len(old) != 50 {
		t.Fatalf("walked %d old claims (%v)", len(old), got)
	}
	want := append([]string(nil), old...)
	slices.Sort(want)
	slices.Reverse(want) // old names grow with their time
	if fmt.Sprint(old) != fmt.Sprint(want) {
		t.Fatalf("order %v", old)
	}
	dup := map[string]bool{}
	for _, n := range got {
		if dup[n] {
			t.Fatalf("%s twice", n)
		}
		dup[n] = true
	}
}

func TestUpdateDeleteAndCounts(t *testing.T) {
	x := New(spec)
	a := claim("t", "p", "a", base, "law", "explore", 0.9, "r1", "c1")
	b := claim("t", "p", "b", base.Add(time.Second), "causal", "explore", 0.1, "r1", "c1")
	c := claim("t", "p", "c", base.Add(2*time.Second), "law", "validate", 0.5, "r2", "c1")
	for _, o := range []*discov1.Claim{a, b, c} {
		x.OnAdd(o, false)
	}
	page := func(q Query) ([]string, int) {
		items, total, _, err := x.Page("t", "p", q)
		if err != nil {
			t.Fatal(err)
		}
		return names(items), total
	}
	expect := func(q Query, want string, wantTotal int) {
		t.Helper()
		got, total := page(q)
		if fmt.Sprint(got) != want || total != wantTotal {
			t.Fatalf("%+v: got %v/%d, want %s/%d", q, got, total, want, wantTotal)
		}
	}
	expect(Query{Desc: true}, "[c b a]", 3)
	expect(Query{Sort: "tier", Desc: true}, "[c b a]", 3)
	expect(Query{Sort: "score"}, "[b c a]", 3)
	expect(Query{Match: Match{Tier: "explore"}}, "[a b]", 2)
	expect(Query{Match: Match{Type: "law", Tier: "explore"}}, "[a]", 1)
	expect(Query{Match: Match{RunID: "r1", Type: "causal"}}, "[b]", 1)

	// Promote a: the tier order and tier partitions change, created_at order does not.
	a2 := a.DeepCopy()
	a2.Spec.Tier = "publish"
	a2.Status.PreviousTier = "explore"
	a2.ResourceVersion = "2"
	x.OnUpdate(a, a2)
	expect(Query{Desc: true}, "[c b a]", 3)
	expect(Query{Sort: "tier", Desc: true}, "[a c b]", 3)
	expect(Query{Match: Match{Tier: "explore"}}, "[b]", 1)
	expect(Query{Match: Match{Tier: "publish"}}, "[a]", 1)
	expect(Query{Match: Match{Type: "law", Tier: "explore"}}, "[]", 0)
	expect(Query{Match: Match{Type: "law", Tier: "publish"}}, "[a]", 1)
	if got, _, _, _ := x.Page("t", "p", Query{Match: Match{Tier: "publish"}}); got[0] != a2 {
		t.Fatal("update did not replace the object")
	}

	// A status-only update swaps the object in place.
	a3 := a2.DeepCopy()
	a3.Status.PromotedBy = "someone"
	a3.ResourceVersion = "3"
	x.OnUpdate(a2, a3)
	if got, _, _, _ := x.Page("t", "p", Query{Sort: "tier", Desc: true, Limit: 1}); got[0] != a3 {
		t.Fatal("status update not visible")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if !x.Await(ctx, "t", "a", "2") {
		t.Fatal("Await did not see the new version")
	}
	// A version the index has not reached is waited for, though it differs from the one held.
	ended, end := context.WithCancel(context.Background())
	end()
	if x.Await(ended, "t", "a", "4") {
		t.Fatal("Await took version 3 for a write that returned 4")
	}

	// Filter func: extra predicate, totals by scan.
	items, total, _, _ := x.Page("t", "p", Query{Filter: func(c *discov1.Claim) bool { return c.Spec.Score >= 0.5 }})
	if fmt.Sprint(names(items)) != "[a c]" || total != 2 {
		t.Fatal(names(items), total)
	}

	// Deletes, including a tombstone with and without its object.
	x.OnDelete(b)
	expect(Query{}, "[a c]", 2)
	expect(Query{Match: Match{Tier: "explore"}}, "[]", 0)
	x.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "t/c", Obj: c})
	x.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "t/a"})
	expect(Query{}, "[]", 0)
	if x.Len() != 0 || len(x.parts) != 0 || len(x.byName) != 0 {
		t.Fatalf("leftovers: %d parts", len(x.parts))
	}
	if !x.Await(ctx, "t", "a", "gone") {
		t.Fatal("Await gone")
	}
	x.OnDelete("not a claim") // ignored
}

type fakeInformer struct {
	cache.Informer // unused methods panic
	handler        toolscache.ResourceEventHandler
	synced         bool
}

func (f *fakeInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	f.handler = h
	return fakeReg{f}, nil
}

type fakeReg struct{ f *fakeInformer }

func (r fakeReg) HasSynced() bool                          { return r.f.synced }
func (r fakeReg) HasSyncedChecker() toolscache.DoneChecker { return nil }

func TestRegister(t *testing.T) {
	inf := &fakeInformer{}
	x := New(spec)
	if x.HasSynced() {
		t.Fatal("synced before registering")
	}
	if err := x.Register(context.Background(), registerOnly{inf}); err != nil {
		t.Fatal(err)
	}
	inf.handler.OnAdd(claim("t", "p", "a", base, "law", "explore", 0, "", ""), true)
	if x.HasSynced() {
		t.Fatal("synced early")
	}
	inf.synced = true
	if !x.HasSynced() || x.Count("t", "p", Match{}) != 1 {
		t.Fatal("not synced or not indexed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := x.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
}

// registerOnly hands out one fake informer.
type registerOnly struct{ inf *fakeInformer }

func (r registerOnly) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return r.inf, nil
}

// TestConcurrent exercises the lock under -race: writers add, promote and delete while
// readers page.
func TestConcurrent(t *testing.T) {
	x := New(spec)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < 2000; i++ {
				c := claim("t", "p", fmt.Sprintf("w%d-%d", w, r.Intn(300)), base.Add(time.Duration(r.Intn(100))*time.Second), claimTypes[r.Intn(3)], tiers[r.Intn(3)], r.Float64(), "r", "c")
				if r.Intn(5) == 0 {
					x.OnDelete(c)
				} else {
					x.OnAdd(c, false)
				}
			}
		}(w)
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sorts := []string{"created_at", "score", "tier", "type"}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var after *Key
				for {
					items, _, next, err := x.Page("t", "p", Query{Sort: sorts[i%4], Desc: i%2 == 0, After: after, Limit: 50, Match: Match{Tier: []string{"", "explore"}[i%2]}})
					if err != nil {
						t.Error(err)
						return
					}
					for _, c := range items {
						_ = c.Spec.Score
					}
					if next == nil {
						break
					}
					after = next
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
}

// Wire encodes a cached object once, encodes a replacing object (an update, also one that
// only swaps the object in place) afresh, and forgets deleted claims.
func TestWireEncodesOncePerObject(t *testing.T) {
	x := New(spec)
	calls := 0
	encode := func(c *discov1.Claim) []byte {
		calls++
		return []byte(c.Spec.Summary)
	}
	c1 := claim("t", "p", "c1", base, "law", "explore", 0.5, "r", "m")
	c1.Spec.Summary = "first"
	x.Upsert(c1)
	for i := 0; i < 3; i++ {
		if got := string(x.Wire(c1, encode)); got != "first" {
			t.Fatalf("Wire = %q, want first", got)
		}
	}
	if calls != 1 {
		t.Fatalf("encode called %d times for one object, want 1", calls)
	}
	// A status-only update keeps the entry and swaps the object in place.
	c2 := c1.DeepCopy()
	c2.Spec.Summary = "second"
	c2.ResourceVersion = "2"
	x.Upsert(c2)
	if got := string(x.Wire(c2, encode)); got != "second" {
		t.Fatalf("Wire after update = %q, want second", got)
	}
	if calls != 2 {
		t.Fatalf("encode called %d times, want 2 after an update", calls)
	}
	// A stale pointer (a page taken before the update) is encoded, never served c2's form.
	if got := string(x.Wire(c1, encode)); got != "first" {
		t.Fatalf("Wire of the replaced object = %q, want first", got)
	}
	x.Delete("t", "c1")
	if got := string(x.Wire(c2, encode)); got != "second" {
		t.Fatalf("Wire after delete = %q", got)
	}
}
