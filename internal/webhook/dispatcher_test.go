package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// The controller-runtime manager runs a Runnable that also reports
// NeedLeaderElection only on the elected leader. Checked structurally to keep
// controller-runtime out of this package's test build.
var _ interface {
	Start(context.Context) error
	NeedLeaderElection() bool
} = (*Dispatcher)(nil)

func TestDeliverSuccess(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clock := newFakeClock()
		rcv := newReceiver(t, clock)
		p, wh := setup(t, st, clock, rcv.URL)
		var outcomes []string
		d := newTestDispatcher(st, clock, 1)
		d.opts.Metrics = func(o string) { outcomes = append(outcomes, o) }

		id := publish(t, p)
		deliverOnce(t, d, 1)
		deliverOnce(t, d, 0) // nothing left

		got := rcv.requests()
		if len(got) != 1 {
			t.Fatalf("receiver got %d requests", len(got))
		}
		r := got[0]
		if r.VerifyEr != nil {
			t.Fatalf("receiver could not verify: %v", r.VerifyEr)
		}
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != UserAgent {
			t.Errorf("headers = %v", r.Header)
		}
		if r.Header.Get(StandardIDHeader) != id {
			t.Errorf("webhook-id = %q, want %q", r.Header.Get(StandardIDHeader), id)
		}
		var env store.Event
		if err := json.Unmarshal(r.Body, &env); err != nil || env.ID != id || env.Type != RunCompleted {
			t.Errorf("body = %s (%v)", r.Body, err)
		}
		dl := onlyDelivery(t, st, wh.ID)
		if dl.Status != store.DeliverySucceeded || dl.Attempt != 1 || dl.LastStatusCode != 200 {
			t.Errorf("delivery = %+v", dl)
		}
		if len(outcomes) != 1 || outcomes[0] != OutcomeSucceeded {
			t.Errorf("metrics = %v", outcomes)
		}
	})
}

// TestFailTwiceThenRecover: the same event, byte for byte and under the same id, is
// retried on the schedule until the endpoint recovers; every attempt is signed
// validly at its own time and recorded.
func TestFailTwiceThenRecover(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clock := newFakeClock()
		rcv := newReceiver(t, clock, 500, 503)
		p, wh := setup(t, st, clock, rcv.URL)
		d := newTestDispatcher(st, clock, 2)
		id := publish(t, p)
		start := clock.Now()

		deliverOnce(t, d, 1)
		dl := onlyDelivery(t, st, wh.ID)
		if dl.Status != store.DeliveryFailed || dl.Attempt != 1 || dl.LastStatusCode != 500 {
			t.Fatalf("after 1st attempt: %+v", dl)
		}
		if wait := dl.NextAttemptAt.Sub(start); wait < 4500*time.Millisecond || wait > 5500*time.Millisecond {
			t.Fatalf("2nd attempt due after %v, want 5s ±10%%", wait)
		}
		clock.Advance(4 * time.Second)
		deliverOnce(t, d, 0) // not due yet
		clock.Set(dl.NextAttemptAt)
		second := clock.Now()
		deliverOnce(t, d, 1)

		dl = onlyDelivery(t, st, wh.ID)
		if dl.Status != store.DeliveryFailed || dl.Attempt != 2 || dl.LastStatusCode != 503 {
			t.Fatalf("after 2nd attempt: %+v", dl)
		}
		if wait := dl.NextAttemptAt.Sub(second); wait < 270*time.Second || wait > 330*time.Second {
			t.Fatalf("3rd attempt due after %v, want 5m ±10%%", wait)
		}
		clock.Set(dl.NextAttemptAt)
		deliverOnce(t, d, 1)

		dl = onlyDelivery(t, st, wh.ID)
		if dl.Status != store.DeliverySucceeded || dl.Attempt != 3 || dl.LastStatusCode != 200 || dl.EventID != id {
			t.Fatalf("after 3rd attempt: %+v", dl)
		}
		got := rcv.requests()
		if len(got) != 3 {
			t.Fatalf("receiver got %d requests, want 3", len(got))
		}
		for i, r := range got {
			if r.VerifyEr != nil {
				t.Errorf("attempt %d: signature invalid: %v", i+1, r.VerifyEr)
			}
			if r.Header.Get(StandardIDHeader) != id || string(r.Body) != string(got[0].Body) {
				t.Errorf("attempt %d: id %q body %s differ from the first", i+1, r.Header.Get(StandardIDHeader), r.Body)
			}
		}
	})
}

// TestRetriesEndAt72Hours: an endpoint that never recovers gets 11 attempts, the
// last at exactly 72 h after the first, then the delivery is dead.
func TestRetriesEndAt72Hours(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := newFakeClock()
	rcv := newReceiver(t, clock, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500)
	p, wh := setup(t, st, clock, rcv.URL)
	var dead atomic.Int32
	d := newTestDispatcher(st, clock, 3)
	d.opts.Metrics = func(o string) {
		if o == OutcomeDead {
			dead.Add(1)
		}
	}
	publish(t, p)
	start := clock.Now()
	for range 20 {
		deliverOnce(t, d, 1)
		dl := onlyDelivery(t, st, wh.ID)
		if dl.Status == store.DeliveryDead {
			break
		}
		if dl.NextAttemptAt.After(start.Add(RetryWindow)) {
			t.Fatalf("attempt %d scheduled past 72h: %v", dl.Attempt+1, dl.NextAttemptAt.Sub(start))
		}
		clock.Set(dl.NextAttemptAt)
	}
	dl := onlyDelivery(t, st, wh.ID)
	if dl.Status != store.DeliveryDead || dl.Attempt != len(Schedule)+2 {
		t.Fatalf("delivery = %+v, want dead after %d attempts", dl, len(Schedule)+2)
	}
	if last := clock.Now().Sub(start); last != RetryWindow {
		t.Fatalf("last attempt at %v, want 72h", last)
	}
	if dead.Load() != 1 || len(rcv.requests()) != len(Schedule)+2 {
		t.Fatalf("dead outcomes %d, requests %d", dead.Load(), len(rcv.requests()))
	}
}

