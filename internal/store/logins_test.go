package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// Per-account sign-in throttling (issue 17): attempts are counted per (tenant, username)
// up front, a locked pair is refused without being counted, a success clears the count,
// and the row is forgotten after a quiet day.
func TestLoginThrottle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		// Three free attempts, then a minute doubling with every further failure.
		lockFor := func(n int) time.Duration {
			if n < 3 {
				return 0
			}
			return time.Minute << (n - 3)
		}
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		begin := func(tenant, user string) time.Duration {
			t.Helper()
			wait, err := st.BeginLogin(ctx, tenant, user, now, lockFor)
			if err != nil {
				t.Fatal(err)
			}
			return wait
		}
		for i := 1; i <= 3; i++ {
			if w := begin("ten_a", "ada"); w != 0 {
				t.Fatalf("attempt %d refused for %v", i, w)
			}
		}
		if w := begin("ten_a", "ada"); w != time.Minute {
			t.Fatalf("fourth attempt: wait %v, want 1m", w)
		}
		// Another tenant's pair, and another username, are independent.
		if w := begin("ten_b", "ada"); w != 0 {
			t.Fatalf("other tenant refused for %v", w)
		}
		if w := begin("ten_a", "grace"); w != 0 {
			t.Fatalf("other username refused for %v", w)
		}
		// Refused attempts do not extend the lock; once it passes, the next failure doubles it.
		now = now.Add(30 * time.Second)
		if w := begin("ten_a", "ada"); w != 30*time.Second {
			t.Fatalf("wait %v, want 30s", w)
		}
		now = now.Add(30 * time.Second)
		if w := begin("ten_a", "ada"); w != 0 {
			t.Fatalf("after the lock: wait %v", w)
		}
		if w := begin("ten_a", "ada"); w != 2*time.Minute {
			t.Fatalf("after the fourth failure: wait %v, want 2m", w)
		}
		// A success clears the count.
		now = now.Add(2 * time.Minute)
		if err := st.LoginSucceeded(ctx, "ten_a", "ada"); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 4; i++ {
			if w := begin("ten_a", "ada"); (w != 0) != (i == 4) {
				t.Fatalf("after success, attempt %d: wait %v", i, w)
			}
		}
		// A day without failures forgets them.
		now = now.Add(store.LoginForgetAfter + time.Minute)
		for i := 1; i <= 3; i++ {
			if w := begin("ten_a", "ada"); w != 0 {
				t.Fatalf("a day later, attempt %d refused for %v", i, w)
			}
		}
		// The sweep deletes rows that are quiet for a day and not locked.
		now = now.Add(store.LoginForgetAfter + time.Minute)
		n, err := st.SweepLogins(ctx, now)
		if err != nil || n != 3 {
			t.Fatalf("SweepLogins = %d, %v; want the 3 pairs", n, err)
		}
	})
}
