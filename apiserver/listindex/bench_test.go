package listindex

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// benchIndex indexes n claims of project p (100 per run, 10 runs per campaign) and n/10 of
// another project, and warms every sort tree the benchmarks use.
func benchIndex(b *testing.B, n int) (*Index, []*discov1.Claim) {
	r := rand.New(rand.NewSource(1))
	x := New(spec)
	all := make([]*discov1.Claim, 0, n)
	for i := 0; i < n; i++ {
		c := claim("t", "p", fmt.Sprintf("clm-%08d", i), base.Add(time.Duration(i/3)*time.Second),
			claimTypes[r.Intn(3)], tiers[r.Intn(3)], float64(r.Intn(1000))/1000,
			fmt.Sprintf("run-%d", i/100), fmt.Sprintf("cmp-%d", i/1000))
		all = append(all, c)
		x.Upsert(c)
	}
	for i := 0; i < n/10; i++ {
		x.Upsert(claim("t", "other", fmt.Sprintf("oth-%08d", i), base, "law", "explore", 0.5, "", ""))
	}
	for _, s := range []string{"score", "tier", "type"} {
		if _, _, _, err := x.Page("t", "p", Query{Sort: s, Limit: 1}); err != nil {
			b.Fatal(err)
		}
	}
	return x, all
}

func BenchmarkPage(b *testing.B) {
	codec := pagination.NewCodec([]byte("0123456789abcdef0123456789abcdef"))
	for _, n := range []int{1000, 100000} {
		x, all := benchIndex(b, n)
		mid := all[n/2]
		cases := []struct {
			name string
			q    Query
		}{
			{"first", Query{Desc: true, Limit: 100}},
			{"cursor_mid", Query{Desc: true, Limit: 100, After: &Key{Sort: pagination.Time(mid.CreationTimestamp.Time), Name: mid.Name}}},
			{"score_asc", Query{Sort: "score", Limit: 100}},
			{"tier_filter", Query{Desc: true, Limit: 100, Match: Match{Tier: "publish"}}},
			{"run_and_type", Query{Desc: true, Limit: 100, Match: Match{RunID: "run-5", Type: "law"}}},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					items, _, _, err := x.Page("t", "p", c.q)
					if err != nil || len(items) == 0 {
						b.Fatal(err, len(items))
					}
				}
			})
		}
		// The drop-in, with cursor decode/encode (HMAC), on a second page.
		first, err := x.Paginate(codec, "t", "p", Match{}, pagination.Request{Limit: 100, Order: "desc", Filter: "project=p"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("paginate_cursor/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := x.Paginate(codec, "t", "p", Match{}, pagination.Request{Limit: 100, Cursor: first.NextCursor, Filter: "project=p"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Baseline: today's top-k over a slice of pointers (without the cache List's copy).
		b.Run(fmt.Sprintf("baseline_slice_topk/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := pagination.Paginate(codec, all, spec, pagination.Request{Limit: 100, Order: "desc"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpsert is the cost of one informer event at 100k claims (insert of a new claim
// into the 6 partitions, with all four sort trees of the project built).
func BenchmarkUpsert(b *testing.B) {
	x, _ := benchIndex(b, 100000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Upsert(claim("t", "p", fmt.Sprintf("new-%09d", i), base.Add(time.Duration(i)*time.Millisecond), "law", "validate", 0.5, "run-x", "cmp-x"))
	}
}
