package pagination

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

type item struct {
	id    string
	score float64
}

var spec = Spec[item]{
	Name:        "items",
	Fields:      map[string]func(item) Key{"score": func(i item) Key { return Number(i.score) }, "id": func(i item) Key { return String(i.id) }},
	DefaultSort: "score", DefaultOrder: Desc,
	ID: func(i item) string { return i.id },
}

func TestWalkMatchesSort(t *testing.T) {
	codec := NewCodec([]byte("k"))
	r := rand.New(rand.NewSource(1))
	items := make([]item, 1000)
	for i := range items {
		items[i] = item{id: fmt.Sprintf("i%04d", r.Intn(100000)), score: float64(r.Intn(20))}
	}
	for _, order := range []string{Asc, Desc} {
		want := append([]item(nil), items...)
		slices.SortStableFunc(want, func(a, b item) int {
			c := cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.id, b.id))
			if order == Desc {
				return -c
			}
			return c
		})
		var got []item
		cursor := ""
		for {
			p, err := Paginate(codec, items, spec, Request{Limit: 37, Cursor: cursor, Order: order})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Items...)
			if !p.HasMore {
				break
			}
			cursor = p.NextCursor
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d items, want %d", order, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: item %d is %v, want %v", order, i, got[i], want[i])
			}
		}
	}
}

func TestCursorTampering(t *testing.T) {
	codec := NewCodec([]byte("k"))
	items := []item{{"a", 1}, {"b", 2}, {"c", 3}}
	p, _ := Paginate(codec, items, spec, Request{Limit: 1})
	other := NewCodec([]byte("other"))
	if _, err := other.Decode(p.NextCursor); err == nil {
		t.Fatal("cursor verified with another key")
	}
	raw := []byte(p.NextCursor)
	raw[3] ^= 1
	if _, err := codec.Decode(string(raw)); err == nil {
		t.Fatal("altered cursor accepted")
	}
	if _, err := Paginate(codec, items, spec, Request{Limit: 1, Cursor: p.NextCursor, Filter: "x"}); err == nil {
		t.Fatal("cursor accepted with another filter")
	}
	if _, err := Paginate(codec, items, spec, Request{Limit: 101}); err == nil {
		t.Fatal("limit 101 accepted")
	}
	if _, err := Paginate(codec, items, spec, Request{Sort: "nope"}); err == nil {
		t.Fatal("unknown sort accepted")
	}
}

func BenchmarkPage100k(b *testing.B) {
	codec := NewCodec([]byte("k"))
	items := make([]item, 100000)
	for i := range items {
		items[i] = item{id: fmt.Sprintf("i%06d", i), score: float64(i % 1000)}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Paginate(codec, items, spec, Request{Limit: 100}); err != nil {
			b.Fatal(err)
		}
	}
}
