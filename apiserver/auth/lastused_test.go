package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/internal/store"
)

// touches counts the last-use writes a recorder asks for.
type touches struct {
	mu   sync.Mutex
	at   map[string][]time.Time
	fail bool
}

func (c *touches) touch(_ context.Context, id string, at time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at[id] = append(c.at[id], at)
	if c.fail {
		return false, errors.New("database is locked")
	}
	return true, nil
}

func (c *touches) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.at[id])
}

func newTestRecorder(c *touches) *useRecorder {
	return &useRecorder{touch: c.touch, log: logr.Discard(), writeTimeout: time.Second,
		next: map[string]time.Time{}, slots: make(chan struct{}, maxUseWritesInFlight)}
}

// Each replica asks for at most one last-use write per key per store.APIKeyUseResolution,
// and none while the key's stored last use is that recent (issue 15).
func TestUseRecorderWritesOncePerResolution(t *testing.T) {
	c := &touches{at: map[string][]time.Time{}}
	r := newTestRecorder(c)
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	a, b := store.APIKey{ID: "key_a"}, store.APIKey{ID: "key_b"}
	for _, d := range []time.Duration{0, time.Second, 30 * time.Second, store.APIKeyUseResolution - time.Millisecond} {
		r.record(a, t0.Add(d))
	}
	r.record(b, t0.Add(time.Second))
	r.wg.Wait()
	if n := c.count("key_a"); n != 1 {
		t.Fatalf("4 uses within a minute asked for %d writes, want 1", n)
	}
	if n := c.count("key_b"); n != 1 {
		t.Fatalf("another key's first use asked for %d writes, want 1", n)
	}
	r.record(a, t0.Add(store.APIKeyUseResolution))
	r.wg.Wait()
	if n := c.count("key_a"); n != 2 {
		t.Fatalf("a use a minute later asked for %d writes in all, want 2", n)
	}

	// A key read from the store with a recent last use needs no write.
	recent := t0.Add(time.Hour)
	fresh := newTestRecorder(c)
	fresh.record(store.APIKey{ID: "key_c", LastUsedAt: &recent}, recent.Add(10*time.Second))
	fresh.wg.Wait()
	if n := c.count("key_c"); n != 0 {
		t.Fatalf("a key used 10s ago asked for %d writes, want 0", n)
	}
}

// A failed write is not the request's failure; it is logged, and a use a minute later
// tries again.
func TestUseRecorderSurvivesFailedWrites(t *testing.T) {
	c := &touches{at: map[string][]time.Time{}, fail: true}
	r := newTestRecorder(c)
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	k := store.APIKey{ID: "key_a"}
	r.record(k, t0)
	r.wg.Wait()
	r.record(k, t0.Add(store.APIKeyUseResolution))
	r.wg.Wait()
	if n := c.count("key_a"); n != 2 {
		t.Fatalf("%d writes asked for, want 2 (a failed write is retried a minute later)", n)
	}
	var nilRecorder *useRecorder
	nilRecorder.record(k, t0) // an authenticator without a store records nothing
}
