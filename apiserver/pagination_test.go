package apiserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// walk follows next_cursor to the end and returns the ids in order.
func walk(t *testing.T, key, path string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("too many pages")
		}
		p := path
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		r := call(t, "GET", p, key, nil).expect(t, 200)
		for _, it := range r.JSON["data"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		if r.JSON["has_more"] != true {
			if _, ok := r.JSON["next_cursor"]; ok {
				t.Fatal("next_cursor on the last page")
			}
			return out
		}
		cursor = r.str("next_cursor")
	}
}

func TestPaginationUnderConcurrentInserts(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	cid := mustCampaign(t, key, pid, nil, nil)
	var before []string
	for i := 0; i < 45; i++ {
		before = append(before, makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimLaw, float64(i%10)/10, true))
	}
	// Insert more claims while walking, in every sort order: every claim that existed
	// before the walk appears exactly once; new ones may or may not.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var inserted atomic.Int32
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimCausal, 0.55, true)
				inserted.Add(1)
			}
		}
	}()
	for _, q := range []string{"limit=7", "limit=5&order=asc", "sort=score&limit=6", "sort=score&order=desc&limit=4", "sort=type&limit=9", "sort=tier&limit=10"} {
		got := walk(t, key, "/v1/projects/"+pid+"/claims?"+q)
		seen := map[string]int{}
		for _, id := range got {
			seen[id]++
			if seen[id] > 1 {
				t.Fatalf("%s: %s appears twice", q, id)
			}
		}
		for _, id := range before {
			if seen[id] != 1 {
				t.Fatalf("%s: %s missing", q, id)
			}
		}
	}
	close(stop)
	wg.Wait()
	if inserted.Load() == 0 {
		t.Fatal("no concurrent inserts happened")
	}
}

func TestPaginationParameters(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	for i := 0; i < 25; i++ {
		call(t, "POST", "/v1/projects/"+pid+"/campaigns", key, map[string]any{"name": fmt.Sprintf("c%02d", i), "budget": map[string]any{"compute_units": 1, "max_runs": 1}}).expect(t, 201)
	}
	base := "/v1/projects/" + pid + "/campaigns"
	r := call(t, "GET", base, key, nil).expect(t, 200)
	if len(r.JSON["data"].([]any)) != 20 || r.JSON["total_count"] != 25.0 || r.JSON["has_more"] != true || r.JSON["object"] != "list" {
		t.Fatalf("default page: %s", r.Raw)
	}
	r = call(t, "GET", base+"?limit=100", key, nil).expect(t, 200)
	if len(r.JSON["data"].([]any)) != 25 {
		t.Fatal("limit=100")
	}
	call(t, "GET", base+"?limit=101", key, nil).expect(t, 400, "validation_error")
	call(t, "GET", base+"?limit=0", key, nil).expect(t, 400, "validation_error")
	call(t, "GET", base+"?limit=abc", key, nil).expect(t, 400, "validation_error")
	call(t, "GET", base+"?sort=budget", key, nil).expect(t, 400, "validation_error")
	call(t, "GET", base+"?order=sideways", key, nil).expect(t, 400, "validation_error")
	// Names sort ascending by default when sorting by name.
	names := call(t, "GET", base+"?sort=name&limit=3", key, nil).expect(t, 200)
	if names.JSON["data"].([]any)[0].(map[string]any)["name"] != "c00" {
		t.Fatalf("name sort %s", names.Raw)
	}

	// Cursors are tamper-proof and bound to their query.
	first := call(t, "GET", base+"?limit=5", key, nil).expect(t, 200)
	cur := first.str("next_cursor")
	for _, bad := range []string{"garbage", cur[:len(cur)-2] + "AA", strings.ToUpper(cur), "%00", strings.Repeat("A", 5000)} {
		call(t, "GET", base+"?limit=5&cursor="+url.QueryEscape(bad), key, nil).expect(t, 400)
	}
	call(t, "GET", base+"?limit=5&sort=name&cursor="+url.QueryEscape(cur), key, nil).expect(t, 400, "invalid_cursor")
	call(t, "GET", base+"?limit=5&status=archived&cursor="+url.QueryEscape(cur), key, nil).expect(t, 400, "invalid_cursor")
	call(t, "GET", "/v1/projects?cursor="+url.QueryEscape(cur), key, nil).expect(t, 400, "invalid_cursor")
	call(t, "GET", base+"?limit=5&cursor="+url.QueryEscape(cur), key, nil).expect(t, 200)
	all := walk(t, key, base+"?limit=6")
	if len(all) != 25 {
		t.Fatalf("walk %d", len(all))
	}
	_ = context.Background()
}
