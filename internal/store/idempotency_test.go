package store_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func TestIdempotency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		now := time.Now()
		st.SetClock(func() time.Time { return now })
		rec := store.IdempotencyRecord{
			TenantID: "ten_a", Principal: "api_key:key_a", Key: "k1", Method: "POST", Path: "/v1/projects", BodySHA256: "abc",
			Status: 201, Header: http.Header{"Location": {"/v1/projects/proj_1"}}, Body: []byte(`{"id":"proj_1"}`),
		}
		if _, err := st.GetIdempotent(ctx, "ten_a", "api_key:key_a", "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("before put: %v, want ErrNotFound", err)
		}
		if err := st.PutIdempotent(ctx, rec); err != nil {
			t.Fatal(err)
		}
		got, err := st.GetIdempotent(ctx, "ten_a", "api_key:key_a", "k1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != 201 || string(got.Body) != `{"id":"proj_1"}` || got.BodySHA256 != "abc" ||
			got.Header.Get("Location") != "/v1/projects/proj_1" || got.Path != "/v1/projects" {
			t.Fatalf("GetIdempotent = %+v", got)
		}
		if _, err := st.GetIdempotent(ctx, "ten_b", "api_key:key_a", "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other tenant sees the record: %v", err)
		}
		// Another principal of the same tenant has its own namespace of keys: it neither
		// sees the record nor is refused when it stores its own under the same key.
		if _, err := st.GetIdempotent(ctx, "ten_a", "api_key:key_b", "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another principal sees the record: %v", err)
		}
		mine := rec
		mine.Principal, mine.Body = "api_key:key_b", []byte(`{"id":"proj_2"}`)
		if err := st.PutIdempotent(ctx, mine); err != nil {
			t.Fatalf("another principal's record under the same key: %v", err)
		}
		if got, err := st.GetIdempotent(ctx, "ten_a", "api_key:key_b", "k1"); err != nil || string(got.Body) != `{"id":"proj_2"}` || got.Principal != "api_key:key_b" {
			t.Fatalf("another principal's record = %+v, %v", got, err)
		}
		second := rec
		second.BodySHA256 = "different"
		if err := st.PutIdempotent(ctx, second); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second put with the same key: %v, want ErrConflict", err)
		}

		// A day later the key is free again and the sweep removes what is left.
		now = now.Add(store.IdempotencyTTL + time.Second)
		if _, err := st.GetIdempotent(ctx, "ten_a", "api_key:key_a", "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired record still served: %v", err)
		}
		other := rec
		other.Key = "k2"
		if err := st.PutIdempotent(ctx, other); err != nil {
			t.Fatal(err)
		}
		n, err := st.SweepIdempotency(ctx)
		if err != nil || n != 2 {
			t.Fatalf("sweep removed %d, %v; want 2 (both principals' expired k1, not the fresh k2)", n, err)
		}
		if err := st.PutIdempotent(ctx, second); err != nil {
			t.Fatalf("reuse of an expired key: %v", err)
		}
		if got, _ := st.GetIdempotent(ctx, "ten_a", "api_key:key_a", "k1"); got.BodySHA256 != "different" {
			t.Fatalf("reused key returns %+v", got)
		}
	})
}
