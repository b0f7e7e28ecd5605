package webhook

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
)

const (
	testTenant  = "ten_test"
	testProject = "proj_test"
	testSecret  = "s3cret-for-tests"
)

// fakeClock is a settable clock shared by the store, the publisher, the dispatcher
// and the receiver, so hours of retry schedule pass in microseconds.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *fakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// received is one request seen by a receiver.
type received struct {
	Header   http.Header
	Body     []byte
	VerifyEr error
}

// receiver is an httptest endpoint that verifies signatures against the fake clock
// and answers with the statuses queued in codes (then 200).
type receiver struct {
	*httptest.Server
	clock *fakeClock

	mu    sync.Mutex
	codes []int
	got   []received
}

func newReceiver(t *testing.T, clock *fakeClock, codes ...int) *receiver {
	r := &receiver{clock: clock, codes: codes}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		err := Verify(testSecret, req.Header, body, clock.Now(), 0)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body, VerifyEr: err})
		code := http.StatusOK
		if len(r.codes) > 0 {
			code, r.codes = r.codes[0], r.codes[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// setup wires a store, clock, publisher and registration for url.
func setup(t *testing.T, st *store.Store, clock *fakeClock, url string, events ...string) (*Publisher, store.Webhook) {
	t.Helper()
	st.SetClock(clock.Now)
	if len(events) == 0 {
		events = []string{RunCompleted}
	}
	wh, err := st.CreateWebhook(context.Background(), store.Webhook{
		TenantID: testTenant, ProjectID: testProject, URL: url, Events: events, Secret: testSecret,
	})
	if err != nil {
		t.Fatal(err)
	}
	return NewPublisher(st, clock.Now), wh
}

func newTestDispatcher(st *store.Store, clock *fakeClock, seed uint64) *Dispatcher {
	return NewDispatcher(st, DispatcherOptions{
		Now:           clock.Now,
		Rand:          rand.New(rand.NewPCG(seed, seed)),
		AllowLoopback: true,
		Sleep:         func(context.Context, time.Duration) error { return nil },
	})
}

func runCompletedData() map[string]any {
	return map[string]any{
		"run_id": "run_1", "campaign_id": "camp_1", "mode": "symbolic",
		"status": "completed", "claims_count": 2, "duration_ms": 1234,
	}
}

func publish(t *testing.T, p *Publisher) string {
	t.Helper()
	id, err := p.Publish(context.Background(), testTenant, testProject, RunCompleted, runCompletedData())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// onlyDelivery returns the registration's single delivery.
func onlyDelivery(t *testing.T, st *store.Store, webhookID string) store.Delivery {
	t.Helper()
	ds, err := st.ListDeliveries(context.Background(), testTenant, webhookID, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 {
		t.Fatalf("want 1 delivery, have %d", len(ds))
	}
	return ds[0]
}

func deliverOnce(t *testing.T, d *Dispatcher, want int) {
	t.Helper()
	n, err := d.DeliverOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("DeliverOnce sent %d, want %d", n, want)
	}
}
