package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestMemoryGCRA(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	m := NewMemory(func() time.Time { return now })
	lim := PerMinute(60) // one per second, bursts of 60
	ctx := context.Background()
	for i := 0; i < 60; i++ {
		r, _ := m.Allow(ctx, "k", lim)
		if !r.Allowed || r.Remaining != 59-i {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	r, _ := m.Allow(ctx, "k", lim)
	if r.Allowed || r.RetryAfter != time.Second || r.Remaining != 0 {
		t.Fatalf("61st: %+v", r)
	}
	if r.ResetAfter != time.Minute {
		t.Fatalf("reset %v", r.ResetAfter)
	}
	// Other keys are independent.
	if r, _ := m.Allow(ctx, "other", lim); !r.Allowed {
		t.Fatal("other key limited")
	}
	now = now.Add(time.Second)
	if r, _ := m.Allow(ctx, "k", lim); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("after 1 s: %+v", r)
	}
	now = now.Add(time.Minute)
	if r, _ := m.Allow(ctx, "k", lim); !r.Allowed || r.Remaining != 59 {
		t.Fatalf("after refill: %+v", r)
	}
}