func TestGoneDisablesRegistration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clock := newFakeClock()
		rcv := newReceiver(t, clock, http.StatusGone)
		p, wh := setup(t, st, clock, rcv.URL)
		d := newTestDispatcher(st, clock, 4)
		publish(t, p)
		deliverOnce(t, d, 1)

		if dl := onlyDelivery(t, st, wh.ID); dl.Status != store.DeliveryDead || dl.LastStatusCode != http.StatusGone {
			t.Fatalf("delivery = %+v", dl)
		}
		w, err := st.WebhookByID(ctx, testTenant, wh.ID)
		if err != nil || w.Status != store.WebhookDisabled {
			t.Fatalf("registration = %+v (%v), want disabled", w, err)
		}
		publish(t, p)
		clock.Advance(time.Hour)
		deliverOnce(t, d, 0)
		if n := len(rcv.requests()); n != 1 {
			t.Fatalf("disabled endpoint got %d requests", n)
		}
	})
}

// TestRestartLosesNothing: a dispatcher killed mid-send leaves its delivery leased;
// a new dispatcher over the same store sends it once the lease is over, and picks
// up scheduled retries too.
func TestRestartLosesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clock := newFakeClock()
		entered := make(chan struct{}, 1)
		release := make(chan struct{})
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) == 1 {
				entered <- struct{}{}
				<-release // the first dispatcher "dies" while this request hangs
				w.WriteHeader(http.StatusOK)
				return
			}
			w.WriteHeader(http.StatusInternalServerError)
		}))
		defer srv.Close()
		defer close(release)
		p, wh := setup(t, st, clock, srv.URL)
		id := publish(t, p)

		ctx, kill := context.WithCancel(context.Background())
		first := newTestDispatcher(st, clock, 5)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = first.DeliverOnce(ctx) // killed mid-send; what it recorded is checked below
		}()
		<-entered
		kill()
		<-done
		if dl := onlyDelivery(t, st, wh.ID); dl.Attempt != 0 || dl.Status != store.DeliveryPending {
			t.Fatalf("killed dispatcher recorded something: %+v", dl)
		}

		second := newTestDispatcher(st, clock, 6)
		deliverOnce(t, second, 0) // still leased
		clock.Advance(first.opts.Lease)
		deliverOnce(t, second, 1) // 500: a retry is scheduled

		third := newTestDispatcher(st, clock, 7)
		dl := onlyDelivery(t, st, wh.ID)
		if dl.Status != store.DeliveryFailed || dl.EventID != id {
			t.Fatalf("delivery = %+v", dl)
		}
		clock.Set(dl.NextAttemptAt)
		deliverOnce(t, third, 1)
		if n := hits.Load(); n != 3 {
			t.Fatalf("endpoint got %d requests, want 3", n)
		}
	})
}

// TestDispatcherDialCheck: with loopback not allowed, a registration whose hostname
// resolves to loopback is never reached; the attempt fails and is retried.
func TestDispatcherDialCheck(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := newFakeClock()
	rcv := newReceiver(t, clock)
	p, wh := setup(t, st, clock, strings.Replace(rcv.URL, "http://127.0.0.1", "https://localhost", 1))
	d := NewDispatcher(st, DispatcherOptions{Now: clock.Now}) // AllowLoopback false
	publish(t, p)
	deliverOnce(t, d, 1)
	dl := onlyDelivery(t, st, wh.ID)
	if dl.Status != store.DeliveryFailed || !strings.Contains(dl.LastError, "forbidden") {
		t.Fatalf("delivery = %+v", dl)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Fatalf("forbidden endpoint got %d requests", n)
	}
}

// TestRun drives the polling loop with an injected sleep that moves the clock.
func TestRun(t *testing.T) {
	st := storetest.OpenSQLite(t)
	clock := newFakeClock()
	rcv := newReceiver(t, clock, 500)
	p, wh := setup(t, st, clock, rcv.URL)
	publish(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	d := NewDispatcher(st, DispatcherOptions{
		Now:           clock.Now,
		AllowLoopback: true,
		Sleep: func(ctx context.Context, dur time.Duration) error {
			polls++
			if polls == 20 {
				cancel()
				return ctx.Err()
			}
			clock.Advance(dur)
			return nil
		},
	})
	if err := d.Start(ctx); err != nil {
		t.Fatalf("Start = %v, want nil on cancellation", err)
	}
	if !d.NeedLeaderElection() {
		t.Error("dispatcher must be leader-elected")
	}
	if dl := onlyDelivery(t, st, wh.ID); dl.Status != store.DeliverySucceeded || dl.Attempt != 2 {
		t.Fatalf("delivery = %+v", dl)
	}
}
