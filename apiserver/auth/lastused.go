package auth

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/discolab/disco/internal/store"
)

// useRecorder records when API keys authenticate requests, for the keys' last_used_at
// (issue 15). Recording never fails or slows a request: the write runs in the background,
// bounded in time and in number, and a failed write is logged and retried on a later use. Each replica writes a key at most once per store.APIKeyUseResolution,
// and the store's conditional update keeps that bound across replicas.
type useRecorder struct {
	// touch is store.TouchAPIKey.
	touch func(ctx context.Context, id string, at time.Time) (bool, error)
	log   logr.Logger
	// writeTimeout bounds each write, so a busy database (SQLite's single connection)
	// cannot hold writes for long.
	writeTimeout time.Duration

	mu   sync.Mutex
	next map[string]time.Time // key id: the earliest time of its next write
	// slots bounds the writes in flight; a use that finds none free is not recorded
	// (a later one will be).
	slots chan struct{}
	// wg counts the writes in flight, for tests to wait on.
	wg sync.WaitGroup
}

// maxUseWritesInFlight bounds concurrent last-use writes per replica.
const maxUseWritesInFlight = 4

func newUseRecorder(st *store.Store) *useRecorder {
	if st == nil {
		return nil
	}
	return &useRecorder{
		touch: st.TouchAPIKey, log: ctrllog.Log.WithName("apiserver").WithName("auth"), writeTimeout: 5 * time.Second,
		next: map[string]time.Time{}, slots: make(chan struct{}, maxUseWritesInFlight),
	}
}

// record notes that key k authenticated a request at now.
func (r *useRecorder) record(k store.APIKey, now time.Time) {
	if r == nil {
		return
	}
	if k.LastUsedAt != nil && now.Sub(*k.LastUsedAt) < store.APIKeyUseResolution {
		return // the stored time is recent enough
	}
	r.mu.Lock()
	if now.Before(r.next[k.ID]) {
		r.mu.Unlock()
		return
	}
	if len(r.next) > 10000 {
		clear(r.next) // bounded memory; forgetting only costs a write that matches no row
	}
	r.next[k.ID] = now.Add(store.APIKeyUseResolution)
	r.mu.Unlock()

	select {
	case r.slots <- struct{}{}:
	default:
		r.mu.Lock()
		delete(r.next, k.ID) // not written: let the next use try
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() { <-r.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), r.writeTimeout)
		defer cancel()
		if _, err := r.touch(ctx, k.ID, now); err != nil {
			r.log.Error(err, "recording an API key's last use", "key_id", k.ID)
		}
	}()
}

// WaitForUses waits for the last-use writes in flight, for tests; a write still in
// flight when the process exits is lost, and the key's next use records it.
func (a *Authenticator) WaitForUses() {
	if a.uses != nil {
		a.uses.wg.Wait()
	}
}
